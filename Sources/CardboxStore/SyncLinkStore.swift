import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// What this device knows of the server it syncs with. Kept in `storeInfo`, beside the store's
/// identity: it belongs to this device and is never synced.
public struct SyncLink: Sendable, Equatable {
    /// The server's base URL, e.g. `https://cards.example.org`.
    public var server: String
    public var user: String
    /// The device's token; whoever reads the store file can sync as this device until it is revoked.
    public var token: String
    /// Local writes up to this clock have reached the server.
    public var sent: HLCTimestamp = .zero
    /// The server's changes up to this cursor have been applied here.
    public var received: Int64 = 0
    public var lastSync: Date?
    public var lastError: String?
    /// A digest of this store's image hashes when the server last said which it lacked and got
    /// them: while the set is the same, a sync does not ask again.
    public var imagesOffered: String?

    public init(server: String, user: String, token: String) {
        self.server = server
        self.user = user
        self.token = token
    }
}

/// See `CardboxStore.syncStart`.
public struct SyncStart: Sendable {
    public var link: SyncLink
    public var holdsNothingOfItsOwn: Bool
    public var pending: PendingChanges
    public var imageHashes: [String]
}

/// See `CardboxStore.syncFollowUp`.
public struct SyncFollowUp: Sendable {
    public var missingImages: [String]
    public var plan: HeldPlan
}

extension CardboxStore {
    private static let linkKeys = [
        "sync.server", "sync.user", "sync.token", "sync.sent", "sync.received", "sync.lastSync", "sync.lastError",
        "sync.imagesOffered",
    ]

    /// The server this store syncs with, or nil when it is not signed in.
    public func syncLink() throws -> SyncLink? {
        try read { context in try Self.syncLink(context.db) }
    }

    static func syncLink(_ db: Database) throws -> SyncLink? {
        let info = try Dictionary(
            uniqueKeysWithValues: Row.fetchAll(
                db.cachedStatement(sql: "SELECT key, value FROM storeInfo WHERE key LIKE 'sync.%'")
            ).map { ($0["key"] as String, $0["value"] as String) })
        guard let server = info["sync.server"], let user = info["sync.user"], let token = info["sync.token"]
        else { return nil }
        var link = SyncLink(server: server, user: user, token: token)
        link.sent = HLCTimestamp(rawValue: UInt64(bitPattern: info["sync.sent"].flatMap { Int64($0) } ?? 0))
        link.received = info["sync.received"].flatMap { Int64($0) } ?? 0
        link.lastSync = info["sync.lastSync"].flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
        link.lastError = info["sync.lastError"]
        link.imagesOffered = info["sync.imagesOffered"]
        return link
    }

    /// Where a sync starts, read in one transaction (a device's usual sync sends a few changes, and
    /// each read of its own is a hop to the store's queue): the link (nil when not signed in),
    /// whether the store holds nothing of its own (asked only before its first pull, when a
    /// snapshot may be taken), what it has to send, and the images it holds.
    public func syncStart(limit: Int) throws -> SyncStart? {
        try read { context in
            guard let link = try Self.syncLink(context.db) else { return nil }
            return SyncStart(
                link: link, holdsNothingOfItsOwn: try link.received == 0 && Self.holdsNothingOfItsOwn(context),
                pending: try pendingChanges(context, since: link.sent, limit: limit),
                imageHashes: try Self.imageHashes(context))
        }
    }

    /// What a sync asks once its pull is in, in one transaction: the images this store's records
    /// name but it lacks, and its plan.
    public func syncFollowUp() throws -> SyncFollowUp {
        try read { context in
            SyncFollowUp(
                missingImages: try Self.missingImageHashes(context), plan: try Self.heldPlan(context))
        }
    }

    /// Saves the link (nil: signs out, forgetting the server and token; the data stays).
    public func saveSyncLink(_ link: SyncLink?) throws {
        try translatingErrors { try writer.write { db in try Self.saveSyncLink(link, db) } }
        // The link holds the device's token in the clear: the store (made before it was signed in,
        // perhaps by an older release) becomes readable by its owner only.
        if link != nil {
            for file in [writer.path, writer.path + "-wal", writer.path + "-shm"]
            where FileManager.default.fileExists(atPath: file) {
                try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            }
        }
    }

    static func saveSyncLink(_ link: SyncLink?, _ db: Database) throws {
        // Saved with every pulled page: its statements are prepared once.
        try db.cachedStatement(
            sql: "DELETE FROM storeInfo WHERE key IN (\(Self.linkKeys.map { _ in "?" }.joined(separator: ",")))"
        ).execute(arguments: StatementArguments(Self.linkKeys))
        guard let link else { return }
        let values: [String: String?] = [
            "sync.server": link.server, "sync.user": link.user, "sync.token": link.token,
            "sync.sent": String(link.sent.storageValue), "sync.received": String(link.received),
            "sync.lastSync": link.lastSync.map { String($0.timeIntervalSince1970) },
            "sync.lastError": link.lastError, "sync.imagesOffered": link.imagesOffered,
        ]
        for (key, value) in values {
            guard let value else { continue }
            try db.cachedStatement(sql: "INSERT INTO storeInfo (key, value) VALUES (?, ?)").execute(arguments: [
                key, value,
            ])
        }
    }
}
