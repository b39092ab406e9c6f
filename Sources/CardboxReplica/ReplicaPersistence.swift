/// What a replica keeps between runs (the browser keeps it in IndexedDB): every record it holds, and
/// which of them wait to be sent, both in the wire form.
extension ReplicaRecords {
    /// Every row and tombstone held, as one change set in the wire form.
    public func savedText(accountId: String, registry: Int) -> String {
        WireChanges.text(
            accountId: accountId, replicaId: replicaId, registry: registry, rows: Array(records.rows.values),
            tombstones: Array(records.tombstones.values))
    }

    /// Starts again from what `savedText` and `pendingText` wrote: the records, the pending ones
    /// pending again in their order, and the clock at the newest timestamp held, so every write
    /// here sorts after everything this replica has seen or written.
    public mutating func restore(saved: WireChanges, pending: WireChanges) {
        apply(saved)
        apply(pending)
        for row in pending.rows { markPending(Key(row.entity, row.id)) }
        for tombstone in pending.tombstones { markPending(Key(tombstone.entity, tombstone.id)) }
        let rows = Array(records.rows.values)
        let tombstones = Array(records.tombstones.values)
        restoreClock(at: HLCTimestamp.newest(rows: rows, tombstones: tombstones))
    }
}
