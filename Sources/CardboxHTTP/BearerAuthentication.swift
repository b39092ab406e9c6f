import CardboxServer
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Checks the request's device token before the handler runs, and names its caller.
struct BearerAuthentication: RouterMiddleware {
    let accounts: AccountService

    static let unauthorized = APIError(
        .unauthorized, "sign in first: this request needs a valid device token (cardbox login)")

    func handle(
        _ request: Request, context: CardboxRequestContext,
        next: (Request, CardboxRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if let header = request.headers[.authorization] {
            guard header.hasPrefix("Bearer "),
                let caller = try await accounts.caller(token: String(header.dropFirst("Bearer ".count)))
            else { throw Self.unauthorized }
            context.caller = caller
        } else {
            guard let (caller, token) = try await SessionCookie.caller(request, accounts: accounts) else {
                throw Self.unauthorized
            }
            context.caller = caller
            context.sessionToken = token
        }
        return try await next(request, context)
    }
}

/// The browser's session cookie in place of a device token: the page's replica syncs through the
/// sync API as its device (the session is one). A request that changes something also carries the
/// page's CSRF token in `X-CSRF-Token`, which another site cannot read.
enum SessionCookie {
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// The session's caller and token, or nil without a session that signs in.
    static func caller(_ request: Request, accounts: AccountService) async throws -> (Caller, String)? {
        guard let token = request.cookies[WebSession.cookieName]?.value,
            let caller = try await accounts.caller(token: token)
        else { return nil }
        if ![.get, .head].contains(request.method) {
            guard constantTimeEqual(request.headers[csrfHeader] ?? "", WebSession.csrfToken(token)) else {
                throw APIError(.forbidden, "a request made with the session cookie needs the page's X-CSRF-Token")
            }
        }
        return (caller, token)
    }
}

extension CardboxRequestContext {
    func requireCaller() throws -> Caller {
        guard let caller else { throw APIError(.unauthorized, "sign in first") }
        return caller
    }
}

/// Bearer authentication that lets the handler start before the token's check has come back: the
/// check (a round trip to the database, then the account's rate limit) runs in a task of its own
/// while the handler reads the body and what it names (a push's read of the account). The handler
/// waits for the check (`verifiedCaller`) before it writes anything, and nothing reaches the client
/// before the check has passed: a failed check answers 401 (or 429) whatever the handler did.
///
/// Only a token whose last check here passed starts early (`RecentCallers`), with a body of at most
/// `earlyBodyLimit` bytes: any other request waits for its check first, so a made-up or revoked
/// token, or a device over its rate, costs the database one lookup and the server no parsing, as on
/// every other route.
struct EarlyBearerAuthentication: RouterMiddleware {
    let accounts: AccountService
    let limiter: RateLimiter
    let recent: RecentCallers
    static let earlyBodyLimit = 65_536

    func handle(
        _ request: Request, context: CardboxRequestContext,
        next: (Request, CardboxRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            // The browser's session: checked before anything runs, as every page's is.
            guard let (caller, token) = try await SessionCookie.caller(request, accounts: accounts) else {
                throw BearerAuthentication.unauthorized
            }
            try await AccountRateLimit.admit(caller.account.id, limiter)
            var context = context
            context.caller = caller
            context.sessionToken = token
            return try await next(request, context)
        }
        guard header.hasPrefix("Bearer "), let token = DeviceToken(String(header.dropFirst("Bearer ".count))) else {
            throw BearerAuthentication.unauthorized
        }
        let (accounts, limiter, recent, secretHash) = (self.accounts, self.limiter, self.recent, token.secretHash)
        let check = Task {
            do {
                guard let caller = try await accounts.caller(token: token.text) else {
                    throw BearerAuthentication.unauthorized
                }
                try await AccountRateLimit.admit(caller.account.id, limiter)
                recent.note(token.device, secretHash: secretHash, passed: true)
                return caller
            } catch {
                recent.note(token.device, secretHash: secretHash, passed: false)
                throw error
            }
        }
        var context = context
        context.callerCheck = CallerCheck(account: token.account, check: check)
        let length = request.headers[.contentLength].flatMap { Int($0) }
        let early = length.map { $0 <= Self.earlyBodyLimit } == true && recent.passed(token.device, secretHash)
        if !early { context.caller = try await check.value }
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            _ = try await check.value
            throw error
        }
        _ = try await check.value
        return response
    }
}

/// The tokens whose last check in this process passed, by device: a request with one of them may
/// start before its check has come back (see `EarlyBearerAuthentication`). Its check still runs
/// every time; one that fails (revoked, or over the rate) takes the device off the list.
final class RecentCallers: Sendable {
    /// The secret hash of each device's token that passed.
    private let tokens = BoundedMemory<UUID, String>()

    func passed(_ device: UUID, _ secretHash: String) -> Bool { tokens[device] == secretHash }

    func note(_ device: UUID, secretHash: String, passed: Bool) { tokens[device] = passed ? secretHash : nil }
}

/// A token's check under way (see `EarlyBearerAuthentication`), with the account the token names:
/// trusted only once `check` has passed.
struct CallerCheck: Sendable {
    let account: UUID
    let check: Task<Caller, any Error>
}

extension CardboxRequestContext {
    /// The account the request's token names; checked or being checked.
    func claimedAccount() throws -> UUID {
        if let caller { return caller.account.id }
        if let callerCheck { return callerCheck.account }
        throw BearerAuthentication.unauthorized
    }

    /// The caller, once the token's check has passed.
    func verifiedCaller() async throws -> Caller {
        if let caller { return caller }
        if let callerCheck { return try await callerCheck.check.value }
        throw BearerAuthentication.unauthorized
    }
}

/// Whether each account had a card limit when it last pushed here: a push read beside its token's
/// check counts the account's cards only then (an unlimited account may hold a hundred thousand).
/// A plan that changed since costs that push one more read.
final class CardLimitMemory: Sendable {
    private let limited = BoundedMemory<UUID, Bool>()

    func expectsLimit(_ account: UUID) -> Bool { limited[account] ?? false }

    func note(_ account: UUID, limited isLimited: Bool) { limited[account] = isLimited }
}

/// What this process remembers across requests to save work, shared between threads: at most
/// `capacity` entries, and past it the memory starts again (forgetting costs only the work it saved).
final class BoundedMemory<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries = Mutex<[Key: Value]>([:])
    let capacity: Int

    init(capacity: Int = 100_000) { self.capacity = capacity }

    subscript(key: Key) -> Value? {
        get { entries.withLock { $0[key] } }
        set {
            entries.withLock { entries in
                if newValue != nil, entries[key] == nil, entries.count >= capacity { entries = [:] }
                entries[key] = newValue
            }
        }
    }
}
