/// An entity as the merge of records sees it: whether a delete of one of its records is final.
public protocol MergedEntity: Hashable, Sendable {
    /// A final delete (a record with a random id) refuses every later write to the record; any other
    /// (a record named by its fields, which can be made again) is one more write, and the later wins.
    var deletesFinally: Bool { get }
}

/// Records as a holder of an account's whole state keeps them (the server's sync state, a browser's
/// replica): live rows and tombstones, each merged with what arrives by the rules every replica
/// shares, so any order of the same changes leaves the same records.
public struct RecordMerge<Entity: MergedEntity> {
    public typealias Key = ReplicaKey<Entity>

    public private(set) var rows: [Key: ReplicaRow<Entity>]
    public private(set) var tombstones: [Key: ReplicaTombstone<Entity>]

    public init(rows: [Key: ReplicaRow<Entity>] = [:], tombstones: [Key: ReplicaTombstone<Entity>] = [:]) {
        self.rows = rows
        self.tombstones = tombstones
    }

    /// What merging a tombstone did: whether the stored tombstone changed, and the row a final delete
    /// removed.
    public struct DeleteOutcome {
        public let tombstoneChanged: Bool
        public let removedRow: ReplicaRow<Entity>?
    }

    /// Merges a delete: the later of two tombstones stays; a final one drops the record's row for good.
    @discardableResult
    public mutating func merge(_ incoming: ReplicaTombstone<Entity>) -> DeleteOutcome {
        let key = Key(incoming.entity, incoming.id)
        let stored = tombstones[key]
        let merged = stored.map { $0.merged(with: incoming) } ?? incoming
        if merged != stored { tombstones[key] = merged }
        let removed = incoming.entity.deletesFinally ? rows.removeValue(forKey: key) : nil
        return DeleteOutcome(tombstoneChanged: merged != stored, removedRow: removed)
    }

    /// What merging a row did to the stored one.
    public enum RowOutcome: Equatable {
        /// Nothing: the row was refused (its record's delete is final) or already held every value.
        case unchanged
        /// The record had no row: this is its first.
        case added
        case changed
    }

    /// Merges a row field by field into the stored one (`ReplicaRow.merged(with:)`).
    @discardableResult
    public mutating func merge(_ incoming: ReplicaRow<Entity>) -> RowOutcome {
        let key = Key(incoming.entity, incoming.id)
        if incoming.entity.deletesFinally, tombstones[key] != nil { return .unchanged }
        let stored = rows[key]
        let merged = stored.map { $0.merged(with: incoming) } ?? incoming
        guard merged != stored else { return .unchanged }
        rows[key] = merged
        return stored == nil ? .added : .changed
    }

    /// Whether the record is there to see: it has a row, and no delete, or (for a record that can be
    /// made again) only a delete older than the row's making.
    public func isLive(_ key: Key) -> Bool {
        guard let row = rows[key] else { return false }
        guard let tombstone = tombstones[key] else { return true }
        return !key.entity.deletesFinally && row.created > tombstone.clock
    }
}
