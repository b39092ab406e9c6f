import CardboxCore
import CardboxServer
import Foundation
import GRDB

// The SQLite sync state's account tables as GRDB records: each table's columns are declared once,
// in its `Columns`, and its queries and reads name them from there. Times are kept as seconds
// since 1970 (REAL), ids as lowercase text.

/// A row of `serverAccount`.
struct AccountRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "serverAccount"

    enum Columns: String, ColumnExpression, CaseIterable {
        case accountId, name, passwordHash, plan, createdAt, isAdministrator
    }

    var account: ServerAccount
    var passwordHash: String

    init(_ account: ServerAccount, passwordHash: String) {
        self.account = account
        self.passwordHash = passwordHash
    }

    init(row: Row) throws {
        guard let id = UUID(uuidString: row[Columns.accountId]), let plan = Plan(rawValue: row[Columns.plan]) else {
            throw CardboxError.storage("the server database holds a malformed account")
        }
        account = ServerAccount(
            id: id, name: row[Columns.name], plan: plan,
            createdAt: Date(timeIntervalSince1970: row[Columns.createdAt]),
            isAdministrator: row[Columns.isAdministrator])
        passwordHash = row[Columns.passwordHash]
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.accountId] = account.id.uuidString.lowercased()
        container[Columns.name] = account.name
        container[Columns.passwordHash] = passwordHash
        container[Columns.plan] = account.plan.rawValue
        container[Columns.createdAt] = account.createdAt.timeIntervalSince1970
        container[Columns.isAdministrator] = account.isAdministrator
    }
}

/// A row of `serverDevice`.
struct DeviceRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "serverDevice"

    enum Columns: String, ColumnExpression, CaseIterable {
        case accountId, deviceId, name, tokenHash, createdAt, lastSeenAt, revokedAt
    }

    var device: ServerDevice
    var tokenHash: String

    init(_ device: ServerDevice, tokenHash: String) {
        self.device = device
        self.tokenHash = tokenHash
    }

    init(row: Row) throws {
        guard let id = UUID(uuidString: row[Columns.deviceId]), let account = UUID(uuidString: row[Columns.accountId])
        else { throw CardboxError.storage("the server database holds a malformed device") }
        device = ServerDevice(
            id: id, accountId: account, name: row[Columns.name],
            createdAt: Date(timeIntervalSince1970: row[Columns.createdAt]),
            lastSeenAt: (row[Columns.lastSeenAt] as Double?).map(Date.init(timeIntervalSince1970:)),
            revokedAt: (row[Columns.revokedAt] as Double?).map(Date.init(timeIntervalSince1970:)))
        tokenHash = row[Columns.tokenHash]
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.accountId] = device.accountId.uuidString.lowercased()
        container[Columns.deviceId] = device.id.uuidString.lowercased()
        container[Columns.name] = device.name
        container[Columns.tokenHash] = tokenHash
        container[Columns.createdAt] = device.createdAt.timeIntervalSince1970
        container[Columns.lastSeenAt] = device.lastSeenAt?.timeIntervalSince1970
        container[Columns.revokedAt] = device.revokedAt?.timeIntervalSince1970
    }
}

/// A row of `serverDeviceSync`: when a device last synced, and how far its pull got.
struct DeviceSyncRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "serverDeviceSync"

    enum Columns: String, ColumnExpression, CaseIterable {
        case accountId, deviceId, lastSyncAt, pulledCursor, lastError, lastErrorAt
    }

    var device: UUID?
    var status: DeviceSyncStatus

    init(row: Row) {
        device = UUID(uuidString: row[Columns.deviceId])
        status = DeviceSyncStatus(
            lastSyncAt: Date(timeIntervalSince1970: row[Columns.lastSyncAt]), pulledCursor: row[Columns.pulledCursor],
            lastError: row[Columns.lastError],
            lastErrorAt: (row[Columns.lastErrorAt] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}

/// A signed-in device with its account and the account's sync cursor, read in one statement at
/// every authenticated request: `SELECT \(SignedInRecord.selection) FROM serverDevice d JOIN
/// serverAccount a …`, fetched with `adapter`, which scopes each table's part of the row.
struct SignedInRecord: FetchableRecord {
    /// The device's columns (table `d`), then the account's (`a`), then `syncCursor`.
    static let selection =
        (DeviceRecord.Columns.allCases.map { "d.\($0.rawValue)" }
        + AccountRecord.Columns.allCases.map { "a.\($0.rawValue)" }).joined(separator: ", ")
        + ", (SELECT lastSeq FROM syncAccount s WHERE s.accountId = d.accountId) AS syncCursor"

    static let adapter: ScopeAdapter = {
        let parts = splittingRowAdapters(columnCounts: [
            DeviceRecord.Columns.allCases.count, AccountRecord.Columns.allCases.count,
        ])
        return ScopeAdapter(["device": parts[0], "account": parts[1]])
    }()

    var signedIn: SignedInDevice

    init(row: Row) throws {
        let device = try DeviceRecord(row: row.scopes["device"]!)
        signedIn = SignedInDevice(
            device: device.device, tokenHash: device.tokenHash,
            account: try AccountRecord(row: row.scopes["account"]!).account, cursor: row["syncCursor"] ?? 0)
    }
}

/// A row of `serverImage`: an image a device uploaded, named by its contents' hash.
struct ImageRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "serverImage"

    enum Columns: String, ColumnExpression, CaseIterable {
        case accountId, sha256, mimeType, data
    }

    var accountId: String
    var image: CheckedImage

    init(_ image: CheckedImage, account: UUID) {
        accountId = account.uuidString.lowercased()
        self.image = image
    }

    init(row: Row) {
        accountId = row[Columns.accountId]
        image = CheckedImage(sha256: row[Columns.sha256], mimeType: row[Columns.mimeType], data: row[Columns.data])
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.accountId] = accountId
        container[Columns.sha256] = image.sha256
        container[Columns.mimeType] = image.mimeType
        container[Columns.data] = image.data
    }
}

/// The one row of `serverSetupToken`: the setup link's token, kept as its hash, until it expires.
struct SetupTokenRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "serverSetupToken"

    enum Columns: String, ColumnExpression, CaseIterable {
        case only, tokenHash, expiresAt
    }

    var tokenHash: String
    var expiresAt: Double

    init(row: Row) {
        tokenHash = row[Columns.tokenHash]
        expiresAt = row[Columns.expiresAt]
    }
}

/// An entry of a pull: a row of `syncRow` or of `syncTombstone`, read by one `UNION ALL` that
/// selects these columns from both (`record` null for a tombstone, `hlc` and `replica` for a row).
struct PulledEntryRecord: FetchableRecord {
    enum Columns: String, ColumnExpression, CaseIterable {
        case seq, entity, rowId, record, hlc, replica
    }

    var entry: PulledRecord

    init(row: Row) throws {
        entry = try PulledRecord(
            seq: row[Columns.seq], entity: row[Columns.entity], id: row[Columns.rowId], record: row[Columns.record],
            hlc: row[Columns.hlc], replica: row[Columns.replica])
    }
}

/// The clock of a row's delete, as `syncTombstone` keeps it.
struct TombstoneClockRecord: FetchableRecord {
    enum Columns: String, ColumnExpression, CaseIterable {
        case hlc, replica
    }

    var hlc: Int64
    var replica: String

    init(row: Row) {
        hlc = row[Columns.hlc]
        replica = row[Columns.replica]
    }
}
