import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// Snapshots: a whole store file, handed to a device that has nothing yet, so its first sync copies
/// pages instead of merging every record one by one (Anki's full download, CloudKit's initial fetch).
///
/// The server keeps, per account, a store brought up to date from its sync state (see
/// `AccountReplicas`); a snapshot is a compact copy of that file. A device adopts one only while it
/// holds nothing of its own: then the merged state it would reach by pulling everything is exactly
/// the snapshot's, and the pull that follows starts at the snapshot's cursor.
extension CardboxStore {
    /// Writes a compact copy of the whole store to `path` (which must not exist yet), as one
    /// consistent read.
    public func writeSnapshot(to path: String) throws {
        try translatingErrors {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM INTO ?", arguments: [path])
            }
        }
    }

    /// Whether the store holds nothing of its own: no synced record but its account row (which a new
    /// store makes with the defaults), no tombstone, nothing held, no image. Only such a store may
    /// adopt a snapshot: it loses nothing by it.
    public func holdsNothingOfItsOwn() throws -> Bool {
        try read { context in try Self.holdsNothingOfItsOwn(context) }
    }

    static func holdsNothingOfItsOwn(_ context: StoreContext) throws -> Bool {
        // One statement (asked three times in a first sync, once on a connection of its own).
        try context.count(holdsAnythingSQL, []) == 0
    }

    private static let ownedTables = Schema.syncedTables + ["tombstone", "heldRow", "image"]
    private static let holdsAnythingSQL =
        "SELECT " + ownedTables.map { "EXISTS (SELECT 1 FROM \($0))" }.joined(separator: " OR ")

    /// Replaces this store's content with the snapshot at `path` (a file `writeSnapshot` made on a
    /// store of the same account), keeping this store's identity: its replica id and the key it
    /// stores under, and a clock no earlier than either's. `link` is saved in the same step, so a
    /// device is never left with the data and without its server. The file is changed in place
    /// (the caller's temporary copy). A store that holds anything of its own (a write made while the
    /// snapshot was on its way) takes nothing and answers false: it syncs record by record instead.
    ///
    /// When the snapshot lies in the store's folder (see `snapshotFolder`), the file itself takes the
    /// store's place (`StoreFile.replace`); else, or when another process has the store open, its
    /// pages are copied in with SQLite's backup API, as one step on the store's writer. Either way
    /// the check that the store holds nothing and the change are one step for this process; the
    /// snapshot is made ready before, so the window left to another process writing the same file
    /// is as short as it can be.
    @discardableResult
    public func adoptSnapshot(at path: String, link: SyncLink) throws -> Bool {
        let snapshot = try Self.openSnapshot(path)
        let ownClock = try read { try Self.clock($0.db).last }
        try translatingErrors {
            try snapshot.write { snapshotDb in
                try prepareForAdoption(snapshotDb, clock: ownClock)
                try Self.saveSyncLink(link, snapshotDb)
            }
        }
        guard try holdsNothingOfItsOwn() else { return false }
        let account = accountId
        let holdsNothing = { (db: Database) in
            try Self.holdsNothingOfItsOwn(StoreContext(db: db, accountId: account, environment: .live))
        }
        if file.isReplaceable, URL(fileURLWithPath: path).deletingLastPathComponent().path == snapshotFolder.path {
            let moved = try translatingErrors { () -> Bool in
                // The store's own journal mode, and the bytes on the disk before they take its name.
                try snapshot.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
                try snapshot.close()
                try Self.syncToDisk(path)
                return try file.replace(with: path, ifStill: holdsNothing)
            }
            if moved { return true }
            // Not moved: the store holds something of its own now, or is open elsewhere.
            return try copyIn(try Self.openSnapshot(path), ifStill: holdsNothing)
        }
        return try copyIn(snapshot, ifStill: holdsNothing)
    }

    /// Where a device should put a snapshot it downloads: beside the store, so adopting it is a
    /// rename (the temporary folder, for a store in memory).
    public var snapshotFolder: URL {
        guard let path = file.path else { return FileManager.default.temporaryDirectory }
        return URL(fileURLWithPath: path).deletingLastPathComponent()
    }

    /// Copies the snapshot's pages over the store's, when the store still holds nothing.
    private func copyIn(_ snapshot: DatabaseQueue, ifStill holdsNothing: (Database) throws -> Bool) throws -> Bool {
        try translatingErrors {
            try writer.writeWithoutTransaction { db in
                guard try holdsNothing(db) else { return false }
                try snapshot.read { snapshotDb in try snapshotDb.backup(to: db) }
                // The copy went into the write-ahead log whole; folded into the file now, rather than
                // read back by whatever reads the store next.
                try db.checkpoint(.truncate)
                return true
            }
        }
    }

    private static func syncToDisk(_ path: String) throws {
        guard let handle = FileHandle(forUpdatingAtPath: path) else {
            throw CardboxError.storage("cannot open the snapshot at \(path)")
        }
        defer { try? handle.close() }
        try handle.synchronize()
    }

    /// How the SQL of a store's tables and indexes begins (SQLite keeps the first keywords upper
    /// case, single spaced).
    private static let storeObjectPrefixes = ["CREATE TABLE ", "CREATE INDEX ", "CREATE UNIQUE INDEX "]

    /// Opens a downloaded snapshot and brings its schema to this build's; a snapshot from a newer
    /// build, or a file that is not a store, is refused with what is wrong. (That the bytes are the
    /// ones the server made is checked as they arrive, by their SHA-256: a full integrity check here
    /// read every page again and cost a fifth of a first sync.)
    private static func openSnapshot(_ path: String) throws -> DatabaseQueue {
        do {
            // The caller's throwaway copy: changing it needs no journal and no waiting for the disk.
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
                CardboxStore.addFunctions(to: db)
            }
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            // A store has tables, indexes and the triggers its schema makes, word for word: any other
            // object in the file would come along and run in this store. Each object is made from
            // its SQL, so the SQL is what is checked, whatever the row's `type` says.
            let own = Schema.dayAnswerTriggers
            let foreign = try queue.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT ifnull(type, '') AS type, ifnull(name, '') AS name, sql FROM sqlite_master
                        WHERE sql IS NOT NULL
                        """
                )
                .filter { row in
                    let sql: String = row["sql"]
                    return !own.contains(sql) && !Self.storeObjectPrefixes.contains { sql.hasPrefix($0) }
                }
                .map { "\($0["type"] as String) \($0["name"] as String)" }
            }
            guard foreign.isEmpty else {
                throw CardboxError.invalid(
                    field: "snapshot",
                    reason: "holds what a store never does: \(foreign.prefix(3).joined(separator: ", "))")
            }
            guard try !queue.read({ try Schema.migrator.hasBeenSuperseded($0) }) else {
                throw CardboxError.invalid(field: "snapshot", reason: "comes from a newer Cardbox; update this one")
            }
            try Schema.migrator.migrate(queue)
            return queue
        } catch let error as DatabaseError {
            throw CardboxError.invalid(
                field: "snapshot", reason: "is not a Cardbox store: \(error.message ?? error.description)")
        }
    }

    /// Makes the snapshot's file this store's: same account, this replica's id under this store's
    /// key (whatever held that key moves to a free one, in every column naming a replica), the later
    /// of the two clocks, and no server-side bookkeeping.
    private func prepareForAdoption(_ db: Database, clock ownClock: HLCTimestamp) throws {
        let info = try Dictionary(
            uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM storeInfo").map {
                ($0["key"] as String, $0["value"] as String)
            })
        guard info["accountId"] == accountId.storage else {
            throw CardboxError.invalid(
                field: "snapshot", reason: "holds account \(info["accountId"] ?? "none"), not \(accountId.storage)")
        }
        try remapReplicaKeys(db)
        // What the server's copy wrote itself (the web app's changes) it pushes on its own; to the
        // device it is what it pulled, not something to send.
        for table in Schema.syncedTables {
            try db.execute(sql: "UPDATE \(table) SET syncVersion = 0 WHERE syncVersion > 0")
        }
        for table in ["heldRow", "tombstone"] {
            try db.execute(sql: "UPDATE \(table) SET version = 0 WHERE version > 0")
        }
        // The copy's counts of the day's answers were kept for its own day's window.
        try db.execute(sql: "DELETE FROM deckDayAnswers")
        let clock = max(try Self.clock(db).last, ownClock)
        try db.execute(sql: "DELETE FROM storeInfo WHERE key NOT IN ('accountId')")
        try db.execute(
            sql: "INSERT INTO storeInfo (key, value) VALUES ('replicaId', ?), ('lastHlc', ?)",
            arguments: [replicaId, String(clock.storageValue)])
    }

    /// Gives this replica's id this store's key in the snapshot, moving the replica that held the key.
    private func remapReplicaKeys(_ db: Database) throws {
        let holder = try String.fetchOne(db, sql: "SELECT id FROM replica WHERE key = ?", arguments: [replicaKey])
        let ownKeyThere = try Int64.fetchOne(db, sql: "SELECT key FROM replica WHERE id = ?", arguments: [replicaId])
        guard holder != replicaId else { return }
        var moves: [(from: Int64, to: Int64)] = []
        if holder != nil { moves.append((replicaKey, try Self.freeReplicaKey(db))) }
        if let ownKeyThere { moves.append((ownKeyThere, replicaKey)) }
        try Self.moveReplicaKeys(moves, db)
        if ownKeyThere == nil {
            try db.execute(sql: "INSERT INTO replica (key, id) VALUES (?, ?)", arguments: [replicaKey, replicaId])
        }
    }

    private static func freeReplicaKey(_ db: Database) throws -> Int64 {
        (try Int64.fetchOne(db, sql: "SELECT MAX(key) FROM replica") ?? 0) + 1
    }

    /// Renames replica keys in every column that names one: a scan of every synced table, as no
    /// index leads with those columns.
    private static func moveReplicaKeys(_ moves: [(from: Int64, to: Int64)], _ db: Database) throws {
        guard !moves.isEmpty else { return }
        let columns = try Row.fetchAll(
            db,
            sql: """
                SELECT m.name AS tableName, c.name AS columnName FROM sqlite_master m, pragma_table_info(m.name) c
                WHERE m.type = 'table' AND m.name <> 'replica' AND c.name IN ('syncReplica', 'replica')
                """)
        let cases = moves.map { "WHEN \($0.from) THEN \($0.to)" }.joined(separator: " ")
        let keys = moves.map { String($0.from) }.joined(separator: ", ")
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        for column in columns {
            let table: String = column["tableName"]
            let name: String = column["columnName"]
            try db.execute(sql: "UPDATE \(table) SET \(name) = CASE \(name) \(cases) END WHERE \(name) IN (\(keys))")
        }
        try db.execute(sql: "UPDATE replica SET key = CASE key \(cases) END WHERE key IN (\(keys))")
    }

    /// The key a new store gives its own replica (0 is the origin's): see `leaveNewStoreKeyFree`.
    static let newStoreReplicaKey: Int64 = 1

    /// Readies a snapshot file `writeSnapshot` made for the devices that will adopt it: the key a new
    /// store gives its own replica is moved off the replica that holds it here (the server's copy's
    /// own), so that a new device's adoption renames no key. Else every device renamed it, in a scan
    /// of every synced table: 1.3 of about 15 ms of a 5,000-card first sync. Done once per snapshot,
    /// by whoever makes it, before its bytes are hashed.
    public static func leaveNewStoreKeyFree(inSnapshotAt path: String) throws {
        try translatingErrors {
            let snapshot = try openSnapshot(path)
            try snapshot.write { db in
                guard
                    try Int64.fetchOne(
                        db, sql: "SELECT 1 FROM replica WHERE key = ?", arguments: [newStoreReplicaKey]) != nil
                else { return }
                try moveReplicaKeys([(newStoreReplicaKey, try freeReplicaKey(db))], db)
            }
            try snapshot.close()
        }
    }
}

extension CardboxStore {
    private static let replicaCursorKey = "replica.cursor"

    /// For a store the server keeps of an account: the cursor of the sync state it has applied up to.
    public func replicaCursor() throws -> Int64 {
        try read { context in try Self.replicaCursor(context.db) }
    }

    private static func replicaCursor(_ db: Database) throws -> Int64 {
        try String.fetchOne(db, sql: "SELECT value FROM storeInfo WHERE key = ?", arguments: [replicaCursorKey])
            .flatMap { Int64($0) } ?? 0
    }

    /// For a store the server keeps of an account, which the sync state can always make again:
    /// closes it and deletes its file (see `StoreFile.delete`). False, with the store as it was,
    /// while a use of it is running or another process has it open.
    public func closeAndDelete() -> Bool { file.delete() }

    /// Closes the store's connections (see `StoreFile.close`): false while a use of it is running.
    public func close() -> Bool { file.close() }

    private static let replicaSentKey = "replica.sent"

    /// For a store the server keeps of an account: the clock up to which its own writes (the web
    /// app's) have been pushed to the sync state.
    public func replicaSent() throws -> HLCTimestamp {
        try read { context in
            let value = try String.fetchOne(
                context.db, sql: "SELECT value FROM storeInfo WHERE key = ?", arguments: [Self.replicaSentKey])
            return HLCTimestamp(rawValue: UInt64(bitPattern: value.flatMap { Int64($0) } ?? 0))
        }
    }

    /// Notes a push of the store's own writes up to `sent`. When the sync state's records up to
    /// `cursor` are all the store holds already (that push's own, `PushReceipt.isOwnEcho`), its
    /// cursor moves there in the same transaction, without pulling them back; never back (a
    /// catch-up may have gone further since the push).
    public func saveReplicaSent(_ sent: HLCTimestamp, caughtUpTo cursor: Int64? = nil) throws {
        try translatingErrors {
            try writer.write { db in
                try Self.saveInfo(Self.replicaSentKey, String(sent.storageValue), db)
                if let cursor, cursor > (try Self.replicaCursor(db)) {
                    try Self.saveInfo(Self.replicaCursorKey, String(cursor), db)
                }
            }
        }
    }

    private static func saveInfo(_ key: String, _ value: String, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO storeInfo (key, value) VALUES (?, ?)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """
        ).execute(arguments: [key, value])
    }

    /// Applies a page of the sync state and moves the cursor past it, in one transaction.
    public func applyPulled(_ changes: ChangeSet, cursor: Int64) throws {
        _ = try applyPage(changes) { db in try Self.saveInfo(Self.replicaCursorKey, String(cursor), db) }
    }
}
