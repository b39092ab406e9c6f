/// An account's records held by name (the browser's replica): every row and tombstone it has seen,
/// merged by `RecordMerge`, and which of them a person sees, by the rules a device store keeps.
public struct ReplicaRecords {
    public typealias Key = RecordMerge<NamedEntity>.Key

    public let schema: ReplicaSchema
    /// The replica its own writes are stamped with (`replicaId` of the wire form).
    public let replicaId: String
    public private(set) var records = RecordMerge<NamedEntity>()
    public private(set) var clock = HybridLogicalClock()
    /// Records written here and not yet sent, each with the number of its latest write here.
    public internal(set) var pending: [Key: Int] = [:]
    /// How many writes this replica has made: numbers them for `markSent(through:)`.
    public private(set) var writeCount = 0
    /// The rows that name each record as their parent: a list's items are found without a pass over
    /// every record (a list of a 30,000-record account took 300 ms to draw that way).
    private var children: [ParentReference: Set<Key>] = [:]
    /// The keys of each entity whose rows name no parent (the account, settings, decks, lists,
    /// boards, tags), rows and tombstones: the pages that show them read these, not every record.
    private var topLevel: [String: Set<Key>] = [:]

    /// A record as a row's parent field names it.
    struct ParentReference: Hashable {
        let entity: String
        let id: String
    }

    public init(schema: ReplicaSchema, replicaId: String = "") {
        self.schema = schema
        self.replicaId = replicaId
    }

    /// Merges a change set that arrived at `milliseconds` (wall-clock time), after the clock has seen
    /// its newest timestamp, so every later write here sorts after it. A set stamped more than five
    /// minutes ahead is refused whole, as a device refuses it.
    public mutating func receive(_ changes: WireChanges, milliseconds: UInt64) throws(HybridLogicalClock.TooFarAhead) {
        let newest = HLCTimestamp.newest(rows: changes.rows, tombstones: changes.tombstones)
        if newest > .zero { _ = try clock.receive(newest, milliseconds: milliseconds) }
        apply(changes)
    }

    /// Merges a change set: its deletes, then its rows. Any order of the same sets gives the same records.
    public mutating func apply(_ changes: WireChanges) {
        for tombstone in changes.tombstones { merge(tombstone) }
        for row in changes.rows { merge(schema.typed(row)) }
    }

    /// Merges a row, keeping `children` up to date with the parents it names.
    private mutating func merge(_ row: ReplicaRow<NamedEntity>) {
        let key = Key(row.entity, row.id)
        let before = parentReferences(of: key)
        records.merge(row)
        reindex(key, from: before)
    }

    private mutating func merge(_ tombstone: ReplicaTombstone<NamedEntity>) {
        let key = Key(tombstone.entity, tombstone.id)
        let before = parentReferences(of: key)
        records.merge(tombstone)
        reindex(key, from: before)
    }

    private func parentReferences(of key: Key) -> [ParentReference] {
        guard let row = records.rows[key] else { return [] }
        var references: [ParentReference] = []
        for parent in schema.parents(of: key.entity) {
            if let id = parent.parentId(in: row) { references.append(ParentReference(entity: parent.entity, id: id)) }
        }
        return references
    }

    private mutating func reindex(_ key: Key, from before: [ParentReference]) {
        if schema.parents(of: key.entity).isEmpty { topLevel[key.entity.rawValue, default: []].insert(key) }
        let after = parentReferences(of: key)
        guard after != before else { return }
        for reference in before { children[reference]?.remove(key) }
        for reference in after { children[reference, default: []].insert(key) }
    }

    /// Calls `body` with each row of `entity` that names `parent` as its parent, in no order,
    /// without gathering them (a deck's review log may hold a hundred thousand entries).
    func forEachRow(
        of entity: NamedEntity, naming parent: ParentReference, _ body: (ReplicaRow<NamedEntity>) -> Void
    ) {
        for child in children[parent] ?? [] where child.entity == entity {
            if let row = records.rows[child] { body(row) }
        }
    }

    /// The rows of a top-level `entity` (one that names no parent) a person sees, in no order.
    func visibleTopLevelRows(_ entity: NamedEntity) -> [ReplicaRow<NamedEntity>] {
        var found: [ReplicaRow<NamedEntity>] = []
        for key in topLevel[entity.rawValue] ?? [] where records.isLive(key) {
            if let row = records.rows[key] { found.append(row) }
        }
        return found
    }

    /// The rows that name `parent` as their parent, in no order.
    func rows(naming parent: ParentReference) -> [ReplicaRow<NamedEntity>] {
        var found: [ReplicaRow<NamedEntity>] = []
        for child in children[parent] ?? [] {
            if let row = records.rows[child] { found.append(row) }
        }
        return found
    }

    // MARK: Writes made here

    /// The clock of a write made at `milliseconds`: one per operation, shared by every row it writes.
    mutating func tick(_ milliseconds: UInt64) -> WriteClock {
        WriteClock(clock.tick(milliseconds: milliseconds), replicaId)
    }

    /// Makes a record, every field at `clock`.
    mutating func create(_ entity: NamedEntity, id: String, _ fields: [String: JSONValue], at clock: WriteClock) {
        var changes: [String: FieldChange] = [:]
        for (name, value) in fields { changes[name] = FieldChange(value: value, clock: clock) }
        record(ReplicaRow(entity: entity, id: id, created: clock, fields: changes))
    }

    /// Writes fields of a record it holds, at `clock`.
    mutating func update(_ key: Key, _ fields: [String: JSONValue], at clock: WriteClock) {
        guard var row = records.rows[key] else { return }
        for (name, value) in fields { row.fields[name] = FieldChange(value: value, clock: clock) }
        record(row)
    }

    private mutating func record(_ row: ReplicaRow<NamedEntity>) {
        merge(row)
        markPending(Key(row.entity, row.id))
    }

    /// Deletes a record and, depth first, every record that names it as its parent, at `clock`, as a
    /// store's delete tombstones its rows and their children's.
    mutating func delete(_ key: Key, at clock: WriteClock) {
        let parent = ParentReference(entity: key.entity.rawValue, id: key.id)
        for row in rows(naming: parent).sorted(by: { $0.id < $1.id }) { delete(Key(row.entity, row.id), at: clock) }
        merge(ReplicaTombstone(entity: key.entity, id: key.id, clock: clock))
        markPending(key)
    }

    /// Notes a record as written here, after every write before it.
    mutating func markPending(_ key: Key) {
        writeCount += 1
        pending[key] = writeCount
    }

    /// Sets the clock to a timestamp this replica has seen (`restore`).
    mutating func restoreClock(at newest: HLCTimestamp) { clock = HybridLogicalClock(last: max(clock.last, newest)) }

    /// What waits to be sent, in the wire form: every pending record whole, as devices send them, in
    /// the order of their latest write. Once the server has it, `markSent(through: writeCount)` as it
    /// was when this was read. With `since`, only the records written after write `since`: what one
    /// write adds to what a replica keeps.
    public func pendingText(accountId: String, registry: Int, since: Int = 0) -> String {
        var rows: [ReplicaRow<NamedEntity>] = []
        var tombstones: [ReplicaTombstone<NamedEntity>] = []
        for (key, _) in pending.filter({ $0.value > since }).sorted(by: { $0.value < $1.value }) {
            if let row = records.rows[key] { rows.append(row) }
            if let tombstone = records.tombstones[key] { tombstones.append(tombstone) }
        }
        return WireChanges.text(
            accountId: accountId, replicaId: replicaId, registry: registry, rows: rows, tombstones: tombstones)
    }

    /// How many of this replica's changes wait to be sent, as a person counts them: an answer (a
    /// card and its review log) is one, an item added (the item and its list's `modifiedAt`) is
    /// one. The records one operation writes share its clock, so this counts the clocks of this
    /// replica's writes in the records that wait, newer than any that reached the server.
    public var pendingOperations: Int {
        let sent = max(sentClock, newestWriteSent())
        var clocks = Set<UInt64>()
        func note(_ clock: WriteClock) {
            if clock.replicaId == replicaId, clock.timestamp > sent { clocks.insert(clock.timestamp.rawValue) }
        }
        for key in pending.keys {
            if let row = records.rows[key] {
                note(row.created)
                for field in row.fields.values { note(field.clock) }
            } else if let tombstone = records.tombstones[key] {
                note(tombstone.clock)
            }
        }
        return clocks.count
    }

    /// Every write of this replica at or before it has reached the server: set when a push is taken.
    var sentClock = HLCTimestamp.zero

    /// The newest write of this replica in a record that does not wait: it reached the server, and
    /// so did every write before it (writes are sent in order). What a replica read back from a
    /// page's keeping knows of its pushes.
    private func newestWriteSent() -> HLCTimestamp {
        var newest = HLCTimestamp.zero
        for (key, row) in records.rows where pending[key] == nil {
            if row.created.replicaId == replicaId { newest = max(newest, row.created.timestamp) }
            for field in row.fields.values where field.clock.replicaId == replicaId {
                newest = max(newest, field.clock.timestamp)
            }
        }
        for (key, tombstone) in records.tombstones where pending[key] == nil && tombstone.clock.replicaId == replicaId {
            newest = max(newest, tombstone.clock.timestamp)
        }
        return newest
    }

    /// Forgets the pending records last written by write `count` or before: the server has them. A
    /// record written again since stays pending.
    public mutating func markSent(through count: Int) {
        pending = pending.filter { $0.value > count }
        // Writes are sent in order, and none is made while a push is on its way.
        sentClock = clock.last
    }

    /// Stops sending a record the server refused (its push named it): it stays as written here, and
    /// waits again only when written again. The rest of what waits can then go through.
    public mutating func setAside(_ key: Key) { pending[key] = nil }

    /// A record's name for people: its name, title or front, else its id.
    public func label(of key: Key) -> String {
        let row = records.rows[key]
        for field in ["name", "title", "front"] {
            if case .string(let text)? = row?.fields[field]?.value, !text.isEmpty { return text }
        }
        return key.id
    }

    /// The visible rows of `entity` whose `parent` reference names `parentId`.
    func visibleChildren(_ entity: NamedEntity, parent: ReplicaSchema.Parent, of parentId: String)
        -> [ReplicaRow<NamedEntity>]
    {
        rows(naming: ParentReference(entity: parent.entity, id: parentId)).filter {
            $0.entity == entity && parent.parentId(in: $0) == parentId && isVisible(Key(entity, $0.id))
        }
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
        return lines.joined(separator: "\n")
    }
}
