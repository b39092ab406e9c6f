import CardboxCore
import CardboxServer
import CardboxSync
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The browser's session: a device token, like any device's, kept in an HttpOnly cookie. Signing
/// in from a browser adds a device to the account (listed and revocable on the account page);
/// signing out revokes it. Every form carries a CSRF token derived from the session's secret, which
/// another site cannot read, so it cannot make a signed-in browser post a form.
struct WebSession: RouterMiddleware {
    typealias Context = CardboxRequestContext
    let accounts: AccountService
    /// Whether the cookie is `Secure` (the server is reached over HTTPS).
    let secure: Bool
    let now: @Sendable () -> Date

    static let cookieName = "cardbox_session"
    /// A session unused for this long ends (its device is revoked); each page it opens renews it.
    static let idleLimit: TimeInterval = 30 * 86_400

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        if let token = request.cookies[Self.cookieName]?.value,
            let caller = try await accounts.caller(token: token, now: now(), idleLimit: Self.idleLimit)
        {
            context.caller = caller
            context.sessionToken = token
        }
        do {
            var response = try await next(request, context)
            // The cookie's own lifetime slides with the session's, unless the page set it (sign-out).
            if let token = context.sessionToken,
                !response.headers[values: .setCookie].contains(where: {
                    $0.hasPrefix(Self.cookieName + "=")
                })
            {
                response.setCookie(Self.cookie(token, secure: secure))
            }
            return response
        } catch {
            return WebPage.errorPage(error, context: context)
        }
    }

    /// Pages come from this origin only, and no other site may frame them (every answer carries
    /// these: `ResponsePolicy`). Images may also be
    /// `blob:` URLs: the editor's preview of a picture chosen but not yet sent. Scripts may compile
    /// WebAssembly (the FSRS step, for offline study), and nothing else at run time.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy:
            "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' blob:; frame-ancestors 'none'; "
            + "form-action 'self'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff", HTTPField.Name("Referrer-Policy")!: "same-origin",
    ]

    /// The session cookie for `token` (nil: the one that clears it).
    static func cookie(_ token: String?, secure: Bool) -> Cookie {
        Cookie(
            name: cookieName, value: token ?? "", maxAge: token == nil ? 0 : Int(idleLimit), path: "/", secure: secure,
            httpOnly: true, sameSite: .lax)
    }

    /// Refuses a form posted from a page of another site, for the forms that come before a session
    /// (and so before its CSRF token): the first account's, sign-up's and sign-in's. Otherwise any
    /// site opened in a browser on the server's machine could make itself the first account, or
    /// sign the browser in to an account of its own. Browsers say where a form came from
    /// (`Sec-Fetch-Site`, `Origin`); a client that says neither (a script) is not a browser on
    /// someone else's page, unless `required` (a signed-in form with a file: the browser must say).
    /// `X-Forwarded-Host` counts only from a trusted proxy (`throughProxy`): from anyone else it is
    /// the client's own word.
    static func requireSameOrigin(_ request: Request, throughProxy: Bool, required: Bool = false) throws {
        let refusal = APIError(
            .forbidden, "this form came from another site: open this server's own page and try again")
        if let site = request.headers[secFetchSite] {
            guard site == "same-origin" || site == "none" else { throw refusal }
            return
        }
        guard let origin = request.headers[.origin] else {
            if required { throw refusal }
            return
        }
        // Behind a reverse proxy the page's host may reach the server as the forwarded one.
        let forwarded = throughProxy ? request.headers[forwardedHost] : nil
        let hosts = [request.head.authority, forwarded].compactMap { $0?.lowercased() }
        guard let host = origin.split(separator: "://", maxSplits: 1).dropFirst().first,
            hosts.contains(host.lowercased())
        else { throw refusal }
    }

    static let expiredForm = APIError(
        .forbidden, "this form has expired or came from another site: reload the page and try again")

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let clearSiteData = HTTPField.Name("Clear-Site-Data")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!

    /// The CSRF token of a session: a hash of its secret, so it is known only to pages this server sent.
    static func csrfToken(_ sessionToken: String) -> String {
        sha256Hex(Data("cardbox-csrf\u{0}\(sessionToken)".utf8))
    }
}

extension CardboxRequestContext {
    /// The signed-in caller of a page, or the error that sends the browser to the sign-in page.
    func pageCaller() throws -> Caller {
        guard let caller else { throw WebPage.Redirect(to: "/signin") }
        return caller
    }

    var csrf: String { sessionToken.map(WebSession.csrfToken) ?? "" }
}

/// What a group of pages needs before a handler runs, checked before a byte of a posted body is
/// read: a session (else the browser goes to sign-in, a stranger's upload unread), or for the forms
/// that come before one (first run, sign-up, sign-in) a post from this server's own page.
///
/// A form posted with a session then carries the session's CSRF token, which another site cannot
/// read, in its fields (at most `WebPage.formLimit`), read and checked here, its fields handed to
/// the handler as `context.formFields`. A form with a file (`multipart/form-data`, up to 64 MB) is
/// checked before its file is read, by where the browser says it came from (`Sec-Fetch-Site` or
/// `Origin`, one of which is required), so no token sits in an address (a log, a `Referer`). So no
/// handler sees a form whose checks it could have forgotten.
struct PageForms: RouterMiddleware {
    typealias Context = CardboxRequestContext

    enum Need {
        case sameOrigin, session
    }

    let needs: Need
    /// The reverse proxies whose `X-Forwarded-Host` is believed (`--trusted-proxy`).
    var trustedProxies: Set<String> = []

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        if needs == .session { _ = try context.pageCaller() }
        guard ![.get, .head].contains(request.method) else { return try await next(request, context) }
        let isMultipart = request.headers[.contentType]?.lowercased().hasPrefix("multipart/") ?? false
        switch needs {
        case .sameOrigin:
            try WebSession.requireSameOrigin(request, throughProxy: context.cameThroughProxy(trustedProxies))
            if !isMultipart { context.formFields = try await WebPage.form(request) }
        case .session where isMultipart:
            // Its file is not read before this check, so no token from its body: the browser's word
            // on where the form came from, which another site cannot forge.
            try WebSession.requireSameOrigin(
                request, throughProxy: context.cameThroughProxy(trustedProxies), required: true)
        case .session:
            context.formFields = try await WebPage.form(request)
            try context.checkCSRF(context.formFields["csrf"])
        }
        return try await next(request, context)
    }
}

extension CardboxRequestContext {
    /// Checks a posted form's CSRF token against the session's; a form without a session signs in.
    fileprivate func checkCSRF(_ posted: String?) throws {
        guard let sessionToken else { throw WebPage.Redirect(to: "/signin") }
        guard let posted, constantTimeEqual(posted, WebSession.csrfToken(sessionToken)) else {
            throw WebSession.expiredForm
        }
    }
}
