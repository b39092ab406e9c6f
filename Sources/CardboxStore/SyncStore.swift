import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// What applying a change set did.
public struct ApplyReport: Sendable, Equatable, Codable {
    /// Rows made, rows whose fields changed, rows deleted.
    public var inserted = 0
    public var updated = 0
    public var deleted = 0
    /// Rows kept aside: their parent has not arrived yet, or is deleted while a later move may still
    /// bring them back.
    public var held = 0

    public init() {}
}

extension CardboxStore {
    /// Everything written on this replica after `cursor` (a value this method returned before; 0 for
    /// everything), as one change set, and the cursor to pass next time: `ChangePages` read as one
    /// page, in one transaction.
    public func changes(since cursor: HLCTimestamp = .zero) throws -> (changes: ChangeSet, cursor: HLCTimestamp) {
        try read { context in
            var pages = try ChangePages(context, since: cursor)
            var changes = ChangeSet(accountId: accountId, replicaId: replicaId)
            try pages.read(context, into: &changes, limit: .max)
            return (changes, pages.cursor)
        }
    }

    /// How many records `changes(since:)` would return, counted without reading them: what `cardbox
    /// sync status` (polled by `sync --watch`) shows as pending.
    public func changeCount(since cursor: HLCTimestamp = .zero) throws -> Int {
        try read { context in try PendingCounts(context, since: cursor).total }
    }

    /// Applies another replica's change set: field by field, the newer write wins, ordered by (HLC,
    /// replica); deletes are final; rows whose parent is gone go with it. All of it or, when anything
    /// is wrong with it, none: a change set for another account, stamped more than five minutes in
    /// the future, or naming an unknown entity or field, is refused whole.
    ///
    /// Applying a change set twice, or an older one after a newer one, changes nothing.
    @discardableResult
    public func apply(_ changes: ChangeSet) throws -> ApplyReport {
        try check(changes)
        return try write { tx in try applyInside(tx, changes) }
    }

    /// Applies a pulled page and saves the device's sync link (its cursors) in the same transaction,
    /// so a sync's bookkeeping costs no commit of its own and the cursor never runs ahead of the data.
    @discardableResult
    public func apply(_ changes: ChangeSet, saving link: SyncLink) throws -> ApplyReport {
        try applyPage(changes) { try Self.saveSyncLink(link, $0) }
    }

    /// Applies a pulled page and, in the same transaction, saves where its puller has got to.
    func applyPage(_ changes: ChangeSet, saving cursor: (Database) throws -> Void) throws -> ApplyReport {
        if !changes.isEmpty { try check(changes) }
        return try write { tx in
            let report = changes.isEmpty ? ApplyReport() : try applyInside(tx, changes)
            try cursor(tx.db)
            return report
        }
    }

    /// Refuses a change set that is malformed or meant for another account.
    func check(_ changes: ChangeSet) throws {
        try changes.validate()
        guard changes.accountId == accountId else {
            throw CardboxError.invalid(
                field: "changes.accountId",
                reason: "is \(changes.accountId.storage), but this store holds account \(accountId.storage)")
        }
    }

    /// Applies a checked change set inside the write transaction `tx`.
    func applyInside(_ tx: WriteContext, _ changes: ChangeSet) throws -> ApplyReport {
        var clock = try Self.clock(tx.db)
        let newest = changes.newestTimestamp
        _ = try clock.receive(newest, now: tx.now)
        try Self.save(clock, tx.db)
        var applier = try ChangeApplier(tx, for: changes)
        tx.batch.origin = "remote"
        tx.batch.replicaKey = try applier.replicaKey(changes.replicaId)
        tx.batch.timestamp = newest
        try applier.apply(changes)
        return applier.report
    }

    /// What a new store of `account` holds before any write, as a change set: its account's record,
    /// written by no replica, at clock zero. No change set carries it, so a replica that does not
    /// start as a store (the browser's) starts from this.
    public static func originChanges(account: UUID) throws -> ChangeSet {
        let fresh = try CardboxStore.inMemory(account: account)
        return ChangeSet(
            accountId: account, replicaId: serverReplicaId,
            rows: try fresh.canonicalDump().split(separator: "\n").map {
                try RowChange(recordJSON: String($0), field: "origin")
            })
    }

    /// Every live row of every synced entity, each field with its value and clock, in one stable
    /// order: two replicas that have seen the same changes give the same text.
    public func canonicalDump() throws -> String {
        try read { context in
            let reader = RowReader(context: context)
            var lines: [String] = []
            for entity in SyncedEntity.allCases {
                for row in try reader.rows(entity, where: "1", []).sorted(by: { $0.id < $1.id }) {
                    lines.append(HeldRow.encode(row))
                }
            }
            return lines.joined(separator: "\n")
        }
    }
}

extension CardboxStore {
    /// Rows that break the schema's references (a merge bug would leave them): empty when all is well.
    public func integrityProblems() throws -> [String] {
        try read { context in
            try Row.fetchAll(context.db, sql: "PRAGMA foreign_key_check").map { row in
                "\(row[0] as String? ?? "?") row \(row[1] as Int64? ?? -1) names a missing \(row[2] as String? ?? "?")"
            }
        }
    }
}

extension SyncedEntity {
    /// The index of the entity's rows by the time of their last local write, named so that a sync
    /// that sends one card reads one index entry, whatever else a query's planner might weigh.
    var versionIndex: String? { Schema.syncedTables.contains(table) ? "\(table)BySyncVersion" : nil }
}

extension Tombstone {
    /// A tombstone as the store reads it: entity, rowId, hlc, replicaId.
    init(storedRow row: Row) throws {
        guard let entity = SyncedEntity(rawValue: row["entity"]) else {
            throw CardboxError.storage("the store holds a tombstone of an unknown entity '\(row["entity"] ?? "")'")
        }
        self.init(
            entity: entity, id: row["rowId"],
            clock: WriteClock(HLCTimestamp(rawValue: UInt64(bitPattern: row["hlc"])), row["replicaId"]))
    }
}

/// Reads stored rows as their wire form: values by the registry, clocks from the row and `fieldClock`.
/// How many records written after a cursor each place holds: every synced entity's table, the
/// rows held aside, the tombstones. Counted in one statement: most syncs and most of the web app's
/// writes send a record or two, and a query per table cost more than reading them.
struct PendingCounts {
    var rows: [SyncedEntity: Int] = [:]
    var heldRows = 0
    var tombstones = 0

    var total: Int { rows.values.reduce(heldRows + tombstones, +) }

    init(_ context: StoreContext, since cursor: HLCTimestamp) throws {
        guard
            let counts = try Row.fetchOne(
                context.db.cachedStatement(sql: Self.sql), arguments: [cursor.storageValue])
        else { return }
        for (offset, entity) in SyncedEntity.allCases.enumerated() { rows[entity] = counts[offset] }
        heldRows = counts[SyncedEntity.allCases.count]
        tombstones = counts[SyncedEntity.allCases.count + 1]
    }

    /// One column per place, in the order `init` reads them; ?1 is the cursor.
    private static let sql: String = {
        let tables = SyncedEntity.allCases.map { entity in
            """
            (SELECT COUNT(*) FROM \(entity.table)\(entity.versionIndex.map { " INDEXED BY \($0)" } ?? "") \
            WHERE \(SyncColumns.version) > ?1)
            """
        }
        let others = ["heldRow", "tombstone"].map {
            "(SELECT COUNT(*) FROM \($0) WHERE version > ?1)"
        }
        return "SELECT " + (tables + others).joined(separator: ", ")
    }()
}

struct RowReader {
    let context: StoreContext

    /// Rows of `entity` meeting `condition`; `index` names the index to read them by, when SQLite
    /// would otherwise pick a worse one.
    func rows(
        _ entity: SyncedEntity, where condition: String, _ arguments: [DatabaseValue], index: String? = nil
    ) throws -> [RowChange] {
        try rows(entity, where: condition, arguments, from: index.map { " INDEXED BY \($0)" } ?? "").map(\.row)
    }

    /// The first `limit` rows of `entity` meeting `condition` in the table's storage order, each with
    /// its place in that order: one page of a walk through the table (`ChangePages`).
    func rows(_ entity: SyncedEntity, where condition: String, _ arguments: [DatabaseValue], inStorageOrder limit: Int)
        throws -> [(place: [Int64], row: RowChange)]
    {
        // The table itself, in its own order: by the version index, every page would sort all the
        // rows after it again.
        return try rows(
            entity, where: condition + " ORDER BY \(entity.storageOrder(table: "t")) LIMIT ?",
            arguments + [limit.databaseValue],
            from: " NOT INDEXED")
    }

    private func rows(_ entity: SyncedEntity, where condition: String, _ arguments: [DatabaseValue], from hint: String)
        throws -> [(place: [Int64], row: RowChange)]
    {
        let (selected, columns) = Self.selections[entity]!
        let order = entity.storageOrder
        let rows = try Row.fetchAll(
            context.db.cachedStatement(
                sql: """
                    SELECT \(selected) FROM \(entity.table) t\(hint)
                    JOIN replica r ON r.key = t.\(SyncColumns.replica)
                    WHERE \(condition)
                    """), arguments: StatementArguments(arguments))
        guard !rows.isEmpty else { return [] }
        let overrides = try fieldClocks(entity, ids: rows.map { $0[0] })
        // By position, as selected: a lookup by name folds its case on every call, and a first
        // sync reads a hundred thousand rows.
        // The dictionaries are made at their size: grown one insert at a time, they were copied
        // about five times a row, a tenth of reading the changes of one web answer.
        return rows.map { row in
            let id: String = row[0]
            let created = WriteClock(HLCTimestamp(rawValue: UInt64(bitPattern: row[1])), row[2])
            var stored: [String: DatabaseValue] = [:]
            stored.reserveCapacity(columns.count)
            for (offset, column) in columns.enumerated() { stored[column] = row[3 + order.count + offset] }
            let clocks = overrides[id]
            var fields: [String: FieldChange] = [:]
            fields.reserveCapacity(entity.fields.count)
            for field in entity.fields {
                fields[field.name] = FieldChange(
                    value: WireValue.field(field, stored), clock: clocks?[field.name] ?? created)
            }
            let place = (0..<order.count).map { row[3 + $0] as Int64 }
            return (place, RowChange(entity: entity, id: id, created: created, fields: fields))
        }
    }

    /// What `rows` selects of each table (its wire id, creation clock, place in storage order and
    /// columns, as SQL), with the columns' names: made once from the registry, not at every read
    /// (that was a sixth of reading the changes of one web answer).
    private static let selections: [SyncedEntity: (sql: String, columns: [String])] = Dictionary(
        uniqueKeysWithValues: SyncedEntity.allCases.map { entity in
            let columns = entity.columns.map(\.name)
            let selected =
                ([
                    "\(entity.idExpression(table: "t")) AS wireId", "t.\(SyncColumns.timestamp)", "r.id AS createdBy",
                ] + entity.storageOrder.map { "t.\($0)" } + columns.map { entity.selectExpression($0, table: "t") })
                .joined(separator: ", ")
            return (entity, (selected, columns))
        })

    /// The clocks of fields written after their row was made, by row id and field.
    func fieldClocks(_ entity: SyncedEntity, ids: [String]) throws -> [String: [String: WriteClock]] {
        var clocks: [String: [String: WriteClock]] = [:]
        // Several ids go in as one JSON array, so the statement is prepared once, whatever their
        // number; one id (a web answer's card) is compared as it is, without parsing JSON.
        let (filter, list) =
            ids.count == 1
            ? ("f.rowId = ?", ids[0])
            : ("f.rowId IN (SELECT value FROM json_each(?))", JSONValue.array(ids.map(JSONValue.string)).jsonText)
        let rows = try Row.fetchAll(
            context.db.cachedStatement(
                sql: """
                    SELECT f.rowId, f.field, f.hlc, r.id FROM fieldClock f JOIN replica r ON r.key = f.replica
                    WHERE f.entity = ? AND \(filter)
                    """),
            arguments: [entity.rawValue, list])
        for row in rows {  // by position: a lookup by name folds its case at every call
            clocks[row[0], default: [:]][row[1]] = WriteClock(
                HLCTimestamp(rawValue: UInt64(bitPattern: row[2])), row[3])
        }
        return clocks
    }
}

/// A row kept aside (`heldRow`), stored as its wire form with clocks inline.
enum HeldRow {
    /// Held rows whose own record is deleted (a tag deleted while another device edited it): kept so
    /// a later re-creation merges with every newer write. They wait for no parent.
    static let deletedMarker = ""

    /// What a held row waits for: its parent's entity and id (ids of different entities may match).
    static func waitKey(_ entity: SyncedEntity, _ id: String) -> String { "\(entity.rawValue)/\(id)" }

    static func encode(_ row: RowChange) -> String { row.recordJSON }

    static func decode(_ text: String) throws -> RowChange { try RowChange(recordJSON: text, field: "a held row") }
}
