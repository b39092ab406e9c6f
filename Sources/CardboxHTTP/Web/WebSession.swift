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

    static let cookieName = "cardbox_session"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        if let token = request.cookies[Self.cookieName]?.value,
            let caller = try await accounts.caller(token: token)
        {
            context.caller = caller
            context.sessionToken = token
        }
        do {
            try Self.admitBody(request, context)
            var response = try await next(request, context)
            response.headers.append(contentsOf: Self.securityHeaders)
            return response
        } catch {
            return WebPage.errorPage(error, context: context)
        }
    }

    /// Pages come from this origin only, and no other site may frame them. Images may also be
    /// `blob:` URLs: the editor's preview of a picture chosen but not yet sent.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'self'; img-src 'self' blob:; frame-ancestors 'none'; form-action 'self'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff", HTTPField.Name("Referrer-Policy")!: "same-origin",
    ]

    /// The session cookie for `token` (nil: the one that clears it).
    static func cookie(_ token: String?, secure: Bool) -> Cookie {
        Cookie(
            name: cookieName, value: token ?? "", maxAge: token == nil ? 0 : 365 * 86_400, path: "/", secure: secure,
            httpOnly: true, sameSite: .lax)
    }

    /// Refuses a form posted from a page of another site, for the forms that come before a session
    /// (and so before its CSRF token): the first account's, sign-up's and sign-in's. Otherwise any
    /// site opened in a browser on the server's machine could make itself the first account, or
    /// sign the browser in to an account of its own. Browsers say where a form came from
    /// (`Sec-Fetch-Site`, `Origin`); a client that says neither (a script) is not a browser on
    /// someone else's page.
    static func requireSameOrigin(_ request: Request) throws {
        let refusal = APIError(
            .forbidden, "this form came from another site: open this server's own page and try again")
        if let site = request.headers[secFetchSite] {
            guard site == "same-origin" || site == "none" else { throw refusal }
            return
        }
        guard let origin = request.headers[.origin] else { return }
        // Behind a reverse proxy the page's host may reach the server as the forwarded one.
        let hosts = [request.head.authority, request.headers[forwardedHost]].compactMap { $0?.lowercased() }
        guard let host = origin.split(separator: "://", maxSplits: 1).dropFirst().first,
            hosts.contains(host.lowercased())
        else { throw refusal }
    }

    /// The forms posted before there is a session: the rest need one.
    static let formsBeforeSession: Set<String> = ["/setup", "/signin", "/signup"]

    /// Decides on a request's body before a byte of it is read: a form posted without a session
    /// goes to sign-in unread (a stranger's upload costs nothing), and a form with a file carries
    /// its CSRF token in its address (`?csrf=`), checked here, so a file reaches the server only
    /// from this server's own page. A form without a file (at most `WebPage.formLimit`) carries the
    /// token in its fields, checked by its handler.
    static func admitBody(_ request: Request, _ context: CardboxRequestContext) throws {
        guard ![.get, .head].contains(request.method), !formsBeforeSession.contains(request.uri.path) else { return }
        guard let sessionToken = context.sessionToken else { throw WebPage.Redirect(to: "/signin") }
        let posted = request.uri.queryParameters["csrf"].map(String.init)
        let isMultipart = request.headers[.contentType]?.lowercased().hasPrefix("multipart/") ?? false
        guard posted != nil || !isMultipart else { throw Self.expiredForm }
        if let posted, !constantTimeEqual(posted, csrfToken(sessionToken)) { throw Self.expiredForm }
    }

    static let expiredForm = APIError(
        .forbidden, "this form has expired or came from another site: reload the page and try again")

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
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

    /// Checks a posted form's CSRF token against the session's; a form without a session signs in.
    func checkCSRF(_ posted: String?) throws {
        guard let sessionToken else { throw WebPage.Redirect(to: "/signin") }
        guard let posted, constantTimeEqual(posted, WebSession.csrfToken(sessionToken)) else {
            throw WebSession.expiredForm
        }
    }

    var csrf: String { sessionToken.map(WebSession.csrfToken) ?? "" }
}
