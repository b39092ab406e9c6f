import CardboxCore
import CardboxSync
import GRDB

/// Which records of a change set this store already has in any form (live, held aside or
/// tombstoned), read in a few queries per entity before the set is applied. A record the store
/// does not have needs none of the lookups `ChangeApplier` otherwise makes for each one (its
/// tombstone, its live row, its held row): in a first sync that is nearly every record, and those
/// lookups were most of the time.
struct KnownRecords {
    private var keys: Set<RecordKey> = []

    init(_ changes: ChangeSet, _ db: Database) throws {
        var ids: [SyncedEntity: Set<String>] = [:]
        for row in changes.rows { ids[row.entity, default: []].insert(row.id) }
        for tombstone in changes.tombstones { ids[tombstone.entity, default: []].insert(tombstone.id) }
        for (entity, entityIds) in ids {
            try readLive(entity, entityIds, db)
            try readAside(entity, entityIds, db)
        }
    }

    func contains(_ entity: SyncedEntity, _ id: String) -> Bool { keys.contains(RecordKey(entity, id)) }

    /// Notes a record the apply has just made live, held or tombstoned.
    mutating func insert(_ entity: SyncedEntity, _ id: String) { keys.insert(RecordKey(entity, id)) }

    /// Live rows, found by the first column of their identity (a card–tag link by its card).
    private mutating func readLive(_ entity: SyncedEntity, _ ids: Set<String>, _ db: Database) throws {
        var leading: Set<String> = []
        for id in ids {
            guard let first = RecordID.parts(id, of: entity)?.first else {
                insert(entity, id)  // malformed: left to the one-by-one path, which names it
                continue
            }
            leading.insert(first)
        }
        let found = try String.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(entity.idExpression) FROM \(entity.table)
                    WHERE \(entity.membership(entity.identityColumns[0], in: "SELECT value FROM json_each(?)"))
                    """), arguments: [Self.jsonArray(leading)])
        for id in found where ids.contains(id) { insert(entity, id) }
    }

    private mutating func readAside(_ entity: SyncedEntity, _ ids: Set<String>, _ db: Database) throws {
        for table in ["tombstone", "heldRow"] {
            let found = try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT rowId FROM \(table)
                        WHERE entity = ? AND rowId IN (SELECT value FROM json_each(?))
                        """), arguments: [entity.rawValue, Self.jsonArray(ids)])
            for id in found { insert(entity, id) }
        }
    }

    /// The ids go in as one JSON array (as `RowReader.fieldClocks` does), so each statement is
    /// prepared once, whatever their number.
    private static func jsonArray(_ ids: Set<String>) -> String { JSONValue.array(ids.map(JSONValue.string)).jsonText }
}
