import CardboxCore
import CardboxSync
import Foundation

/// What signing a device in gives it: its token (shown once, never stored in the clear) and the
/// account it now belongs to.
public struct SignIn: Sendable, Equatable {
    public var token: String
    public var account: ServerAccount
    public var device: ServerDevice
}

/// A request's caller: the account and device its token names.
public struct Caller: Sendable, Equatable {
    public var account: ServerAccount
    public var device: ServerDevice
    /// The account's cursor in the sync state when the token was checked, read in the same
    /// statement: everything pushed before the request came is at or below it, so a page made for
    /// the request reads the account's copy caught up to it, without asking the database again.
    public var cursor: Int64
}

/// Sign-up, sign-in and token checks over an `AccountStore`: passwords through bcrypt (on
/// `PasswordWork`'s threads), tokens through their hash, failed sign-ins throttled per name and per
/// client address.
public struct AccountService: Sendable {
    public let store: any AccountStore
    public let hasher: PasswordHasher
    public let throttle: SignInThrottle
    public let passwordWork: PasswordWork

    public init(
        store: any AccountStore, hasher: PasswordHasher = PasswordHasher(), throttle: SignInThrottle = .init(),
        passwordWork: PasswordWork = .init()
    ) {
        self.store = store
        self.hasher = hasher
        self.throttle = throttle
        self.passwordWork = passwordWork
    }

    /// The reason every refused sign-in gives, whether the name or the password was wrong.
    public static let wrongCredentials = CardboxError.invalid(field: "sign-in", reason: "wrong user name or password")

    public func addAccount(name: String, password: String, plan: Plan = .free, now: Date = Date()) async throws
        -> ServerAccount
    {
        try await store.addAccount(name: name, passwordHash: try await hash(password), plan: plan, now: now)
    }

    /// The server's first account, made only while it has none and only with the setup link's
    /// secret (`setupToken`), which it uses up: of several made at once, one is.
    public func addFirstAccount(name: String, password: String, setupToken: String, now: Date = Date())
        async throws -> ServerAccount
    {
        try await store.addFirstAccount(
            name: name, passwordHash: try await hash(password), setupTokenHash: sha256Hex(Data(setupToken.utf8)),
            now: now)
    }

    /// How long a setup link works, unused.
    public static let setupLinkLifetime: TimeInterval = 3_600

    /// Offers the first account's setup with `secret` (the link's token) for `setupLinkLifetime`,
    /// in place of any link offered before; its hash alone is kept, in the database.
    public func offerSetup(secret: String, now: Date = Date()) async throws {
        try await store.replaceSetupToken(
            hash: sha256Hex(Data(secret.utf8)), expiresAt: now.addingTimeInterval(Self.setupLinkLifetime))
    }

    /// A new setup link's secret (128 random bits, in hex), offered for `setupLinkLifetime`.
    public func newSetupLink(now: Date = Date()) async throws -> String {
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
            .joined()
        try await offerSetup(secret: secret, now: now)
        return secret
    }

    /// Whether `secret` is the setup link's, unexpired and unused.
    public func isSetupLink(_ secret: String, now: Date = Date()) async throws -> Bool {
        try await store.isSetupToken(hash: sha256Hex(Data(secret.utf8)), now: now)
    }

    /// Sets the password and signs out every device of the account but `keeping` (the browser that
    /// changed it, say): a password changed because it leaked leaves no old session working.
    public func setPassword(_ password: String, account: UUID, keeping device: UUID? = nil, now: Date = Date())
        async throws
    {
        try await store.setPasswordHash(try await hash(password), account: account, keeping: device, now: now)
    }

    /// Changes the password of the account signed in on `device`, given its current one (checked,
    /// and throttled as a sign-in: a wrong one counts against the name and `client`), and signs out
    /// every other device of the account.
    public func changePassword(
        of account: ServerAccount, current: String, new password: String, keeping device: UUID, client: String? = nil,
        now: Date = Date()
    ) async throws {
        let wrong = CardboxError.invalid(field: "current password", reason: "is not this account's password")
        let found: ServerAccount
        do {
            found = try await verified(
                type(of: store).nameKey(account.name), password: current, client: client, now: now)
        } catch let error as CardboxError where error == Self.wrongCredentials {
            throw wrong
        }
        guard found.id == account.id else { throw wrong }
        try await setPassword(password, account: account.id, keeping: device, now: now)
    }

    /// Names a device of the account anew: 1 to 100 characters, none of them control characters.
    public func renameDevice(_ device: UUID, account: UUID, name: String) async throws {
        let name = name.trimmingCharacters(in: .whitespaces)
        try Self.checkDeviceName(name)
        guard try await store.renameDevice(device, account: account, name: name) else {
            throw CardboxError.notFound(kind: "device", reference: device.uuidString.lowercased())
        }
    }

    static func checkDeviceName(_ name: String) throws {
        guard (1...100).contains(name.unicodeScalars.count), !name.containsControlCharacters else {
            throw CardboxError.invalid(
                field: "device",
                reason: "the device's name must be 1 to 100 characters, none of them control characters")
        }
    }

    private func hash(_ password: String) async throws -> String {
        try PasswordHasher.check(password)
        return try await passwordWork.run { [hasher] in try hasher.hash(password) }
    }

    /// Checks the name and password and signs a new device in. `client` is the address the
    /// attempt came from (nil: not known), throttled apart from the name. `clientIsThere` says
    /// whether whoever asked still waits for the answer: a sign-in that waited in the password
    /// queue after its client gave up is neither checked nor makes a device no one holds.
    public func signIn(
        name: String, password: String, deviceName: String, client: String? = nil, now: Date = Date(),
        clientIsThere: @escaping @Sendable () -> Bool = { true }
    ) async throws -> SignIn {
        // One form of the name for the throttle and the lookup alike: every spelling that signs in
        // to an account (" alice", "ALICE") counts against the same name.
        let key = type(of: store).nameKey(name)
        let account = try await verified(key, password: password, client: client, now: now, clientIsThere)
        try await throttle.succeeded(key, client: client, in: store)
        try Self.checkDeviceName(deviceName)
        guard clientIsThere() else { throw ClientLeft() }
        let token = DeviceToken.mint(account: account.id, device: UUID())
        let device = try await store.addDevice(
            token.device, account: account.id, name: deviceName, tokenHash: token.secretHash, now: now)
        return SignIn(token: token.text, account: account, device: device)
    }

    /// The account the name `key` signs in to, when `password` is its password; throttled, and a
    /// failure counted against the name and `client` (`wrongCredentials` whichever was wrong).
    private func verified(
        _ key: String, password: String, client: String?, now: Date,
        _ clientIsThere: @escaping @Sendable () -> Bool = { true }
    ) async throws -> ServerAccount {
        let delay = try await throttle.check(key, client: client, now: now, in: store)
        if delay > 0 { try await Task.sleep(for: .seconds(delay)) }
        // A name no account can have is not looked up (PostgreSQL refuses some text, NUL among it).
        let found = (try? type(of: store).checkName(key)) == nil ? nil : try await store.account(named: key)
        let matches = try await passwordWork.run { [hasher] in
            guard clientIsThere() else { throw ClientLeft() }
            return hasher.verify(password, hash: found?.passwordHash)
        }
        guard matches, let account = found?.account else {
            try await throttle.failed(key, client: client, now: now, in: store)
            throw Self.wrongCredentials
        }
        return account
    }

    /// The caller a token names, or nil when it is malformed, unknown or revoked. With `idleLimit`
    /// (a browser's session), a token unused for longer is revoked and names no one.
    public func caller(token text: String, now: Date = Date(), idleLimit: TimeInterval? = nil) async throws -> Caller? {
        guard let token = DeviceToken(text),
            let found = try await store.signedInDevice(token.device, account: token.account, seenAt: now),
            found.device.revokedAt == nil, token.matches(found.tokenHash)
        else { return nil }
        if let idleLimit, let seen = found.seenBefore, now.timeIntervalSince(seen) > idleLimit {
            _ = try await store.revokeDevice(token.device, account: token.account, now: now)
            return nil
        }
        return Caller(account: found.account, device: found.device, cursor: found.cursor)
    }
}

/// Whoever asked hung up before the answer was ready: the work it asked for is not done.
public struct ClientLeft: Error, LocalizedError, Equatable {
    public init() {}

    public var errorDescription: String? { "the client hung up before its sign-in was checked" }
}
