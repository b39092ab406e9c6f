import CardboxCore
import CardboxServer
import CardboxSync
import Foundation
import GRDB

/// The sync state in one SQLite file: the embedded default of `cardbox serve`. Every table's primary
/// key starts with the account id, and every query names one account.
public final class SQLiteServerDatabase: ServerDatabase {
    let writer: any DatabaseWriter
    /// Pushes share transactions under load (see `GroupCommit`): each commit waits for the disk.
    private let pushes: GroupCommit<PushReceipt>

    /// Opens (creating if needed) the sync state at `path`.
    public convenience init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB sets `synchronous = NORMAL` with the write-ahead log: a crash of the machine could
            // then lose pushes already acknowledged to devices, which have moved their cursors on.
            // Every commit of the pool's one writer waits for the disk (about 0.2 ms here).
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            try self.init(writer: pool)
        } catch let error as DatabaseError {
            throw CardboxError.storage("cannot open the sync state at \(path): \(error.message ?? error.description)")
        }
    }

    /// A sync state in memory, for tests.
    public static func inMemory() throws -> SQLiteServerDatabase { try SQLiteServerDatabase(writer: DatabaseQueue()) }

    private init(writer: any DatabaseWriter) throws {
        self.writer = writer
        pushes = GroupCommit(writer: writer)
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
        migrator.registerMigration("v2: accounts and devices") { db in
            try db.execute(
                sql: """
                    CREATE TABLE serverAccount (
                        accountId TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        passwordHash TEXT NOT NULL,
                        plan TEXT NOT NULL,
                        createdAt REAL NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE serverAccountName (
                        nameKey TEXT PRIMARY KEY NOT NULL,
                        accountId TEXT NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE serverDevice (
                        accountId TEXT NOT NULL,
                        deviceId TEXT NOT NULL,
                        name TEXT NOT NULL,
                        tokenHash TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        lastSeenAt REAL,
                        revokedAt REAL,
                        PRIMARY KEY (accountId, deviceId)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v3: images") { db in
            try db.execute(
                sql: """
                    CREATE TABLE serverImage (
                        accountId TEXT NOT NULL,
                        sha256 TEXT NOT NULL,
                        mimeType TEXT NOT NULL,
                        data BLOB NOT NULL,
                        PRIMARY KEY (accountId, sha256)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4: device sync status") { db in
            try db.execute(
                sql: """
                    CREATE TABLE serverDeviceSync (
                        accountId TEXT NOT NULL,
                        deviceId TEXT NOT NULL,
                        lastSyncAt REAL NOT NULL,
                        pulledCursor INTEGER,
                        lastError TEXT,
                        lastErrorAt REAL,
                        PRIMARY KEY (accountId, deviceId)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v5: the setup link") { db in
            // One row at most: the link the server that started last printed.
            try db.execute(
                sql: """
                    CREATE TABLE serverSetupToken (
                        only INTEGER PRIMARY KEY CHECK (only = 1),
                        tokenHash TEXT NOT NULL,
                        expiresAt REAL NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v6: the administrator") { db in
            // The first account is the administrator, on a server made before there was one too.
            try db.execute(
                sql: """
                    ALTER TABLE serverAccount ADD COLUMN isAdministrator INTEGER NOT NULL DEFAULT 0;
                    \(administratorLeft);
                    """)
        }
        migrator.registerMigration("v7: failed sign-ins") { db in
            // Counted here rather than in a server's memory, so processes sharing the file count
            // the same failures (`SignInThrottle`).
            try db.execute(
                sql: """
                    CREATE TABLE serverSignInFailure (
                        kind TEXT NOT NULL,
                        key TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        firstAt REAL NOT NULL,
                        lastAt REAL NOT NULL,
                        windowSeconds REAL,
                        PRIMARY KEY (kind, key)
                    ) WITHOUT ROWID;
                    CREATE INDEX serverSignInFailureByLastAt ON serverSignInFailure (lastAt);
                    """)
        }
        migrator.registerMigration("v8: records kept in a rowid table") { db in
            // A record is 1–2 kB of JSON (each field with its clock). In a WITHOUT ROWID table, a
            // row keeps at most about 1 kB of a 4 kB page and the rest goes to an overflow page of
            // its own: 100,000 cards took 456 MB. In a rowid table the row stays on its leaf page
            // (less than half the file; `scripts/push_memory.sh`). The declared `rowId` column
            // takes the name from the hidden rowid, which no statement uses.
            try db.execute(
                sql: """
                    CREATE TABLE syncRowByRowid (
                        accountId TEXT NOT NULL,
                        entity TEXT NOT NULL,
                        rowId TEXT NOT NULL,
                        record TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        UNIQUE (accountId, entity, rowId)
                    );
                    INSERT INTO syncRowByRowid (accountId, entity, rowId, record, seq)
                    SELECT accountId, entity, rowId, record, seq FROM syncRow ORDER BY accountId, seq;
                    DROP TABLE syncRow;
                    ALTER TABLE syncRowByRowid RENAME TO syncRow;
                    CREATE INDEX syncRowBySeq ON syncRow(accountId, seq);
                    """)
        }
        return migrator
    }

    public func push(_ changes: ChangeSet, batch: UUID, account: UUID, cardLimit: Int?, now: Date) async throws
        -> PushReceipt
    {
        let accountId = account.uuidString.lowercased()
        let batchId = batch.uuidString.lowercased()
        try Self.check(changes, account: account, now: now)
        return try await translatingErrors {
            try await pushes.write { db in
                if let cursor = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT cursor FROM syncBatch WHERE accountId = ? AND batchId = ?"),
                    arguments: [accountId, batchId])
                {
                    return PushReceipt(cursor: cursor, wasRetry: true)
                }
                let records = Records(db: db, accountId: accountId)
                let plan = try records.plan(changes)
                if cardLimit != nil {
                    try plan.checkCardLimit(cardLimit, cardsBefore: try records.cardCount())
                }
                try records.write(plan)
                try db.cachedStatement(sql: "INSERT INTO syncBatch (accountId, batchId, cursor) VALUES (?, ?, ?)")
                    .execute(arguments: [accountId, batchId, plan.lastSeq])
                return PushReceipt(cursor: plan.lastSeq, wasRetry: false, previousCursor: plan.previousSeq)
            }
        }
    }

    public func cursor(account: UUID) async throws -> Int64 {
        try await translatingErrors {
            try await writer.read { db in
                try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT lastSeq FROM syncAccount WHERE accountId = ?"),
                    arguments: [account.uuidString.lowercased()]) ?? 0
            }
        }
    }

    public func pull(account: UUID, after cursor: Int64, limit: Int) async throws -> PullPage {
        try Self.checkPage(cursor, limit)
        let accountId = account.uuidString.lowercased()
        return try await translatingErrors {
            try await writer.read { db in
                // One statement, so rows and tombstones come from one snapshot.
                let entries = try PulledEntryRecord.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT seq, entity, rowId, record, NULL AS hlc, NULL AS replica FROM syncRow
                            WHERE accountId = ? AND seq > ?
                            UNION ALL
                            SELECT seq, entity, rowId, NULL, hlc, replica FROM syncTombstone
                            WHERE accountId = ? AND seq > ?
                            ORDER BY seq LIMIT ?
                            """), arguments: [accountId, cursor, accountId, cursor, limit + 1]
                ).map { $0.entry }
                return PullPage(entries, account: account, after: cursor, limit: limit)
            }
        }
    }

    func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw CardboxError.storage("the server database failed: \(error.message ?? error.description)")
        }
    }
}

/// An account's records in the SQLite sync state, read and written for one push.
private struct Records {
    let db: Database
    let accountId: String

    /// Reads what the push names and the account's last sequence number, and plans the merge.
    func plan(_ changes: ChangeSet) throws -> PushPlan {
        var rows: [RecordKey: RowChange] = [:]
        var tombstones: [RecordKey: Tombstone] = [:]
        let readRow = try db.cachedStatement(
            sql: "SELECT record FROM syncRow WHERE accountId = ? AND entity = ? AND rowId = ?")
        let readTombstone = try db.cachedStatement(
            sql: "SELECT hlc, replica FROM syncTombstone WHERE accountId = ? AND entity = ? AND rowId = ?")
        for key in PushPlan.keys(of: changes) {
            let arguments: StatementArguments = [accountId, key.entity.rawValue, key.id]
            if let record = try String.fetchOne(readRow, arguments: arguments) {
                rows[key] = try RowChange(recordJSON: record, field: "syncRow")
            }
            if let clock = try TombstoneClockRecord.fetchOne(readTombstone, arguments: arguments) {
                tombstones[key] = Tombstone(key, hlc: clock.hlc, replica: clock.replica)
            }
        }
        let lastSeq =
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT lastSeq FROM syncAccount WHERE accountId = ?"), arguments: [accountId])
            ?? 0
        return PushPlan(changes, storedRows: rows, storedTombstones: tombstones, lastSeq: lastSeq)
    }

    /// The cards the account's merged state holds.
    func cardCount() throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT count(*) FROM syncRow WHERE accountId = ? AND entity = 'card'"),
            arguments: [accountId]) ?? 0
    }

    func write(_ plan: PushPlan) throws {
        let writeTombstone = try db.cachedStatement(
            sql: """
                INSERT INTO syncTombstone (accountId, entity, rowId, hlc, replica, seq) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (accountId, entity, rowId) DO UPDATE
                SET hlc = excluded.hlc, replica = excluded.replica, seq = excluded.seq
                """)
        for (tombstone, seq) in plan.tombstones {
            try writeTombstone.execute(
                arguments: [
                    accountId, tombstone.entity.rawValue, tombstone.id, tombstone.clock.timestamp.storageValue,
                    tombstone.clock.replicaId, seq,
                ])
        }
        let deleteRow = try db.cachedStatement(
            sql: "DELETE FROM syncRow WHERE accountId = ? AND entity = ? AND rowId = ?")
        for key in plan.deletedRows {
            try deleteRow.execute(arguments: [accountId, key.entity.rawValue, key.id])
        }
        let writeRow = try db.cachedStatement(
            sql: """
                INSERT INTO syncRow (accountId, entity, rowId, record, seq) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (accountId, entity, rowId) DO UPDATE SET record = excluded.record, seq = excluded.seq
                """)
        for (row, seq) in plan.rows {
            try writeRow.execute(arguments: [accountId, row.entity.rawValue, row.id, row.recordJSON, seq])
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO syncAccount (accountId, lastSeq) VALUES (?, ?)
                ON CONFLICT (accountId) DO UPDATE SET lastSeq = excluded.lastSeq
                """
        ).execute(arguments: [accountId, plan.lastSeq])
    }
}

extension SQLiteServerDatabase {
    /// Nothing to close: the file's connections end with the object.
    public func close() async {}
}
