import CardboxSync
import GRDB

/// Which records of a change set this store already has in any form (live, held aside or
/// tombstoned), read in a few queries per entity before the set is applied. A record the store
/// does not have needs none of the lookups `ChangeApplier` otherwise makes for each one (its
/// tombstone, its live row, its held row): in a first sync that is nearly every record, and those
/// lookups were most of the time.
struct KnownRecords {
    private var keys: Set<RecordKey> = []
    /// Records per query: well under SQLite's limit on bound values.
    private static let chunkSize = 500

    init(_ changes: ChangeSet, _ db: Database, account: String) throws {
        var ids: [SyncedEntity: Set<String>] = [:]
        for row in changes.rows { ids[row.entity, default: []].insert(row.id) }
        for tombstone in changes.tombstones { ids[tombstone.entity, default: []].insert(tombstone.id) }
        for (entity, entityIds) in ids {
            try readLive(entity, entityIds, db, account)
            try readAside(entity, entityIds, db, account)
        }
    }

    func contains(_ entity: SyncedEntity, _ id: String) -> Bool { keys.contains(RecordKey(entity: entity, id: id)) }

    /// Notes a record the apply has just made live, held or tombstoned.
    mutating func insert(_ entity: SyncedEntity, _ id: String) { keys.insert(RecordKey(entity: entity, id: id)) }

    /// Live rows, found by the first column of their identity (a card–tag link by its card).
    private mutating func readLive(_ entity: SyncedEntity, _ ids: Set<String>, _ db: Database, _ account: String)
        throws
    {
        var leading: Set<String> = []
        for id in ids {
            guard let first = RecordID.parts(id, of: entity)?.first else {
                insert(entity, id)  // malformed: left to the one-by-one path, which names it
                continue
            }
            leading.insert(first)
        }
        let column = entity.identityColumns[0]
        for chunk in Self.chunks(of: leading) {
            let found = try String.fetchAll(
                db,
                sql: """
                    SELECT \(entity.idExpression) FROM \(entity.table)
                    WHERE \(entity.accountCondition) AND \(column) IN (\(Self.marks(chunk.count)))
                    """, arguments: StatementArguments([account] + chunk))
            for id in found where ids.contains(id) { insert(entity, id) }
        }
    }

    private mutating func readAside(_ entity: SyncedEntity, _ ids: Set<String>, _ db: Database, _ account: String)
        throws
    {
        for table in ["tombstone", "heldRow"] {
            for chunk in Self.chunks(of: ids) {
                let found = try String.fetchAll(
                    db,
                    sql: """
                        SELECT rowId FROM \(table)
                        WHERE accountId = ? AND entity = ? AND rowId IN (\(Self.marks(chunk.count)))
                        """, arguments: StatementArguments([account, entity.rawValue] + chunk))
                for id in found { insert(entity, id) }
            }
        }
    }

    private static func chunks(of values: Set<String>) -> [[String]] {
        let all = Array(values)
        return stride(from: 0, to: all.count, by: chunkSize).map { Array(all[$0..<min($0 + chunkSize, all.count)]) }
    }

    private static func marks(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }
}

/// A record of any entity, as a set's member.
struct RecordKey: Hashable {
    let entity: SyncedEntity
    let id: String
}
