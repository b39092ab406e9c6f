import CardboxCore
import CardboxSync

/// What one push changes in an account's sync state, decided from the records it names as they are
/// stored, with the merge every replica uses (`RecordMerge`, which a browser's replica runs too). Pure: each database reads the stored records, asks the
/// plan, and writes what it says in the same transaction, so the rule lives in one place.
package struct PushPlan {
    /// The records the push names: what a database reads before planning.
    package static func keys(of changes: ChangeSet) -> [RecordKey] {
        Array(
            Set(
                changes.tombstones.map { RecordKey($0.entity, $0.id) }
                    + changes.rows.map { RecordKey($0.entity, $0.id) })
        )
        .sorted()
    }

    /// Rows to insert or replace, each with its new sequence number.
    package private(set) var rows: [(row: RowChange, seq: Int64)] = []
    /// Tombstones to insert or replace, each with its new sequence number.
    package private(set) var tombstones: [(tombstone: Tombstone, seq: Int64)] = []
    /// Rows a final delete removes for good.
    package private(set) var deletedRows: [RecordKey] = []
    /// The account's last sequence number after the push.
    package private(set) var lastSeq: Int64
    /// The account's last sequence number before it.
    package let previousSeq: Int64
    /// Cards the push makes and removes: what the plan's card limit counts.
    private(set) var cardsAdded = 0
    private(set) var cardsRemoved = 0

    /// Merges `changes` into the stored records (those of `keys(of:)` that exist), deletes first:
    /// a final delete drops the record's fields and refuses every later write to it. Each record
    /// the push changes gets the next sequence number after `lastSeq`, so a pull after any cursor
    /// finds it; a push that changes nothing takes none.
    package init(
        _ changes: ChangeSet, storedRows: [RecordKey: RowChange], storedTombstones: [RecordKey: Tombstone],
        lastSeq: Int64
    ) {
        self.lastSeq = lastSeq
        self.previousSeq = lastSeq
        var state = RecordMerge(rows: storedRows, tombstones: storedTombstones)
        var changedRows = OrderedKeys()
        var changedTombstones = OrderedKeys()
        for incoming in changes.tombstones {
            let key = RecordKey(incoming.entity, incoming.id)
            let outcome = state.merge(incoming)
            if outcome.tombstoneChanged { changedTombstones.insert(key) }
            if outcome.removedRow != nil {
                deletedRows.append(key)
                if key.entity == .card { cardsRemoved += 1 }
            }
        }
        for incoming in changes.rows {
            let outcome = state.merge(incoming)
            guard outcome != .unchanged else { continue }
            if incoming.entity == .card, outcome == .added { cardsAdded += 1 }
            changedRows.insert(RecordKey(incoming.entity, incoming.id))
        }
        for key in changedTombstones.keys {
            self.lastSeq += 1
            tombstones.append((state.tombstones[key]!, self.lastSeq))
        }
        for key in changedRows.keys {
            self.lastSeq += 1
            rows.append((state.rows[key]!, self.lastSeq))
        }
    }

}

/// Keys in the order they were first inserted, each once.
private struct OrderedKeys {
    private(set) var keys: [RecordKey] = []
    private var seen: Set<RecordKey> = []

    mutating func insert(_ key: RecordKey) {
        if seen.insert(key).inserted { keys.append(key) }
    }
}

extension PushPlan {
    /// Seed 001's limit, on the account's merged state: a push that would take the account past its
    /// card limit is refused whole, with seed 001's message. A push that adds no cards passes even
    /// when the account is over the limit (after a move back to the free plan), so edits still sync.
    package func checkCardLimit(_ limit: Int?, cardsBefore: Int) throws {
        guard let limit, cardsAdded > cardsRemoved else { return }
        try CardAllowance(plan: .free, cardCount: cardsBefore, freeCardLimit: limit)
            .checkCanAdd(batchOf: cardsAdded - cardsRemoved)
    }
}
