/// A field's value as last written, with its clock. Single-column fields hold the value; composite
/// fields hold an object of their columns.
public struct FieldChange: Sendable, Equatable {
    public var value: JSONValue
    public var clock: WriteClock

    public init(value: JSONValue, clock: WriteClock) {
        self.value = value
        self.clock = clock
    }

    /// The merge rule of one field, the same on every replica: the value with the greater clock (HLC,
    /// then replica id) wins. Equal clocks mean the same write, except in a damaged or forged change
    /// set: then the greater value (as JSON text) wins, so replicas still agree.
    public func wins(over ours: FieldChange) -> Bool {
        clock > ours.clock || (clock == ours.clock && value.jsonText > ours.value.jsonText)
    }
}

/// A row as the sender holds it: every field with its clock, and the clock of the row's creation.
/// Whole rows travel (not only the fields that changed) so a receiver that missed the creation can
/// still make the row. `Entity` names the table: `SyncedEntity` natively, the registry's names in
/// the browser.
public struct ReplicaRow<Entity: Hashable & Sendable>: Sendable, Equatable {
    public var entity: Entity
    public var id: String
    public var created: WriteClock
    public var fields: [String: FieldChange]

    public init(entity: Entity, id: String, created: WriteClock, fields: [String: FieldChange]) {
        self.entity = entity
        self.id = id
        self.created = created
        self.fields = fields
    }

    /// Field by field, the winner of `FieldChange.wins(over:)`; the row's creation clock is the
    /// greater of the two. Whatever order replicas see writes in, they reach the same row.
    public func merged(with incoming: ReplicaRow) -> ReplicaRow {
        var merged = self
        merged.created = max(created, incoming.created)
        for (name, theirs) in incoming.fields {
            guard let ours = fields[name] else {
                merged.fields[name] = theirs
                continue
            }
            if theirs.wins(over: ours) { merged.fields[name] = theirs }
        }
        return merged
    }
}

extension HLCTimestamp {
    /// The newest clock a set of rows and deletes carries (`.zero` for none): what a replica's clock
    /// receives before it merges them.
    public static func newest<Entity>(rows: [ReplicaRow<Entity>], tombstones: [ReplicaTombstone<Entity>])
        -> HLCTimestamp
    {
        var newest = HLCTimestamp.zero
        for row in rows {
            newest = max(newest, row.created.timestamp)
            for field in row.fields.values { newest = max(newest, field.clock.timestamp) }
        }
        for tombstone in tombstones { newest = max(newest, tombstone.clock.timestamp) }
        return newest
    }
}

/// A deleted row.
public struct ReplicaTombstone<Entity: Hashable & Sendable>: Sendable, Equatable {
    public var entity: Entity
    public var id: String
    public var clock: WriteClock

    public init(entity: Entity, id: String, clock: WriteClock) {
        self.entity = entity
        self.id = id
        self.clock = clock
    }

    /// Of two deletes of one record, the later (HLC, then replica id): a record deleted twice is
    /// deleted with the same clock everywhere.
    public func merged(with other: ReplicaTombstone) -> ReplicaTombstone { other.clock > clock ? other : self }
}

/// A record of any entity: an entity and the id it is named by.
public struct ReplicaKey<Entity: Hashable & Sendable>: Hashable, Sendable {
    public var entity: Entity
    public var id: String

    public init(_ entity: Entity, _ id: String) {
        self.entity = entity
        self.id = id
    }
}

extension ReplicaKey: Comparable where Entity: RawRepresentable, Entity.RawValue == String {
    public static func < (lhs: ReplicaKey, rhs: ReplicaKey) -> Bool {
        (lhs.entity.rawValue, lhs.id) < (rhs.entity.rawValue, rhs.id)
    }
}
