import CardboxCore
import CardboxServer
import Foundation
import GRDB

extension SQLiteServerDatabase {
    public func replaceSetupToken(hash: String, expiresAt: Date) async throws {
        try await translatingErrors {
            try await writer.write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO serverSetupToken (only, tokenHash, expiresAt) VALUES (1, ?, ?)",
                    arguments: [hash, expiresAt.timeIntervalSince1970])
            }
        }
    }

    public func isSetupToken(hash: String, now: Date) async throws -> Bool {
        try await translatingErrors {
            try await writer.read { db in try Self.isSetupToken(hash: hash, now: now, db) }
        }
    }

    private static func isSetupToken(hash: String, now: Date, _ db: Database) throws -> Bool {
        guard let token = try SetupTokenRecord.fetchOne(db) else { return false }
        return constantTimeEqual(token.tokenHash, hash) && now.timeIntervalSince1970 < token.expiresAt
    }

    /// One write: the checks that the server has no account and the setup link is the one kept
    /// (`onlyIfFirst`: its token's hash; the link is then used up) and that the name is free, then
    /// the insert.
    public func addAccount(name: String, passwordHash: String, plan: Plan, now: Date, onlyIfFirst: String?)
        async throws -> ServerAccount
    {
        let name = try Self.checkName(name)
        let account = ServerAccount(id: UUID(), name: name, plan: plan, createdAt: now)
        let id = account.id.uuidString.lowercased()
        return try await translatingErrors {
            try await writer.write { db in
                let isFirst = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM serverAccount)") == false
                if let setupTokenHash = onlyIfFirst {
                    guard isFirst else { throw SetupClosed() }
                    guard try Self.isSetupToken(hash: setupTokenHash, now: now, db) else { throw SetupLinkRefused() }
                    try db.execute(sql: "DELETE FROM serverSetupToken")
                }
                let key = Self.nameKey(name)
                guard
                    try String.fetchOne(
                        db, sql: "SELECT accountId FROM serverAccountName WHERE nameKey = ?", arguments: [key]) == nil
                else { throw CardboxError.alreadyExists(kind: "account", name: name) }
                try db.execute(
                    sql: "INSERT INTO serverAccountName (nameKey, accountId) VALUES (?, ?)", arguments: [key, id])
                var added = account
                added.isAdministrator = isFirst
                try AccountRecord(added, passwordHash: passwordHash).insert(db)
                return added
            }
        }
    }

    public func accounts() async throws -> [ServerAccount] {
        try await translatingErrors {
            try await writer.read { db in
                try AccountRecord.order(AccountRecord.Columns.name).fetchAll(db).map(\.account)
            }
        }
    }

    public func account(named name: String) async throws -> (account: ServerAccount, passwordHash: String)? {
        try await translatingErrors {
            try await writer.read { db in
                guard
                    let id = try String.fetchOne(
                        db, sql: "SELECT accountId FROM serverAccountName WHERE nameKey = ?",
                        arguments: [Self.nameKey(name)]),
                    let found = try AccountRecord.fetchOne(db, key: id)
                else { return nil }
                return (found.account, found.passwordHash)
            }
        }
    }

    public func account(_ id: UUID) async throws -> ServerAccount? {
        try await translatingErrors {
            try await writer.read { db in
                try AccountRecord.fetchOne(db, key: id.uuidString.lowercased())?.account
            }
        }
    }

    public func removeAccount(_ id: UUID) async throws {
        let id = id.uuidString.lowercased()
        try await translatingErrors {
            try await writer.write { db in
                // One statement per table, each naming the account.
                for table in [
                    "serverAccountName", "serverDevice", "syncRow", "syncTombstone", "syncBatch", "syncAccount",
                    "serverImage", "serverDeviceSync", "serverAccount",
                ] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE accountId = ?", arguments: [id])
                }
                try db.execute(sql: Self.administratorLeft)
            }
        }
    }

    /// A server whose administrator went has its oldest account as administrator.
    static let administratorLeft = """
        UPDATE serverAccount SET isAdministrator = 1
        WHERE accountId = (SELECT accountId FROM serverAccount ORDER BY createdAt, accountId LIMIT 1)
        AND NOT EXISTS (SELECT 1 FROM serverAccount WHERE isAdministrator = 1)
        """

    public func setAdministrator(_ account: UUID) async throws {
        let id = account.uuidString.lowercased()
        try await translatingErrors {
            try await writer.write { db in
                guard
                    try Bool.fetchOne(db, sql: "SELECT 1 FROM serverAccount WHERE accountId = ?", arguments: [id])
                        != nil
                else { throw CardboxError.notFound(kind: "account", reference: id) }
                try db.execute(
                    sql: "UPDATE serverAccount SET isAdministrator = (accountId = ?)", arguments: [id])
            }
        }
    }

    public func setPasswordHash(_ hash: String, account: UUID, keeping device: UUID?, now: Date) async throws {
        let id = account.uuidString.lowercased()
        try await translatingErrors {
            try await writer.write { db in
                try db.execute(
                    sql: "UPDATE serverAccount SET passwordHash = ? WHERE accountId = ?", arguments: [hash, id])
                guard db.changesCount == 1 else { throw CardboxError.notFound(kind: "account", reference: id) }
                try db.execute(
                    sql: """
                        UPDATE serverDevice SET revokedAt = coalesce(revokedAt, ?)
                        WHERE accountId = ? AND deviceId IS NOT ?
                        """,
                    arguments: [now.timeIntervalSince1970, id, device?.uuidString.lowercased()])
            }
        }
    }

    public func setPlan(_ plan: Plan, account: UUID) async throws {
        try await update("UPDATE serverAccount SET plan = ? WHERE accountId = ?", plan.rawValue, account)
    }

    private func update(_ sql: String, _ value: String, _ account: UUID) async throws {
        try await translatingErrors {
            try await writer.write { db in
                try db.execute(sql: sql, arguments: [value, account.uuidString.lowercased()])
                guard db.changesCount == 1 else {
                    throw CardboxError.notFound(kind: "account", reference: account.uuidString.lowercased())
                }
            }
        }
    }

    public func addDevice(_ id: UUID, account: UUID, name: String, tokenHash: String, now: Date) async throws
        -> ServerDevice
    {
        let device = ServerDevice(
            id: id, accountId: account, name: name, createdAt: now, lastSeenAt: now, revokedAt: nil)
        try await translatingErrors {
            try await writer.write { db in try DeviceRecord(device, tokenHash: tokenHash).insert(db) }
        }
        return device
    }

    public func devices(account: UUID) async throws -> [ServerDevice] {
        try await translatingErrors {
            try await writer.read { db in
                try DeviceRecord.filter(DeviceRecord.Columns.accountId == account.uuidString.lowercased())
                    .order(DeviceRecord.Columns.createdAt, DeviceRecord.Columns.deviceId)
                    .fetchAll(db).map(\.device)
            }
        }
    }

    public func signedInDevice(_ id: UUID, account: UUID, seenAt now: Date) async throws -> SignedInDevice? {
        let arguments: StatementArguments = [account.uuidString.lowercased(), id.uuidString.lowercased()]
        return try await translatingErrors {
            // Read beside other requests, and write (on the one writer) only when the seen-time is
            // a minute old. Decoded inside the read: the async read wants a Sendable result (a `Row`
            // is not, and the blocking read it would fall back to holds a request-handling thread).
            let found: SignedInDevice? = try await writer.read { db in
                try SignedInRecord.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT \(SignedInRecord.selection)
                            FROM serverDevice d JOIN serverAccount a ON a.accountId = d.accountId
                            WHERE d.accountId = ? AND d.deviceId = ?
                            """),
                    arguments: arguments, adapter: SignedInRecord.adapter
                )?.signedIn
            }
            guard var found else { return nil }
            if found.device.revokedAt == nil, found.device.lastSeenAt.map({ now.timeIntervalSince($0) >= 60 }) ?? true {
                try await writer.write { db in
                    try db.cachedStatement(
                        sql: """
                            UPDATE serverDevice SET lastSeenAt = ? WHERE accountId = ? AND deviceId = ?
                            AND revokedAt IS NULL
                            """
                    ).execute(arguments: [now.timeIntervalSince1970] + arguments)
                }
                found.device.lastSeenAt = now
            }
            return found
        }
    }

    public func recordSync(device: UUID, account: UUID, pulledTo cursor: Int64?, refusal: String??, now: Date)
        async throws
    {
        let (deviceId, accountId) = (device.uuidString.lowercased(), account.uuidString.lowercased())
        try await translatingErrors {
            try await writer.write { db in
                try db.cachedStatement(
                    sql: """
                        INSERT INTO serverDeviceSync (accountId, deviceId, lastSyncAt, pulledCursor, lastError, lastErrorAt)
                        VALUES (?1, ?2, ?3, ?4, ?5, CASE WHEN ?5 IS NULL THEN NULL ELSE ?3 END)
                        ON CONFLICT (accountId, deviceId) DO UPDATE SET
                          lastSyncAt = excluded.lastSyncAt,
                          pulledCursor = coalesce(excluded.pulledCursor, pulledCursor),
                          lastError = CASE WHEN ?6 THEN excluded.lastError ELSE lastError END,
                          lastErrorAt = CASE WHEN ?6 THEN excluded.lastErrorAt ELSE lastErrorAt END
                        WHERE excluded.lastSyncAt >= lastSyncAt
                        """
                ).execute(arguments: [
                    accountId, deviceId, now.timeIntervalSince1970, cursor, refusal ?? nil, refusal != nil,
                ])
            }
        }
    }

    public func syncStatus(account: UUID) async throws -> [UUID: DeviceSyncStatus] {
        let accountId = account.uuidString.lowercased()
        return try await translatingErrors {
            try await writer.read { db in
                var status: [UUID: DeviceSyncStatus] = [:]
                for record in try DeviceSyncRecord.filter(DeviceSyncRecord.Columns.accountId == accountId).fetchAll(db)
                {
                    if let device = record.device { status[device] = record.status }
                }
                return status
            }
        }
    }

    public func revokeDevice(_ id: UUID, account: UUID, now: Date) async throws -> Bool {
        try await translatingErrors {
            try await writer.write { db in
                try db.execute(
                    sql: """
                        UPDATE serverDevice SET revokedAt = coalesce(revokedAt, ?) WHERE accountId = ? AND deviceId = ?
                        """,
                    arguments: [now.timeIntervalSince1970, account.uuidString.lowercased(), id.uuidString.lowercased()])
                return db.changesCount == 1
            }
        }
    }

    public func revokeDevices(account: UUID, keeping device: UUID?, now: Date) async throws -> Int {
        try await translatingErrors {
            try await writer.write { db in
                try db.execute(
                    sql: """
                        UPDATE serverDevice SET revokedAt = ?
                        WHERE accountId = ? AND deviceId IS NOT ? AND revokedAt IS NULL
                        """,
                    arguments: [
                        now.timeIntervalSince1970, account.uuidString.lowercased(), device?.uuidString.lowercased(),
                    ])
                return db.changesCount
            }
        }
    }

    public func renameDevice(_ id: UUID, account: UUID, name: String) async throws -> Bool {
        try await translatingErrors {
            try await writer.write { db in
                try db.execute(
                    sql: "UPDATE serverDevice SET name = ? WHERE accountId = ? AND deviceId = ?",
                    arguments: [name, account.uuidString.lowercased(), id.uuidString.lowercased()])
                return db.changesCount == 1
            }
        }
    }

    public func putImage(_ image: CheckedImage, account: UUID) async throws {
        try await translatingErrors {
            try await writer.write { db in
                // A stored image is never replaced: its name is its contents' hash.
                try ImageRecord(image, account: account).insert(db, onConflict: .ignore)
            }
        }
    }

    public func image(_ sha256: String, account: UUID) async throws -> CheckedImage? {
        try await translatingErrors {
            try await writer.read { db in
                try ImageRecord.fetchOne(
                    db,
                    key: [
                        ImageRecord.Columns.accountId.rawValue: account.uuidString.lowercased(),
                        ImageRecord.Columns.sha256.rawValue: sha256,
                    ])?.image
            }
        }
    }

    public func missingImages(_ hashes: [String], account: UUID) async throws -> [String] {
        try await translatingErrors {
            try await writer.read { db in
                let present = try db.cachedStatement(
                    sql: "SELECT 1 FROM serverImage WHERE accountId = ? AND sha256 = ?")
                return try hashes.filter { hash in
                    try Bool.fetchOne(present, arguments: [account.uuidString.lowercased(), hash]) == nil
                }
            }
        }
    }
}
