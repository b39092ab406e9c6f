/// An account's records held by name (the browser's replica): every row and tombstone it has seen,
/// merged by `RecordMerge`, and which of them a person sees, by the rules a device store keeps.
public struct ReplicaRecords {
    public let schema: ReplicaSchema
    public private(set) var records = RecordMerge<NamedEntity>()

    public init(schema: ReplicaSchema) { self.schema = schema }

    /// Merges a change set: its deletes, then its rows. Any order of the same sets gives the same records.
    public mutating func apply(_ changes: WireChanges) {
        for tombstone in changes.tombstones { records.merge(tombstone) }
        for row in changes.rows { records.merge(schema.typed(row)) }
    }

    /// Whether a device shows the record: it is live (`RecordMerge.isLive`) and so is every parent it
    /// names. A row whose parent is deleted or not yet here is held by a device, not shown.
    public func isVisible(_ key: RecordMerge<NamedEntity>.Key) -> Bool {
        guard records.isLive(key), let row = records.rows[key] else { return false }
        for parent in schema.parents(of: key.entity) {
            guard let parentId = parent.parentId(in: row) else { continue }
            guard let entity = schema.entity(named: parent.entity), isVisible(.init(entity, parentId)) else {
                return false
            }
        }
        return true
    }

    /// Every visible row, each field with its value and clock, entities in the schema's order and rows
    /// by id: the text a device store's `canonicalDump()` gives when it holds the same records.
    public func canonicalDump() -> String {
        var rowsByEntity: [String: [ReplicaRow<NamedEntity>]] = [:]
        for (key, row) in records.rows where isVisible(key) {
            rowsByEntity[key.entity.rawValue, default: []].append(row)
        }
        var lines: [String] = []
        for entity in schema.entities {
            for row in (rowsByEntity[entity.name] ?? []).sorted(by: { $0.id < $1.id }) { lines.append(row.recordJSON) }
        }
        var text = ""
        for (index, line) in lines.enumerated() {
            if index > 0 { text += "\n" }
            text += line
        }
        return text
    }
}
