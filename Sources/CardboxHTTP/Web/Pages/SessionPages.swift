import CardboxCore
import CardboxServer
import Foundation
import Hummingbird

/// The first account's page, sign-up's and sign-in's form.
struct NewAccountPage: Encodable {
    var user = ""
    /// Whether the setup page was opened from the setup link (sign-up's form always shows).
    var hasToken = true
}

struct SignInPage: Encodable {
    var user = ""
    let canSignUp: Bool
}

/// First run, sign-up, sign in and out.
extension WebApp {
    func addSessionRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("/") { _, context in try await home(context) }
        pages.get("setup") { request, context in try await setupPage(request, context) }
        pages.post("setup") { request, context in try await setup(request, context) }
        pages.get("signin") { _, context in
            WebPage.html(.signin, title: "Sign in", SignInPage(canSignUp: options.openSignup), context: context)
        }
        pages.get("signup") { _, context in
            try requireOpenSignup()
            return WebPage.html(.signup, title: "Create an account", NewAccountPage(), context: context)
        }
        pages.post("signup") { request, context in
            try requireOpenSignup()
            return try await createAccount(request, context, page: .signup, title: "Create an account")
        }
        pages.post("signin") { request, context in try await signIn(request, context) }
    }

    func addSignOutRoute(to pages: RouterGroup<CardboxRequestContext>) {
        pages.post("signout") { _, context in
            let caller = try context.pageCaller()
            _ = try await database.revokeDevice(caller.device.id, account: caller.account.id, now: options.now())
            await news.signedOut(caller.account.id)
            // The pages kept in the HTTP cache go. What the account keeps in the browser (its replica,
            // the pictures) is removed by the page itself (device.js), once what waits there is sent
            // or the person has chosen to lose it: clearing the site's storage here would also remove
            // another account's replica, whose changes wait for that account's own sign-in.
            var response = WebPage.redirect("/signin", cookie: WebSession.cookie(nil, secure: secure))
            response.headers[WebSession.clearSiteData] = #""cache""#
            return response
        }
    }

    private func home(_ context: CardboxRequestContext) async throws -> Response {
        if context.caller != nil { return WebPage.redirect("/decks") }
        return WebPage.redirect(try await offersSetup() ? "/setup" : "/signin")
    }

    /// The first account is made from the browser only while the server has none, and only with
    /// the setup link `cardbox serve` printed (its token's hash is kept in the database for an
    /// hour, `AccountService.newSetupLink`): whoever reached the server first would own it
    /// otherwise, and behind a reverse proxy every request seems to come from this machine.
    private func offersSetup() async throws -> Bool { try await database.accounts().isEmpty }

    /// The setup link's token the request carries, if any.
    private func setupToken(_ request: Request) -> String? {
        request.uri.queryParameters["token"].map(String.init)
    }

    /// Whether the request carries the setup link's token, unexpired and unused.
    private func hasSetupToken(_ request: Request) async throws -> Bool {
        guard let token = setupToken(request) else { return false }
        return try await accounts.isSetupLink(token, now: options.now())
    }

    private func setupPage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        guard try await offersSetup() else { return WebPage.redirect("/signin") }
        return WebPage.html(
            .setup, title: "Welcome", NewAccountPage(hasToken: try await hasSetupToken(request)), context: context)
    }

    private func setup(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        guard try await offersSetup() else { throw SetupClosed() }
        guard let token = setupToken(request) else {
            throw APIError(
                .forbidden, "the first account is made from the setup link 'cardbox serve' printed when it started")
        }
        return try await createAccount(request, context, page: .setup, title: "Welcome", setupToken: token)
    }

    /// A new account from the form of `page` (a name not taken, a password of 8 or more
    /// characters), signed in at once; a refusal shows on the page with the name kept.
    private func createAccount(
        _ request: Request, _ context: CardboxRequestContext, page: Template, title: String,
        setupToken: String? = nil
    ) async throws -> Response {
        let form = context.formFields
        let (user, password) = (form["user"] ?? "", form["password"] ?? "")
        do {
            if let setupToken {
                _ = try await accounts.addFirstAccount(
                    name: user, password: password, setupToken: setupToken, now: options.now())
            } else {
                _ = try await accounts.addAccount(name: user, password: password)
            }
        } catch let error as CardboxError {
            return WebPage.html(
                page, title: title, NewAccountPage(user: user), context: context, error: WebPage.message(error),
                status: .badRequest)
        }
        return try await startSession(user: user, password: password, timeZone: form["timeZone"], request, context)
    }

    /// Anyone may make an account only on a server started with `--open-signup`.
    private func requireOpenSignup() throws {
        guard options.openSignup else {
            throw APIError(.forbidden, "sign-up is closed on this server; ask its administrator for an account")
        }
    }

    private func signIn(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let form = context.formFields
        let (user, password) = (form["user"] ?? "", form["password"] ?? "")
        do {
            return try await startSession(
                user: user, password: password, timeZone: form["timeZone"], request, context)
        } catch let error as CardboxError {
            let message =
                error == AccountService.wrongCredentials ? "Wrong account name or password." : WebPage.message(error)
            return WebPage.html(
                .signin, title: "Sign in", SignInPage(user: user, canSignUp: options.openSignup), context: context,
                error: message, status: .unauthorized)
        }
    }

    /// Signs the browser in as a device of the account named, and sends it to its decks.
    /// `timeZone`, the browser's (its script fills the form's hidden field), becomes the account's
    /// where it is a zone: study days on this server's copy then begin and end in it.
    private func startSession(
        user: String, password: String, timeZone: String?, _ request: Request, _ context: CardboxRequestContext
    ) async throws -> Response {
        let signIn = try await accounts.signIn(
            name: user, password: password, deviceName: BrowserName.describe(userAgent: request.headers[.userAgent]),
            client: context.clientAddress(request, trusting: options.trustedProxies),
            clientIsThere: await context.clientIsThere())
        if let timeZone, TimeZone(identifier: timeZone) != nil,
            let caller = try await accounts.caller(token: signIn.token)
        {
            _ = try? await actions.setSettings(caller, showCrossedOut: nil, timeZone: timeZone)
        }
        return WebPage.redirect("/decks", cookie: WebSession.cookie(signIn.token, secure: secure))
    }
}
