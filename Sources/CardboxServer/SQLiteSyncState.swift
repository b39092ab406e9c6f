import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// The sync state in one SQLite file: the embedded default of `cardbox serve`. Every table's primary
/// key starts with the account id, and every query names one account.
public final class SQLiteSyncState: SyncState {
    private let writer: any DatabaseWriter

    /// Opens (creating if needed) the sync state at `path`.
    public convenience init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        do {
            try self.init(writer: DatabasePool(path: path, configuration: configuration))
        } catch let error as DatabaseError {
            throw CardboxError.storage("cannot open the sync state at \(path): \(error.message ?? error.description)")
        }
    }

    /// A sync state in memory, for tests.
    public static func inMemory() throws -> SQLiteSyncState { try SQLiteSyncState(writer: DatabaseQueue()) }

    private init(writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: rows, tombstones, cursors, batches") { db in
            try db.execute(
                sql: """
                    CREATE TABLE syncAccount (
                        accountId TEXT PRIMARY KEY NOT NULL,
                        lastSeq INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE syncRow (
                        accountId TEXT NOT NULL,
                        entity TEXT NOT NULL,
                        rowId TEXT NOT NULL,
                        record TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        PRIMARY KEY (accountId, entity, rowId)
                    ) WITHOUT ROWID;
                    CREATE INDEX syncRowBySeq ON syncRow(accountId, seq);
                    CREATE TABLE syncTombstone (
                        accountId TEXT NOT NULL,
                        entity TEXT NOT NULL,
                        rowId TEXT NOT NULL,
                        hlc INTEGER NOT NULL,
                        replica TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        PRIMARY KEY (accountId, entity, rowId)
                    ) WITHOUT ROWID;
                    CREATE INDEX syncTombstoneBySeq ON syncTombstone(accountId, seq);
                    CREATE TABLE syncBatch (
                        accountId TEXT NOT NULL,
                        batchId TEXT NOT NULL,
                        cursor INTEGER NOT NULL,
                        PRIMARY KEY (accountId, batchId)
                    ) WITHOUT ROWID;
                    """)
        }
        return migrator
    }

    public func push(_ changes: ChangeSet, batch: UUID, account: UUID, now: Date) async throws -> PushReceipt {
        let accountId = account.uuidString.lowercased()
        let batchId = batch.uuidString.lowercased()
        return try await translatingErrors {
            try await writer.write { db in
                if let cursor = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT cursor FROM syncBatch WHERE accountId = ? AND batchId = ?"),
                    arguments: [accountId, batchId])
                {
                    return PushReceipt(cursor: cursor, wasRetry: true)
                }
                try Self.check(changes, account: account, now: now)
                var merge = Merge(db: db, accountId: accountId)
                try merge.start()
                for tombstone in changes.tombstones { try merge.apply(tombstone) }
                for row in changes.rows { try merge.apply(row) }
                try merge.finish()
                try db.cachedStatement(sql: "INSERT INTO syncBatch (accountId, batchId, cursor) VALUES (?, ?, ?)")
                    .execute(arguments: [accountId, batchId, merge.seq])
                return PushReceipt(cursor: merge.seq, wasRetry: false)
            }
        }
    }

    public func pull(account: UUID, after cursor: Int64, limit: Int) async throws -> PullPage {
        try Self.checkPage(cursor, limit)
        let accountId = account.uuidString.lowercased()
        return try await translatingErrors {
            try await writer.read { db in
                let rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT record, seq FROM syncRow WHERE accountId = ? AND seq > ? ORDER BY seq LIMIT ?"),
                    arguments: [accountId, cursor, limit + 1]
                ).map {
                    (
                        seq: $0["seq"] as Int64,
                        change: Change.row(try RowChange(recordJSON: $0["record"], field: "syncRow"))
                    )
                }
                let tombstones = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT entity, rowId, hlc, replica, seq FROM syncTombstone
                            WHERE accountId = ? AND seq > ? ORDER BY seq LIMIT ?
                            """), arguments: [accountId, cursor, limit + 1]
                ).map { row in
                    guard let entity = SyncedEntity(rawValue: row["entity"]) else {
                        throw CardboxError.storage("the sync state holds a tombstone of an unknown entity")
                    }
                    let clock = WriteClock(HLCTimestamp(rawValue: UInt64(bitPattern: row["hlc"])), row["replica"])
                    return (
                        seq: row["seq"] as Int64,
                        change: Change.tombstone(Tombstone(entity: entity, id: row["rowId"], clock: clock))
                    )
                }
                let ordered = (rows + tombstones).sorted { $0.seq < $1.seq }
                let page = ordered.prefix(limit)
                var changes = ChangeSet(accountId: account, replicaId: serverReplicaId)
                for entry in page {
                    switch entry.change {
                    case .row(let row): changes.rows.append(row)
                    case .tombstone(let tombstone): changes.tombstones.append(tombstone)
                    }
                }
                return PullPage(changes: changes, cursor: page.last?.seq ?? cursor, hasMore: ordered.count > limit)
            }
        }
    }

    private enum Change {
        case row(RowChange)
        case tombstone(Tombstone)
    }

    private func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw CardboxError.storage("the sync state failed: \(error.message ?? error.description)")
        }
    }
}

/// One push's merge into the SQLite sync state: each record it changes gets the account's next
/// sequence number, so a pull after any cursor finds it.
private struct Merge {
    let db: Database
    let accountId: String
    private(set) var seq: Int64 = 0

    init(db: Database, accountId: String) {
        self.db = db
        self.accountId = accountId
    }

    mutating func start() throws {
        seq =
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT lastSeq FROM syncAccount WHERE accountId = ?"), arguments: [accountId])
            ?? 0
    }

    func finish() throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO syncAccount (accountId, lastSeq) VALUES (?, ?)
                ON CONFLICT (accountId) DO UPDATE SET lastSeq = excluded.lastSeq
                """
        ).execute(arguments: [accountId, seq])
    }

    /// A delete is kept with its latest clock; a final delete also drops the record's fields, which
    /// no later write can bring back.
    mutating func apply(_ incoming: Tombstone) throws {
        let stored = try tombstone(incoming.entity, incoming.id)
        let merged = stored.map { $0.merged(with: incoming) } ?? incoming
        if merged != stored {
            seq += 1
            try db.cachedStatement(
                sql: """
                    INSERT INTO syncTombstone (accountId, entity, rowId, hlc, replica, seq) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (accountId, entity, rowId) DO UPDATE
                    SET hlc = excluded.hlc, replica = excluded.replica, seq = excluded.seq
                    """
            ).execute(
                arguments: [
                    accountId, merged.entity.rawValue, merged.id, merged.clock.timestamp.storageValue,
                    merged.clock.replicaId, seq,
                ])
        }
        if incoming.entity.deletion == .final {
            try db.cachedStatement(sql: "DELETE FROM syncRow WHERE accountId = ? AND entity = ? AND rowId = ?")
                .execute(arguments: [accountId, incoming.entity.rawValue, incoming.id])
        }
    }

    /// Field by field, the newer write wins (`RowChange.merged(with:)`, as on every device).
    mutating func apply(_ incoming: RowChange) throws {
        if incoming.entity.deletion == .final, try tombstone(incoming.entity, incoming.id) != nil { return }
        let stored = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT record FROM syncRow WHERE accountId = ? AND entity = ? AND rowId = ?"),
            arguments: [accountId, incoming.entity.rawValue, incoming.id]
        ).map { try RowChange(recordJSON: $0["record"], field: "syncRow") }
        let merged = stored.map { $0.merged(with: incoming) } ?? incoming
        guard merged != stored else { return }
        seq += 1
        try db.cachedStatement(
            sql: """
                INSERT INTO syncRow (accountId, entity, rowId, record, seq) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (accountId, entity, rowId) DO UPDATE SET record = excluded.record, seq = excluded.seq
                """
        ).execute(arguments: [accountId, merged.entity.rawValue, merged.id, merged.recordJSON, seq])
    }

    private func tombstone(_ entity: SyncedEntity, _ id: String) throws -> Tombstone? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: "SELECT hlc, replica FROM syncTombstone WHERE accountId = ? AND entity = ? AND rowId = ?"),
            arguments: [accountId, entity.rawValue, id]
        ).map { row in
            Tombstone(
                entity: entity, id: id,
                clock: WriteClock(HLCTimestamp(rawValue: UInt64(bitPattern: row["hlc"])), row["replica"]))
        }
    }
}
