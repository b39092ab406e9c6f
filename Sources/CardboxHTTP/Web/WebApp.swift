import CardboxAccountCopies
import CardboxCore
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// The web app: pages rendered on the server that work on the account's store the server keeps
/// (`AccountReplicas`), through the same engine functions as the command line. What a page changes
/// is pushed to the sync state in the same request, so every device of the account gets it.
///
/// Each feature's routes, handlers and view models live in a file of `Web/Pages`; a view model
/// is a struct whose stored properties are the names its template (`Web/Templates`) reads.
struct WebApp: Sendable {
    let database: any ServerDatabase
    let accounts: AccountService
    let actions: AccountActions
    let options: ServerOptions
    /// Whether the server speaks HTTPS (the session cookie is then `Secure`).
    let secure: Bool
    /// Wakes a live page when its account changes (a device's push, another tab's action).
    let news: AccountNews
    /// Each account's request rate, the same bucket as the API's: a signed-in page or form counts.
    let limiter: RateLimiter
    /// The pages most asked for, kept a second while nothing they show has changed.
    let pageCache = PageCache()
    /// Held while a recommended retention is worked out (one at a time on a server).
    let recommending = OneAtATime()
    /// Held while FSRS is fitted to a deck's reviews (one at a time on a server).
    let fitting = OneAtATime()

    /// The pages' routes in two groups: those before a session (first run, sign-up, sign-in),
    /// whose forms must come from this server's own pages, and the rest, which need a session and
    /// whose forms carry its CSRF token. `PageForms` checks both before a handler runs, so no route
    /// can forget either.
    func addRoutes(to router: Router<CardboxRequestContext>) {
        for (path, content, type) in WebAssets.served {
            router.get(RouterPath(String(path.dropFirst()))) { _, _ in Self.asset(content, type: type) }
        }
        addAppShellRoutes(to: router)
        let pages = router.group().add(middleware: WebSession(accounts: accounts, secure: secure, now: options.now))
        addSessionRoutes(
            to: pages.group().add(middleware: PageForms(needs: .sameOrigin, trustedProxies: options.trustedProxies)))
        let signedIn = pages.group().add(middleware: PageForms(needs: .session, trustedProxies: options.trustedProxies))
            .add(middleware: AccountRateLimit(limiter: limiter))
        addSignOutRoute(to: signedIn)
        addDeckRoutes(to: signedIn)
        addCardRoutes(to: signedIn)
        addStudyRoutes(to: signedIn)
        addDeckSettingsRoutes(to: signedIn)
        addListRoutes(to: signedIn)
        addListItemRoutes(to: signedIn)
        addBoardRoutes(to: signedIn)
        addExchangeRoutes(to: signedIn)
        addAccountRoutes(to: signedIn)
        addUserRoutes(to: signedIn)
    }

    /// An asset at its versioned address: it never changes there, so a browser keeps it a year.
    private static func asset(_ bytes: ByteBuffer, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=31536000, immutable"],
            body: .init(byteBuffer: bytes))
    }

    /// The page `make` makes, or the same page made a moment ago for this session from the same
    /// state of the account (see `PageCache`).
    func cachedPage(
        _ request: Request, _ context: CardboxRequestContext, make: () async throws -> WebPage.Rendered
    ) async throws -> Response {
        let caller = try context.pageCaller()
        let key = PageCache.Key(
            account: caller.account.id, session: context.csrf, plan: caller.account.plan, cursor: caller.cursor,
            edition: actions.edition(caller), address: request.uri.description)
        return try await pageCache.page(key, make: make).response
    }

    /// A form that changes something (its CSRF token checked by `PageForms`): the change made, then
    /// the browser sent to `then` (given what the change returned). A refusal shows as an error page.
    func change<T: Sendable>(
        _ context: CardboxRequestContext, then destination: (T) throws -> String,
        _ body: (Caller, [String: String]) async throws -> T
    ) async throws -> Response {
        let result = try await body(try context.pageCaller(), context.formFields)
        return WebPage.redirect(try destination(result))
    }

    /// Runs CPU work on a thread of its own, not one of the cooperative pool's few.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}

/// A slot for work the server does one at a time: taken, or refused while taken.
final class OneAtATime: Sendable {
    private let taken = Mutex(false)

    /// Whether the slot was free (it is now taken).
    func take() -> Bool {
        taken.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }

    func release() { taken.withLock { $0 = false } }
}
