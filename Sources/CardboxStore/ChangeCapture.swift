import CardboxCore
import CardboxSync
import Foundation
import GRDB
import Synchronization

/// Change capture: how a local write records what sync needs, at little cost.
///
/// - An insert stamps the row with the transaction's clock (`syncHlc`, `syncReplica`) and marks it
///   written locally (`syncVersion` = the transaction's timestamp). Every field of a new row has the
///   row's clock, so nothing else is written: no second copy of the values.
/// - An update also marks the row, and gives each field it writes its own clock in `fieldClock`.
/// - A delete writes a tombstone for the row and for every row its cascade removes, found through
///   the registry's parent references.
///
/// Sync later reads the rows whose `syncVersion` is newer than what it last sent (`changes(since:)`).
extension WriteContext {
    func insert<Column>(_ table: Table<Column>, id: String, _ fields: Assignments<Column>) throws {
        try insertRow(
            table.entity, id: id, columns: fields.map { $0.0.name }, fields.map { $0.1?.databaseValue ?? .null })
    }

    /// One prepared insert per table and column list for the whole transaction: an import links
    /// thousands of tags and replays thousands of reviews one call at a time.
    func inserter<Column>(_ table: Table<Column>, columns: [Column]) throws -> RowInserter {
        try inserter(table.entity, columns: columns.map(\.name))
    }

    func update<Column>(_ table: Table<Column>, id: String, _ fields: Assignments<Column>) throws {
        try updateRow(
            table.entity, id: id, fields.map { ColumnWrite(column: $0.0.name, field: $0.0.field, value: $0.1) })
    }

    /// An insert of columns the caller read from the registry or checked against the schema (a
    /// backup's rows): the generic form of `insert`.
    func insertRow(_ entity: Entity, id: String, columns: [String], _ values: [DatabaseValue]) throws {
        try inserter(entity, columns: columns).insert(id: id, values)
    }

    func inserter(_ entity: Entity, columns: [String]) throws -> RowInserter {
        let key = StatementKey(entity: entity, columns: columns)
        if let inserter = inserters[key] { return inserter }
        let inserter = try RowInserter(self, entity, columns: columns)
        inserters[key] = inserter
        return inserter
    }

    /// Writes the columns, marks the row written here, and gives each synced field written the
    /// transaction's clock: the generic form of `update`.
    func updateRow(_ entity: Entity, id: String, _ writes: [ColumnWrite]) throws {
        guard !writes.isEmpty else { return }
        let sql = StatementTexts.text(for: StatementKey(entity: entity, columns: writes.map(\.column)), .update) {
            let assignments = ($0.columns.map { entity.binding($0) } + ["\(SyncColumns.version) = ?"])
                .joined(separator: ", ")
            return "UPDATE \(entity.table) SET \(assignments) WHERE \(entity.rowCondition)"
        }
        let values = writes.map { $0.value?.databaseValue ?? .null } + [timestamp.storageValue.databaseValue]
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(values + entity.rowArguments(id: id)))
        guard db.changesCount > 0 else { return }
        var written: [String] = []
        for case let field? in writes.lazy.map(\.field) where !written.contains(field.name) {
            written.append(field.name)
        }
        for field in written {
            try setFieldClock(entity, id: id, field: field, WriteClock(timestamp, replicaId), replicaKey: replicaKey)
        }
        batch.note(entity, id: id, .update, fields: written)
    }

    func setFieldClock(_ entity: Entity, id: String, field: String, _ clock: WriteClock, replicaKey: Int64) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO fieldClock (entity, rowId, field, hlc, replica) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (entity, rowId, field) DO UPDATE SET hlc = excluded.hlc, replica = excluded.replica
                """
        ).execute(arguments: [entity.rawValue, id, field, clock.timestamp.storageValue, replicaKey])
    }

    /// Deletes a row and everything its cascade removes, writing a tombstone for each, so other
    /// replicas delete the same rows. The cascade is read from the registry's parent references: a
    /// child table added there is covered here without another line.
    func delete(_ entity: Entity, id: String) throws {
        let selection = RowSelection(
            entity: entity, from: "\(entity.table) WHERE \(entity.rowCondition)",
            arguments: entity.rowArguments(id: id))
        guard try context.count("SELECT COUNT(*) FROM (\(selection.sql))", StatementArguments(selection.arguments)) > 0
        else { return }
        try tombstone(selection, clock: WriteClock(timestamp, replicaId), replicaKey: replicaKey, version: timestamp)
        try db.cachedStatement(sql: "DELETE FROM \(entity.table) WHERE \(entity.rowCondition)")
            .execute(arguments: StatementArguments(entity.rowArguments(id: id)))
        batch.note(entity, id: id, .delete, fields: [])
    }

    /// Tombstones the selected rows and, depth first, every row that names one of them as its parent.
    /// Their field clocks go with them. The rows themselves are left to the caller's DELETE (the
    /// schema's cascades remove the children).
    func tombstone(_ selection: RowSelection, clock: WriteClock, replicaKey: Int64, version: HLCTimestamp) throws {
        for (child, reference) in selection.entity.children {
            let childSelection = RowSelection(
                entity: child, from: "\(child.table) WHERE \(child.membership(reference.column, in: selection.sql))",
                arguments: selection.arguments)
            try tombstone(childSelection, clock: clock, replicaKey: replicaKey, version: version)
        }
        let entity = selection.entity
        try db.cachedStatement(
            sql: """
                INSERT INTO tombstone (entity, rowId, hlc, replica, version)
                SELECT ?, \(entity.idExpression), ?, ?, ? FROM \(selection.from)
                ON CONFLICT (entity, rowId) DO UPDATE
                SET hlc = excluded.hlc, replica = excluded.replica, version = excluded.version
                """
        ).execute(
            arguments: StatementArguments(
                [
                    entity.rawValue.databaseValue, clock.timestamp.storageValue.databaseValue,
                    replicaKey.databaseValue, version.storageValue.databaseValue,
                ] + selection.arguments))
        try db.cachedStatement(
            sql: "DELETE FROM fieldClock WHERE entity = ? AND rowId IN (\(selection.sql))"
        ).execute(
            arguments: StatementArguments([entity.rawValue.databaseValue] + selection.arguments))
        entitiesWithoutTombstones.remove(entity)
    }

    /// Re-creating a row whose id is derived from a name clears that name's old tombstone: the newer
    /// write wins, as any field's would.
    func clearTombstone(_ entity: Entity, id: String) throws {
        guard entity.deletion == .lastWriterWins, !entitiesWithoutTombstones.contains(entity) else { return }
        let any = try context.count(
            "SELECT COUNT(*) FROM (SELECT 1 FROM tombstone WHERE entity = ? LIMIT 1)",
            [entity.rawValue])
        guard any > 0 else {
            entitiesWithoutTombstones.insert(entity)
            return
        }
        try db.cachedStatement(sql: "DELETE FROM tombstone WHERE entity = ? AND rowId = ?")
            .execute(arguments: [entity.rawValue, id])
    }

    /// A row made here again under a name-derived id (a tag deleted on another device, say) replaces
    /// what this store held aside of it: the write's clock is newer than any clock the store has seen,
    /// so every held field loses to it, as it does where the new row arrives. Rows held waiting for it
    /// are placed when the transaction finishes, as its arrival places them on every other device.
    func supersedeHeld(_ entity: Entity, id: String) throws {
        guard entity.deletion == .lastWriterWins, try mayHoldRows() else { return }
        try db.cachedStatement(sql: "DELETE FROM heldRow WHERE entity = ? AND rowId = ?")
            .execute(arguments: [entity.rawValue, id])
        if !entity.children.isEmpty { madeAgain.append(RecordKey(entity, id)) }
    }

    /// Whether any row is held aside; asked once per transaction (usually none are).
    func mayHoldRows() throws -> Bool {
        if let known = heldRowsExist { return known }
        let exists = try context.count("SELECT EXISTS (SELECT 1 FROM heldRow)", []) > 0
        heldRowsExist = exists
        return exists
    }

    /// Places the held rows that waited for rows this transaction made again, then writes the
    /// transaction's history row, when it changed anything.
    func finish() throws {
        if !madeAgain.isEmpty {
            var applier = try ChangeApplier(self, for: ChangeSet(accountId: context.accountId, replicaId: replicaId))
            for key in madeAgain { try applier.attachChildren(of: key.entity, key.id) }
            madeAgain = []
        }
        guard let summary = batch.json else { return }
        try db.cachedStatement(
            sql: "INSERT INTO changeBatch (hlc, replica, origin, summary) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [
            (batch.timestamp ?? timestamp).storageValue, batch.replicaKey ?? replicaKey, batch.origin, summary,
        ])
    }
}

/// Rows of one entity (`FROM` clause and arguments): how a cascade is walked.
struct RowSelection {
    let entity: Entity
    /// `table WHERE …`.
    let from: String
    let arguments: [DatabaseValue]

    /// The rows' wire ids.
    var sql: String { "SELECT \(entity.idExpression) FROM \(from)" }
}

/// One column an update sets, with the synced field it belongs to (nil: a lookup column derived
/// from a field, or a column sync does not carry).
struct ColumnWrite {
    let column: String
    let field: SyncedField?
    let value: (any DatabaseValueConvertible)?
}

/// What one prepared insert or update is for: a table and its column list (hashed as they are,
/// without joining them into a string at every row).
struct StatementKey: Hashable {
    var entity: Entity
    var columns: [String]
}

/// The SQL of the inserts and updates change capture runs, made once per process for each table
/// and column list: an answer is a transaction of one insert and one update, and building their text
/// from the registry was a third of logging the review.
enum StatementTexts {
    enum Kind: Hashable { case insert, update }

    private static let texts = Mutex<[Kind: [StatementKey: String]]>([:])

    static func text(for key: StatementKey, _ kind: Kind, make: (StatementKey) -> String) -> String {
        if let text = texts.withLock({ $0[kind]?[key] }) { return text }
        let text = make(key)
        texts.withLock { $0[kind, default: [:]][key] = text }
        return text
    }
}

/// Inserts rows of one table with one prepared statement, stamping each with the transaction's
/// clock: the batch path. Values are bound straight to SQLite, which halves the cost per row of
/// GRDB's general-purpose argument binding.
struct RowInserter {
    /// Unowned: the transaction's context keeps the inserters it made (`WriteContext.inserter`), and
    /// a strong reference back would keep both, and the prepared statement, past the transaction
    /// (a connection holding an unfinalized statement cannot close).
    unowned let context: WriteContext
    let entity: Entity
    let statement: FastStatement

    init(_ context: WriteContext, _ entity: Entity, columns: [String]) throws {
        self.context = context
        self.entity = entity
        let sql = StatementTexts.text(for: StatementKey(entity: entity, columns: columns), .insert) { key in
            let identity = entity.identity == .uuid ? ["id"] : []
            let sync = [SyncColumns.timestamp, SyncColumns.replica, SyncColumns.version]
            let names = sync + (identity + key.columns).map(entity.storedColumn)
            let marks =
                (Array(repeating: "?", count: sync.count) + (identity + key.columns).map(entity.valueExpression))
                .joined(separator: ", ")
            return "INSERT INTO \(entity.table) (\(names.joined(separator: ", "))) VALUES (\(marks))"
        }
        let stamp = context.timestamp.storageValue.databaseValue
        statement = try FastStatement(context.db, sql, leading: [stamp, context.replicaKey.databaseValue, stamp])
    }

    func insert(id: String, _ values: some Collection<DatabaseValue>) throws {
        try context.clearTombstone(entity, id: id)
        try context.supersedeHeld(entity, id: id)
        if entity.identity == .uuid {
            try statement.execute(first: id.databaseValue, values)
        } else {
            try statement.execute(values)
        }
        context.batch.note(entity, id: id, .insert, fields: [])
    }
}

/// Inserts rows given column by column (`[(.front, value), …]`), so a column and its value are
/// written side by side: a batch's rows name the same columns, and the prepared insert is looked up
/// again only when a row's columns differ from the last row's.
final class TableInserter<Column: TableColumn> {
    private unowned let context: WriteContext
    private var last: (columns: [Column], inserter: RowInserter)?

    init(_ context: WriteContext, _ table: Table<Column>) { self.context = context }

    func insert(id: String, _ row: [(Column, DatabaseValue)]) throws {
        // Closures, not key paths (`\.1`): a tuple's key path was projected through generic
        // metadata at every value, a fifth of a 10,000-card insert.
        let inserter: RowInserter
        if let last, last.columns.elementsEqual(row.lazy.map { $0.0 }) {
            inserter = last.inserter
        } else {
            let columns = row.map { $0.0 }
            inserter = try context.inserter(Table<Column>(), columns: columns)
            last = (columns, inserter)
        }
        try inserter.insert(id: id, row.lazy.map { $0.1 })
    }
}

/// What one transaction changed, kept small: every row up to `detailLimit`, then counts only. A
/// 100,000-card import is one history entry saying so, not 100,000.
struct BatchSummary {
    enum Operation: String { case insert, update, delete }

    static let detailLimit = 20
    var origin = "local"
    /// For applied change sets: the sender and its newest clock (local writes: the transaction's).
    var replicaKey: Int64?
    var timestamp: HLCTimestamp?
    private(set) var changes: [(entity: Entity, id: String, operation: Operation, fields: [String])] = []
    /// Counted by entity and operation, named only when written: a name made at every row was a
    /// string built 300,000 times by a large import.
    private var counts: [CountKey: Int] = [:]

    private struct CountKey: Hashable {
        let entity: Entity
        let operation: Operation
    }

    mutating func note(_ entity: Entity, id: String, _ operation: Operation, fields: [String]) {
        counts[CountKey(entity: entity, operation: operation), default: 0] += 1
        if changes.count < Self.detailLimit { changes.append((entity, id, operation, fields)) }
    }

    var json: String? {
        guard !counts.isEmpty else { return nil }
        let rows: [JSONValue] = changes.map { change in
            .object([
                "entity": .string(change.entity.rawValue), "id": .string(change.id),
                "operation": .string(change.operation.rawValue), "fields": .array(change.fields.map(JSONValue.string)),
            ])
        }
        return JSONValue.object([
            "changes": .array(rows),
            "counts": .object(
                Dictionary(
                    uniqueKeysWithValues: counts.map { key, count in
                        ("\(key.entity.rawValue) \(key.operation.rawValue)", JSONValue.int(Int64(count)))
                    })),
        ]).jsonText
    }
}
