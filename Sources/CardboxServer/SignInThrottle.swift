import CardboxSync
import Foundation

/// Failed sign-ins, counted three ways. A name is normalized as the account lookup does, so
/// " alice" and "ALICE" are one name.
/// - A name from one address: after `allowed` failures in a row, each further attempt from there
///   must wait, twice as long each time (1 s, 2 s, … up to 15 min). A success clears it. A lock is
///   per (name, address) so that failing someone's name from one address never keeps them out:
///   the right password from an address that has not failed goes through.
/// - A name from everywhere: past `nameCap` failures in `clientWindow`, every attempt for it is
///   delayed by `nameDelay` before its password is checked. It slows guesses spread over many
///   addresses and never refuses.
/// - An address: at most `allowedPerClient` failures in `clientWindow`, whatever names they tried
///   (guessing across many accounts); a success does not clear it, or one's own account would reset it.
///
/// The counts live in the database (`SignInFailureStore`), so every server sharing it counts the
/// same failures: two servers give an attacker no more tries than one.
public struct SignInThrottle: Sendable {
    public let allowed: Int
    public let allowedPerClient: Int
    public let nameCap: Int
    public let nameDelay: TimeInterval
    public let clientWindow: TimeInterval

    /// The longest a (name, address) lock lasts.
    static let longestLock: TimeInterval = 900

    public init(
        allowed: Int = 5, allowedPerClient: Int = 30, nameCap: Int = 20, nameDelay: TimeInterval = 1,
        clientWindow: TimeInterval = 900
    ) {
        (self.allowed, self.allowedPerClient, self.clientWindow) = (allowed, allowedPerClient, clientWindow)
        (self.nameCap, self.nameDelay) = (nameCap, nameDelay)
    }

    /// Throws when `name` (already normalized) from `client`, or `client`, must wait, saying how
    /// long; otherwise answers how long the attempt is to be delayed (0 unless the name is past its cap).
    public func check(_ name: String, client: String?, now: Date, in store: any SignInFailureStore) async throws
        -> TimeInterval
    {
        let keys = Keys(name, client: client)
        let counts = try await store.signInFailures(keys.all)
        if let attempts = counts[keys.attempt], case let lock = lock(after: attempts.count), lock > 0 {
            let lockedUntil = attempts.lastAt.addingTimeInterval(lock)
            if lockedUntil > now { throw SignInThrottled(retryAfter: Self.seconds(from: now, to: lockedUntil)) }
        }
        if let address = keys.address.flatMap({ counts[$0] }), address.count >= allowedPerClient {
            let end = address.firstAt.addingTimeInterval(clientWindow)
            if end > now { throw SignInThrottled(retryAfter: Self.seconds(from: now, to: end), client: true) }
        }
        guard let named = counts[keys.name], named.firstAt.addingTimeInterval(clientWindow) > now else { return 0 }
        return named.count >= nameCap ? nameDelay : 0
    }

    /// Counts a failure of `name` from `client` three ways, in one write.
    public func failed(_ name: String, client: String?, now: Date, in store: any SignInFailureStore) async throws {
        let keys = Keys(name, client: client).all.map { key in
            (key: key, window: key.kind == .attempt ? nil : clientWindow)
        }
        try await store.countSignInFailure(
            keys, now: now, forgetBefore: now.addingTimeInterval(-max(86_400, clientWindow)))
    }

    /// A success clears the (name, address) lock, and only that.
    public func succeeded(_ name: String, client: String?, in store: any SignInFailureStore) async throws {
        try await store.clearSignInFailures(Keys(name, client: client).attempt)
    }

    /// How long attempts must wait after the `count`th failure in a row.
    func lock(after count: Int) -> TimeInterval {
        count < allowed ? 0 : min(Self.longestLock, pow(2, Double(count - allowed)))
    }

    /// What one attempt is counted under: the (name, address) pair, the name and, with a known
    /// client, the address. A name is kept as its SHA-256: a sign-in may send any text as a name,
    /// up to its body's size, NUL among it.
    private struct Keys {
        let attempt: SignInFailureKey
        let name: SignInFailureKey
        let address: SignInFailureKey?

        init(_ name: String, client: String?) {
            let hashed = sha256Hex(Data(name.utf8))
            attempt = SignInFailureKey(kind: .attempt, key: hashed + " " + (client ?? ""))
            self.name = SignInFailureKey(kind: .name, key: hashed)
            address = client.map { SignInFailureKey(kind: .address, key: $0) }
        }

        var all: [SignInFailureKey] { [attempt, name] + (address.map { [$0] } ?? []) }
    }

    /// Whole seconds, at least one; a time read back from the database may be a hair off the one
    /// stored, which must not make a second more.
    private static func seconds(from now: Date, to end: Date) -> Int {
        max(1, Int((end.timeIntervalSince(now) - 0.001).rounded(.up)))
    }
}

/// What failed sign-ins are counted under: a (name, address) pair, a name, or an address.
public struct SignInFailureKey: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case attempt, name, address
    }

    public var kind: Kind
    public var key: String

    public init(kind: Kind, key: String) {
        self.kind = kind
        self.key = key
    }
}

/// The failures counted under one key: how many since `firstAt`, the last at `lastAt`.
public struct SignInFailureCount: Sendable, Equatable {
    public var count: Int
    public var firstAt: Date
    public var lastAt: Date

    public init(count: Int, firstAt: Date, lastAt: Date) {
        (self.count, self.firstAt, self.lastAt) = (count, firstAt, lastAt)
    }
}

/// Where failed sign-ins are counted: the server's database, shared by every server using it.
public protocol SignInFailureStore: Sendable {
    /// The counts kept under `keys` (those with none are missing).
    func signInFailures(_ keys: [SignInFailureKey]) async throws -> [SignInFailureKey: SignInFailureCount]
    /// One more failure at `now` under each key, in one write. A key whose count began more than
    /// its `window` before `now` begins again at one (a nil window: never). Counts whose last
    /// failure came before `forgetBefore` are dropped.
    func countSignInFailure(_ keys: [(key: SignInFailureKey, window: TimeInterval?)], now: Date, forgetBefore: Date)
        async throws
    /// Drops the count under `key`.
    func clearSignInFailures(_ key: SignInFailureKey) async throws
}

/// Too many failed sign-ins for one name: the answer says when to try again.
public struct SignInThrottled: Error, LocalizedError, Equatable {
    public var retryAfter: Int
    /// Whether the address the attempts came from is throttled, rather than the account's name.
    public var client: Bool

    public init(retryAfter: Int, client: Bool = false) {
        self.retryAfter = retryAfter
        self.client = client
    }

    public var errorDescription: String? {
        "too many failed sign-ins \(client ? "from this address" : "for this account"); try again in \(retryAfter) s"
    }
}
