/// What a replica keeps between runs (the browser keeps it in IndexedDB): its records, as a
/// snapshot of them all (`savedText`) and a journal of what each save since changed (a pull page as
/// it came, the records a write made here: `pendingText(since:)`), and which records wait to be
/// sent (`pendingText`), all in the wire form. Merging is idempotent and the order of change sets
/// does not matter, so the snapshot and the journal's entries merge back into the same records.
extension ReplicaRecords {
    /// Every row and tombstone held, as one change set in the wire form.
    public func savedText(accountId: String, registry: Int) -> String {
        WireChanges.text(
            accountId: accountId, replicaId: replicaId, registry: registry, rows: Array(records.rows.values),
            tombstones: Array(records.tombstones.values))
    }

    /// Merges something kept (the snapshot or an entry of the journal), the clock moved past every
    /// timestamp in it, so every write here sorts after everything this replica has seen or written.
    public mutating func restore(_ kept: WireChanges) {
        apply(kept)
        restoreClock(at: HLCTimestamp.newest(rows: kept.rows, tombstones: kept.tombstones))
    }

    /// Takes what waits to be sent from what `pendingText` wrote: those records pending again, in
    /// their order, and no others (another tab may have sent some since).
    public mutating func resume(pending kept: WireChanges) {
        pending = [:]
        restore(kept)
        for row in kept.rows { markPending(Key(row.entity, row.id)) }
        for tombstone in kept.tombstones { markPending(Key(tombstone.entity, tombstone.id)) }
    }
}
