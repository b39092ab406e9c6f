import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// Merges another replica's rows and tombstones into this store, inside one write transaction.
///
/// The state it reaches is a function of the set of changes seen, never of their order:
/// - each field keeps the value with the greatest clock (HLC, then replica id);
/// - a row is live when it is not deleted and every parent it names is live; otherwise it is held
///   aside (`heldRow`) with all its fields and clocks, so a later change can still merge into it and
///   bring it back (its parent arrives; a move takes it out of a deleted column);
/// - a final tombstone deletes its row whatever arrives later, and with it every child that cannot
///   move away; children that can move are held, not deleted.
/// See docs/sync.md for each rule and why.
struct ChangeApplier {
    let tx: WriteContext
    var report = ApplyReport()
    private var replicaKeys: [String: Int64] = [:]
    /// What the store already has of the change set being applied.
    private var known: KnownRecords
    /// Whether any row may be held aside, waiting for a parent (none usually are).
    private var mayHoldRows: Bool
    /// Rows known to be live, so a thousand cards of one deck ask for it once; forgotten whenever
    /// a row leaves.
    private var live: Set<RecordKey> = []
    private var inserts: [InsertShape: FastStatement] = [:]

    /// Rows of one entity with one set of columns: the derived ones are there only when their
    /// source has a value, which is the one way the columns of an entity's rows differ.
    private struct InsertShape: Hashable {
        let entity: SyncedEntity
        let columnCount: Int
    }

    init(_ tx: WriteContext, for changes: ChangeSet) throws {
        self.tx = tx
        known = try KnownRecords(changes, tx.db)
        mayHoldRows = try tx.mayHoldRows()
    }

    /// Applies the tombstones, then the rows.
    mutating func apply(_ changes: ChangeSet) throws {
        for tombstone in changes.tombstones {
            try Self.describing(tombstone.entity, tombstone.id) { try apply(tombstone) }
        }
        for row in changes.rows {
            try Self.describing(row.entity, row.id) { try apply(row) }
        }
    }

    private var db: Database { tx.db }

    /// Runs `body`, naming the record in any error the database raises.
    private static func describing(_ entity: SyncedEntity, _ id: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as DatabaseError {
            throw CardboxError.invalid(
                field: "changes \(entity.rawValue) \(id)",
                reason: "cannot be applied: \(error.message ?? error.description)")
        }
    }

    mutating func replicaKey(_ replicaId: String) throws -> Int64 {
        if let key = replicaKeys[replicaId] { return key }
        let key = try CardboxStore.replicaKey(db, replicaId)
        replicaKeys[replicaId] = key
        return key
    }

    // MARK: Rows

    mutating func apply(_ incoming: RowChange) throws {
        let entity = incoming.entity
        // New here: nothing to merge with, no delete to respect.
        guard known.contains(entity, incoming.id) else { return try place(incoming, version: 0, wasHeld: false) }
        let tombstone = try tombstoneClock(entity, incoming.id)
        if tombstone != nil && entity.deletion == .final { return }
        if let local = try liveRow(entity, incoming.id) {
            let merged = local.merged(with: incoming)
            if merged != local { try update(local, to: merged) }
            return
        }
        let held = try heldRow(entity, incoming.id)
        let merged = held.map { $0.row.merged(with: incoming) } ?? incoming
        if let tombstone, merged.created <= tombstone {
            // Deleted (a name-derived record made no later than its delete), but its field writes
            // newer than the delete must survive a later re-creation: kept aside.
            if merged != held?.row { try hold(merged, waitingFor: HeldRow.deletedMarker, version: held?.version ?? 0) }
            return
        }
        try place(merged, version: held?.version ?? 0, wasHeld: held != nil)
    }

    /// Writes the fields that changed into a live row; a move to a parent that is not live takes the
    /// row (and its children) aside instead.
    private mutating func update(_ local: RowChange, to merged: RowChange) throws {
        let entity = merged.entity
        let changed = entity.fields.filter { merged.fields[$0.name] != local.fields[$0.name] }
        for reference in entity.parents
        where changed.contains(where: { $0.columns.contains { $0.name == reference.column } }) {
            if let parentId = Self.parentId(merged, reference), try !isLive(reference.parent, parentId) {
                try detach(
                    merged, waitingFor: HeldRow.waitKey(reference.parent, parentId),
                    version: try storedVersion(entity, merged.id))
                return
            }
        }
        var assignments: [(String, DatabaseValue)] = []
        for field in changed { assignments += WireValue.columns(field, merged.fields[field.name]!.value) }
        assignments += Self.derived(entity, assignments)
        if merged.created != local.created {
            assignments += [
                (SyncColumns.timestamp, merged.created.timestamp.storageValue.databaseValue),
                (SyncColumns.replica, try replicaKey(merged.created.replicaId).databaseValue),
            ]
        }
        if !assignments.isEmpty {
            // Cached by the columns it sets: a device's pulls update the same few fields again and again.
            try db.cachedStatement(
                sql:
                    "UPDATE \(entity.table) SET \(assignments.map { entity.binding($0.0) }.joined(separator: ", ")) WHERE \(entity.rowCondition)"
            ).execute(
                arguments: StatementArguments(
                    assignments.map { $0.1 } + entity.rowArguments(id: merged.id)))
        }
        let clocksToWrite = merged.created != local.created ? entity.fields : changed
        try writeFieldClocks(merged, fields: clocksToWrite)
        report.updated += 1
        tx.batch.note(entity, id: merged.id, .update, fields: changed.map(\.name))
    }

    /// Makes a row live when its parents are, deletes it when a parent it cannot leave is deleted
    /// for good, and otherwise holds it until that parent arrives.
    private mutating func place(_ row: RowChange, version: Int64, wasHeld: Bool) throws {
        for reference in row.entity.parents {
            guard let parentId = Self.parentId(row, reference) else { continue }
            if try isLive(reference.parent, parentId) { continue }
            if !reference.isMovable, reference.parent.deletion == .final,
                let clock = try tombstoneClock(reference.parent, parentId)
            {
                try writeTombstone(row.entity, row.id, clock, derived: true)
                try dropHeld(row.entity, row.id)
                return
            }
            try hold(row, waitingFor: HeldRow.waitKey(reference.parent, parentId), version: version)
            if !wasHeld { report.held += 1 }
            return
        }
        try insert(row, version: version)
        if wasHeld || known.contains(row.entity, row.id) { try dropHeld(row.entity, row.id) }
        report.inserted += 1
        tx.batch.note(row.entity, id: row.id, .insert, fields: [])
        try attachChildren(of: row.entity, row.id)
    }

    private mutating func insert(_ row: RowChange, version: Int64) throws {
        let entity = row.entity
        var columns: [(String, DatabaseValue)] = []
        for field in entity.fields { columns += WireValue.columns(field, row.fields[field.name]!.value) }
        columns += Self.derived(entity, columns)
        columns += entity.localColumns(now: tx.nowMillis)
        var values: [DatabaseValue] = []
        values.reserveCapacity(columns.count + 4)
        if entity.identity == .uuid { values.append(row.id.databaseValue) }
        for (_, value) in columns { values.append(value) }
        values += [
            row.created.timestamp.storageValue.databaseValue, try replicaKey(row.created.replicaId).databaseValue,
            version.databaseValue,
        ]
        try insertStatement(entity, columns: columns).execute(values)
        known.insert(entity, row.id)
        live.insert(RecordKey(entity, row.id))
        // A row that was not in the table has no field clocks (they leave with it when it is deleted
        // or held): only fields written after the row was made need one. A first sync inserts every
        // row, and one delete per field made it a third slower.
        try writeFieldClocks(row, fields: entity.fields.filter { row.fields[$0.name]!.clock != row.created })
    }

    /// The prepared insert for rows of `entity` with these columns (the columns derived from a
    /// field are there only when it has a value), made once per apply: a first sync inserts tens of
    /// thousands of rows of a few shapes.
    private mutating func insertStatement(_ entity: SyncedEntity, columns: [(String, DatabaseValue)]) throws
        -> FastStatement
    {
        let shape = InsertShape(entity: entity, columnCount: columns.count)
        if let statement = inserts[shape] { return statement }
        let wireColumns = (entity.identity == .uuid ? ["id"] : []) + columns.map { $0.0 }
        let names =
            wireColumns.map(entity.storedColumn) + [SyncColumns.timestamp, SyncColumns.replica, SyncColumns.version]
        let marks = (wireColumns.map(entity.valueExpression) + ["?", "?", "?"]).joined(separator: ", ")
        let statement = try FastStatement(
            db, "INSERT INTO \(entity.table) (\(names.joined(separator: ", "))) VALUES (\(marks))", leading: [])
        inserts[shape] = statement
        return statement
    }

    /// Children held because this row was not live may now be placed.
    mutating func attachChildren(of entity: SyncedEntity, _ id: String) throws {
        guard mayHoldRows else { return }
        let waiting = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT row, version FROM heldRow WHERE waitingFor = ?"),
            arguments: [HeldRow.waitKey(entity, id)])
        for held in waiting {
            try place(try HeldRow.decode(held["row"]), version: held["version"], wasHeld: true)
        }
    }

    /// Clocks equal to the row's creation clock are implied; others are kept in `fieldClock`.
    private mutating func writeFieldClocks(_ row: RowChange, fields: [SyncedField]) throws {
        for field in fields {
            let clock = row.fields[field.name]!.clock
            if clock == row.created {
                try db.cachedStatement(
                    sql: "DELETE FROM fieldClock WHERE entity = ? AND rowId = ? AND field = ?"
                ).execute(arguments: [row.entity.rawValue, row.id, field.name])
            } else {
                try tx.setFieldClock(
                    row.entity, id: row.id, field: field.name, clock, replicaKey: try replicaKey(clock.replicaId))
            }
        }
    }

    // MARK: Tombstones

    mutating func apply(_ tombstone: Tombstone) throws {
        let entity = tombstone.entity
        if let existing = try tombstoneClock(entity, tombstone.id) {
            if entity.deletion == .final || existing >= tombstone.clock {
                // The server has the row deleted already: one deleted here (derived from its
                // parent's delete a moment ago, say) need not be sent back, unless ours is newer.
                if entity.deletion == .final || existing == tombstone.clock { try markSent(entity, tombstone.id) }
                return
            }
        }
        try writeTombstone(entity, tombstone.id, tombstone.clock)
        if let live = try liveRow(entity, tombstone.id) {
            guard entity.deletion == .final || live.created <= tombstone.clock else { return }
            let version = try storedVersion(entity, live.id)
            try remove(live, cause: tombstone.clock)
            if entity.deletion == .lastWriterWins {
                try hold(live, waitingFor: HeldRow.deletedMarker, version: version)
            }
            report.deleted += 1
            tx.batch.note(entity, id: tombstone.id, .delete, fields: [])
        } else if let held = try heldRow(entity, tombstone.id),
            entity.deletion == .final || held.row.created <= tombstone.clock
        {
            if entity.deletion == .final {
                try dropHeld(entity, tombstone.id)
            } else {
                try hold(held.row, waitingFor: HeldRow.deletedMarker, version: held.version)
            }
        }
    }

    /// Removes a live row because it was deleted: children that cannot leave a finally deleted parent
    /// are deleted with it (tombstoned with the same clock); the others are held, waiting for it.
    private mutating func remove(_ row: RowChange, cause clock: WriteClock) throws {
        for (child, reference) in row.entity.children {
            for childId in try liveChildren(child, reference, of: row.id) {
                guard let childRow = try liveRow(child, childId) else { continue }
                if reference.isMovable || row.entity.deletion != .final {
                    try detach(
                        childRow, waitingFor: HeldRow.waitKey(row.entity, row.id),
                        version: try storedVersion(child, childId))
                } else {
                    try writeTombstone(child, childId, clock, derived: true)
                    try remove(childRow, cause: clock)
                    report.deleted += 1
                }
            }
        }
        try deleteStored(row)
    }

    /// Takes a live row aside with its children, keeping every field and clock.
    private mutating func detach(_ row: RowChange, waitingFor parentKey: String, version: Int64) throws {
        for (child, reference) in row.entity.children {
            for childId in try liveChildren(child, reference, of: row.id) {
                guard let childRow = try liveRow(child, childId) else { continue }
                try detach(
                    childRow, waitingFor: HeldRow.waitKey(row.entity, row.id),
                    version: try storedVersion(child, childId))
            }
        }
        try deleteStored(row)
        try hold(row, waitingFor: parentKey, version: version)
        report.held += 1
    }

    private mutating func deleteStored(_ row: RowChange) throws {
        live = []
        try db.cachedStatement(sql: "DELETE FROM \(row.entity.table) WHERE \(row.entity.rowCondition)").execute(
            arguments: StatementArguments(row.entity.rowArguments(id: row.id)))
        try db.cachedStatement(sql: "DELETE FROM fieldClock WHERE entity = ? AND rowId = ?").execute(
            arguments: [row.entity.rawValue, row.id])
    }

    /// Writes a tombstone: one that arrived (the server has it) is not sent back; one `derived` here
    /// from the merged state (a row whose parent is deleted for good) is sent on the next push,
    /// with its parent's clock. The server does not know which rows belong to which: without it,
    /// the row would stay live there, and count toward the plan's card limit.
    private mutating func writeTombstone(
        _ entity: SyncedEntity, _ id: String, _ clock: WriteClock, derived: Bool = false
    )
        throws
    {
        known.insert(entity, id)
        try db.cachedStatement(
            sql: """
                INSERT INTO tombstone (entity, rowId, hlc, replica, version) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (entity, rowId) DO UPDATE
                SET hlc = excluded.hlc, replica = excluded.replica, version = MIN(version, excluded.version)
                """
        ).execute(arguments: [
            entity.rawValue, id, clock.timestamp.storageValue, try replicaKey(clock.replicaId),
            derived ? tx.timestamp.storageValue : 0,
        ])
    }

    /// Leaves a tombstone out of the next push: the server holds it.
    private func markSent(_ entity: SyncedEntity, _ id: String) throws {
        try db.cachedStatement(
            sql: "UPDATE tombstone SET version = 0 WHERE entity = ? AND rowId = ? AND version <> 0"
        ).execute(arguments: [entity.rawValue, id])
    }

    // MARK: Reading the local state

    private func tombstoneClock(_ entity: SyncedEntity, _ id: String) throws -> WriteClock? {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT t.hlc, r.id FROM tombstone t JOIN replica r ON r.key = t.replica
                    WHERE t.entity = ? AND t.rowId = ?
                    """), arguments: [entity.rawValue, id])
        return row.map { WriteClock(HLCTimestamp(rawValue: UInt64(bitPattern: $0[0])), $0[1]) }
    }

    private func liveRow(_ entity: SyncedEntity, _ id: String) throws -> RowChange? {
        let condition = entity.rowCondition(table: "t")
        let parts = RecordID.parts(id, of: entity) ?? [id]
        return try RowReader(context: tx.context).rows(entity, where: condition, parts.map(\.databaseValue)).first
    }

    private mutating func isLive(_ entity: SyncedEntity, _ id: String) throws -> Bool {
        let key = RecordKey(entity, id)
        if live.contains(key) { return true }
        let found =
            try tx.context.count(
                "SELECT COUNT(*) FROM \(entity.table) WHERE \(entity.rowCondition)",
                StatementArguments(entity.rowArguments(id: id))) > 0
        if found { live.insert(key) }
        return found
    }

    private func storedVersion(_ entity: SyncedEntity, _ id: String) throws -> Int64 {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT \(SyncColumns.version) FROM \(entity.table) WHERE \(entity.rowCondition)"),
            arguments: StatementArguments(entity.rowArguments(id: id))) ?? 0
    }

    private func liveChildren(_ child: SyncedEntity, _ reference: ParentReference, of id: String) throws -> [String] {
        try String.fetchAll(
            db.cachedStatement(
                sql: "SELECT \(child.idExpression) FROM \(child.table) WHERE \(child.binding(reference.column))"),
            arguments: [id])
    }

    private func heldRow(_ entity: SyncedEntity, _ id: String) throws -> (row: RowChange, version: Int64)? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT row, version FROM heldRow WHERE entity = ? AND rowId = ?"),
                arguments: [entity.rawValue, id])
        else { return nil }
        return (try HeldRow.decode(row["row"]), row["version"])
    }

    private mutating func hold(_ row: RowChange, waitingFor parentKey: String, version: Int64) throws {
        known.insert(row.entity, row.id)
        mayHoldRows = true
        tx.heldRowsExist = true
        try db.cachedStatement(
            sql: """
                INSERT INTO heldRow (entity, rowId, waitingFor, version, row) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (entity, rowId) DO UPDATE
                SET waitingFor = excluded.waitingFor, version = excluded.version, row = excluded.row
                """
        ).execute(arguments: [row.entity.rawValue, row.id, parentKey, version, HeldRow.encode(row)])
    }

    private func dropHeld(_ entity: SyncedEntity, _ id: String) throws {
        try db.cachedStatement(sql: "DELETE FROM heldRow WHERE entity = ? AND rowId = ?").execute(
            arguments: [entity.rawValue, id])
    }

    // MARK: Values

    static func parentId(_ row: RowChange, _ reference: ParentReference) -> String? {
        guard let field = row.entity.field(ofColumn: reference.column), let change = row.fields[field.name] else {
            return nil
        }
        let value: JSONValue
        if field.isComposite {
            guard case .object(let members) = change.value else { return nil }
            value = members[reference.column] ?? .null
        } else {
            value = change.value
        }
        guard case .string(let id) = value else { return nil }
        return id
    }

    /// The lookup columns derived from the columns being written.
    static func derived(_ entity: SyncedEntity, _ values: [(String, DatabaseValue)]) -> [(String, DatabaseValue)] {
        entity.derivedColumns.compactMap { derived in
            guard let source = values.first(where: { $0.0 == derived.source }),
                let text = String.fromDatabaseValue(source.1)
            else { return nil }
            return (derived.column, derived.derive(text).databaseValue)
        }
    }
}
