import CardboxCore
import Foundation

/// An account on the server: who signs in, and the plan every device of the account follows.
public struct ServerAccount: Sendable, Equatable, Codable {
    public var id: UUID
    public var name: String
    public var plan: Plan
    public var createdAt: Date
    /// The server's administrator: its first account (made by the setup link, or the first
    /// `cardbox admin user add`), who sets plans and adds accounts on the Users page.
    public var isAdministrator: Bool

    public init(id: UUID, name: String, plan: Plan, createdAt: Date, isAdministrator: Bool = false) {
        self.id = id
        self.name = name
        self.plan = plan
        self.createdAt = createdAt
        self.isAdministrator = isAdministrator
    }
}

/// A device signed in to an account: one token each, revocable on its own.
public struct ServerDevice: Sendable, Equatable, Codable {
    public var id: UUID
    public var accountId: UUID
    public var name: String
    public var createdAt: Date
    public var lastSeenAt: Date?
    public var revokedAt: Date?

    public init(id: UUID, accountId: UUID, name: String, createdAt: Date, lastSeenAt: Date?, revokedAt: Date?) {
        self.id = id
        self.accountId = accountId
        self.name = name
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.revokedAt = revokedAt
    }
}

/// Accounts, their password hashes and their devices' token hashes. Every table's key starts with
/// the account id, but for the one index a sign-in needs: account names (a small reference table).
/// The hashing itself is `Credentials`'s: the store keeps only what it is given.
public protocol AccountStore: SignInFailureStore {
    /// Adds an account; refused when the name is taken (names are compared case-insensitively).
    /// The server's first account is its administrator. With `onlyIfFirst` (the setup link's token
    /// hash), in one transaction with the checks that there is no account yet (`SetupClosed`) and
    /// that the hash is the setup link's, unexpired at `now` (`SetupLinkRefused`); the link is then
    /// used up.
    func addAccount(name: String, passwordHash: String, plan: Plan, now: Date, onlyIfFirst setupTokenHash: String?)
        async throws -> ServerAccount
    /// Keeps the hash of the setup link's secret until `expiresAt`, in place of any other: one
    /// link per database, the one the server that started last printed.
    func replaceSetupToken(hash: String, expiresAt: Date) async throws
    /// Whether `hash` is the setup link's, unexpired at `now`.
    func isSetupToken(hash: String, now: Date) async throws -> Bool
    /// Every account, by name (for the administrator).
    func accounts() async throws -> [ServerAccount]
    /// The account a name signs in to, with its password hash.
    func account(named name: String) async throws -> (account: ServerAccount, passwordHash: String)?
    func account(_ id: UUID) async throws -> ServerAccount?
    /// Removes the account and everything it holds: devices, sync state, images. When it was the
    /// administrator, the oldest account left becomes the administrator.
    func removeAccount(_ id: UUID) async throws
    /// Makes the account the server's administrator, in place of the one before (one at a time).
    func setAdministrator(_ account: UUID) async throws
    /// Sets the account's password and, in the same write, signs out every device of the account
    /// but `keeping` (the one that changed it, when it was one): whoever held an old token is out.
    func setPasswordHash(_ hash: String, account: UUID, keeping device: UUID?, now: Date) async throws
    func setPlan(_ plan: Plan, account: UUID) async throws

    /// Signs a device in: `tokenHash` is the hash of the secret part of its token.
    func addDevice(_ id: UUID, account: UUID, name: String, tokenHash: String, now: Date) async throws -> ServerDevice
    /// The account's devices, oldest first, revoked ones too.
    func devices(account: UUID) async throws -> [ServerDevice]
    /// The device with its token hash and its account, if both exist (one read: every request asks
    /// it); marks the device seen at `now`, to the minute, so a request a second does not make a write
    /// a second.
    func signedInDevice(_ id: UUID, account: UUID, seenAt now: Date) async throws -> SignedInDevice?
    /// Revokes a device's token for good; false when the account has no such device.
    func revokeDevice(_ id: UUID, account: UUID, now: Date) async throws -> Bool
    /// Revokes every device's token of the account but `keeping`'s; answers how many it revoked.
    func revokeDevices(account: UUID, keeping device: UUID?, now: Date) async throws -> Int
    /// Names a device of the account anew (checked by the caller); false when it has no such device.
    func renameDevice(_ id: UUID, account: UUID, name: String) async throws -> Bool

    /// Notes a device's sync at `now`: the cursor a finished pull reached (nil: no pull, or one
    /// with more pages), and what its push met: `.some(nil)` accepted (clears a refusal),
    /// `.some(message)` refused, nil no push. A note older than the one kept changes nothing.
    func recordSync(device: UUID, account: UUID, pulledTo cursor: Int64?, refusal: String??, now: Date) async throws
    /// How each device of the account last synced (seed 004's sync status), by device.
    func syncStatus(account: UUID) async throws -> [UUID: DeviceSyncStatus]
}

/// A device's last sync as the server saw it.
public struct DeviceSyncStatus: Sendable, Equatable, Codable {
    public var lastSyncAt: Date
    /// The account's cursor the device's last finished pull reached (nil: it never finished one).
    public var pulledCursor: Int64?
    /// Why its last push was refused (seed 001's card limit), until a push goes through.
    public var lastError: String?
    public var lastErrorAt: Date?

    public init(lastSyncAt: Date, pulledCursor: Int64?, lastError: String?, lastErrorAt: Date?) {
        self.lastSyncAt = lastSyncAt
        self.pulledCursor = pulledCursor
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
    }
}

/// The first-run setup is over: the server has an account.
public struct SetupClosed: Error, LocalizedError, Equatable {
    public init() {}

    public var errorDescription: String? {
        "this server has an account already: sign in, or ask its administrator"
    }
}

/// The setup link was not the one kept, or it expired, or it was used.
public struct SetupLinkRefused: Error, LocalizedError, Equatable {
    public init() {}

    public var errorDescription: String? {
        "this setup link is not valid (a link works for an hour, once): restart 'cardbox serve' to print a new one"
    }
}

/// A device as a request's token finds it: what `AccountService.caller` checks the token against.
public struct SignedInDevice: Sendable {
    public var device: ServerDevice
    public var tokenHash: String
    public var account: ServerAccount
    /// The account's cursor in the sync state, read with the device (see `Caller.cursor`).
    public var cursor: Int64
    /// When the device was seen before this request (its `lastSeenAt` is now this one's time).
    public var seenBefore: Date?

    public init(device: ServerDevice, tokenHash: String, account: ServerAccount, cursor: Int64, seenBefore: Date? = nil)
    {
        self.device = device
        self.tokenHash = tokenHash
        self.account = account
        self.cursor = cursor
        self.seenBefore = seenBefore ?? device.lastSeenAt
    }
}

/// Everything the server keeps, behind one seam, on SQLite or PostgreSQL.
public protocol ServerDatabase: SyncState, AccountStore, ImageStore {
    /// Closes its connections (PostgreSQL's pool); nothing to do for a file.
    func close() async
    /// How its servers tell each other news (PostgreSQL's `LISTEN`/`NOTIFY`); nil when they poll.
    var newsChannel: (any ServerNewsChannel)? { get }
}

extension ServerDatabase {
    public var newsChannel: (any ServerNewsChannel)? { nil }
}

extension AccountStore {
    /// Adds an account, whether or not it is the first.
    public func addAccount(name: String, passwordHash: String, plan: Plan, now: Date) async throws -> ServerAccount {
        try await addAccount(name: name, passwordHash: passwordHash, plan: plan, now: now, onlyIfFirst: nil)
    }

    /// Adds the server's first account (on the free plan, as any new account) through the setup link.
    public func addFirstAccount(name: String, passwordHash: String, setupTokenHash: String, now: Date) async throws
        -> ServerAccount
    {
        try await addAccount(name: name, passwordHash: passwordHash, plan: .free, now: now, onlyIfFirst: setupTokenHash)
    }

    /// The key account names are unique by: trimmed, case-folded.
    package static func nameKey(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// An account name: 1–64 ASCII letters, digits and `.-_@`, so it reads the same in a URL, a
    /// log line and a terminal, and is typed the same on every keyboard.
    package static func checkName(_ name: String) throws -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_@".unicodeScalars)
        guard (1...64).contains(name.unicodeScalars.count), name.unicodeScalars.allSatisfy(allowed.contains) else {
            throw CardboxError.invalid(
                field: "user", reason: "'\(name)' must be 1 to 64 letters (a-z), digits or . - _ @")
        }
        return name
    }
}
