/// Something wrong with wire input, and where: `changes.rows[3].fields: must be an object`.
public struct WireProblem: Error, Equatable, CustomStringConvertible {
    public let field: String
    public let reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}

/// One JSON value read from wire input, knowing its place, so each error names it. The browser's
/// hot paths read change sets straight (`WireChanges.read(text:schema:)`); this reader is the one
/// that names what is wrong.
struct WireValue {
    let value: JSONValue
    let path: String

    init(_ value: JSONValue, _ path: String) {
        self.value = value
        self.path = path
    }

    func problem(_ reason: String) -> WireProblem { WireProblem(field: path, reason: reason) }

    func member(_ name: String) throws(WireProblem) -> WireValue {
        guard case .object(let members) = value else { throw problem("must be an object") }
        guard let member = members[name] else { throw WireProblem(field: "\(path).\(name)", reason: "is missing") }
        return WireValue(member, "\(path).\(name)")
    }

    func members() throws(WireProblem) -> [(String, WireValue)] {
        guard case .object(let members) = value else { throw problem("must be an object") }
        return members.map { ($0.key, WireValue($0.value, "\(path).\($0.key)")) }
    }

    func array() throws(WireProblem) -> [WireValue] {
        guard case .array(let elements) = value else { throw problem("must be an array") }
        var values: [WireValue] = []
        for (index, element) in elements.enumerated() { values.append(WireValue(element, "\(path)[\(index)]")) }
        return values
    }

    /// A two-element array (`[value, clock]`), read without making an array of readers.
    func pair(else reason: String) throws(WireProblem) -> (WireValue, WireValue) {
        guard case .array(let elements) = value else { throw problem("must be an array") }
        guard elements.count == 2 else { throw problem(reason) }
        return (WireValue(elements[0], "\(path)[0]"), WireValue(elements[1], "\(path)[1]"))
    }

    func string() throws(WireProblem) -> String {
        guard case .string(let text) = value else { throw problem("must be a string") }
        return text
    }

    func integer() throws(WireProblem) -> Int64 {
        guard case .int(let number) = value else { throw problem("must be a whole number") }
        return number
    }

    func bool() throws(WireProblem) -> Bool {
        guard case .bool(let flag) = value else { throw problem("must be true or false") }
        return flag
    }
}

/// A change set as the browser's replica reads it (the wire form `ChangeSet.jsonText` writes, see
/// docs/sync.md): its rows and tombstones, by entity name. Checking values against the registry's
/// rules is the server's and the native store's; this reads the form and the entities the schema
/// names.
public struct WireChanges: Sendable {
    public let accountId: String
    public let replicaId: String
    /// The registry version the sender wrote (nil when the text gives no whole number): the server
    /// and the native store hold it to their own.
    public let registry: Int64?
    public let rows: [ReplicaRow<NamedEntity>]
    public let tombstones: [ReplicaTombstone<NamedEntity>]

    public init(json: JSONValue, schema: ReplicaSchema) throws(WireProblem) {
        if case .object(let members) = json, case .int(let version)? = members["registry"] {
            registry = version
        } else {
            registry = nil
        }
        let root = WireValue(json, "changes")
        guard try root.member("format").string() == "cardbox-changes" else {
            throw WireProblem(field: "changes.format", reason: "must be \"cardbox-changes\"")
        }
        guard try root.member("version").integer() == 1 else {
            throw WireProblem(field: "changes.version", reason: "is not known to this replica (it reads 1)")
        }
        accountId = try root.member("accountId").string()
        replicaId = try root.member("replicaId").string()
        var clocks: [WriteClock] = []
        for entry in try root.member("clocks").array() {
            let (timestamp, replica) = try entry.pair(else: "needs [timestamp, replica]")
            let raw = try timestamp.integer()
            guard raw >= 0 else { throw timestamp.problem("must not be negative") }
            clocks.append(WriteClock(HLCTimestamp(rawValue: UInt64(raw)), try replica.string()))
        }
        func clock(_ reader: WireValue) throws(WireProblem) -> WriteClock {
            let index = try reader.integer()
            guard index >= 0, index < clocks.count else { throw reader.problem("names no entry of clocks") }
            return clocks[Int(index)]
        }
        func entity(_ reader: WireValue) throws(WireProblem) -> NamedEntity {
            let name = try reader.string()
            guard let entity = schema.entity(named: name) else { throw reader.problem("'\(name)' is not an entity") }
            return entity
        }
        var rows: [ReplicaRow<NamedEntity>] = []
        for row in try root.member("rows").array() {
            let entity = try entity(row.member("entity"))
            let id = try row.member("id").string()
            let created = try clock(row.member("created"))
            var fields: [String: FieldChange] = [:]
            // By name, so the first problem named is the same on every run.
            for (name, value) in try row.member("fields").members().sorted(by: { $0.0 < $1.0 }) {
                let (field, fieldClock) = try value.pair(else: "needs [value, clock]")
                fields[name] = FieldChange(value: field.value, clock: try clock(fieldClock))
            }
            rows.append(ReplicaRow(entity: entity, id: id, created: created, fields: fields))
        }
        var tombstones: [ReplicaTombstone<NamedEntity>] = []
        for tombstone in try root.member("tombstones").array() {
            tombstones.append(
                ReplicaTombstone(
                    entity: try entity(tombstone.member("entity")), id: try tombstone.member("id").string(),
                    clock: try clock(tombstone.member("clock"))))
        }
        self.rows = rows
        self.tombstones = tombstones
    }
}

extension ReplicaRow where Entity: RawRepresentable, Entity.RawValue == String {
    /// One row with its clocks, as stored by whoever keeps rows aside (a device's held rows, the
    /// server's sync state) and as a canonical dump lists it: `{"entity", "id", "created":
    /// [timestamp, replica], "fields": {name: [value, [timestamp, replica]]}}`.
    ///
    /// Written straight, keys in sorted order, as `JSONValue.jsonText` writes the same object (a
    /// server writes one per record a push changes; building the tree first was most of the cost).
    public var recordJSON: String {
        func write(_ clock: WriteClock, _ writer: inout JSONWriter) {
            writer.byte(UInt8(ascii: "["))
            writer.integer(clock.timestamp.storageValue)
            writer.byte(UInt8(ascii: ","))
            writer.string(clock.replicaId)
            writer.byte(UInt8(ascii: "]"))
        }
        var writer = JSONWriter(capacity: 128 + fields.count * 80)
        writer.raw("{\"created\":")
        write(created, &writer)
        writer.raw(",\"entity\":")
        writer.string(entity.rawValue)
        writer.raw(",\"fields\":{")
        for (index, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.string(field.key)
            writer.raw(":[")
            field.value.value.write(to: &writer)
            writer.byte(UInt8(ascii: ","))
            write(field.value.clock, &writer)
            writer.byte(UInt8(ascii: "]"))
        }
        writer.raw("},\"id\":")
        writer.string(id)
        writer.byte(UInt8(ascii: "}"))
        return writer.text
    }

    /// Reads `recordJSON` straight, without making a `JSONValue` of the row first (a server's pull
    /// reads one per record). Nil when the text is not in the form `recordJSON` writes (a repeated
    /// key, a malformed clock, an entity `Entity` does not name): the caller then reads it as a
    /// JSON tree, which names what is wrong.
    public init?(recordText text: String) {
        let read = JSONParser.reading(text) { parser throws(JSONParser.Failure) -> Self? in
            var (entity, id, created, fields): (Entity?, String?, WriteClock?, [String: FieldChange]?)
            try parser.readObject { key, parser throws(JSONParser.Failure) in
                switch key {
                case "entity" where entity == nil:
                    guard let named = Entity(rawValue: try parser.readString()) else { throw parser.unexpected(key) }
                    entity = named
                case "id" where id == nil: id = try parser.readString()
                case "created" where created == nil: created = try Self.readClock(&parser)
                case "fields" where fields == nil:
                    var read: [String: FieldChange] = [:]
                    try parser.readObject { name, parser throws(JSONParser.Failure) in
                        guard read[name] == nil else { throw parser.unexpected(name) }
                        let (value, clock) = try parser.readPair(
                            { parser throws(JSONParser.Failure) in try parser.readValue() },
                            { parser throws(JSONParser.Failure) in try Self.readClock(&parser) })
                        read[name] = FieldChange(value: value, clock: clock)
                    }
                    fields = read
                case "entity", "id", "created", "fields": throw parser.unexpected(key)
                default: _ = try parser.readValue()
                }
            }
            guard let entity, let id, let created, let fields else { return nil }
            return Self(entity: entity, id: id, created: created, fields: fields)
        }
        guard let row = read ?? nil else { return nil }
        self = row
    }

    /// `[timestamp, replica]`, the timestamp as the databases keep it (its bits as a signed integer).
    private static func readClock(_ parser: inout JSONParser) throws(JSONParser.Failure) -> WriteClock {
        let (timestamp, replica) = try parser.readPair(
            { parser throws(JSONParser.Failure) in try parser.readInteger() },
            { parser throws(JSONParser.Failure) in try parser.readString() })
        return WriteClock(HLCTimestamp(rawValue: UInt64(bitPattern: timestamp)), replica)
    }
}

// MARK: Writing

extension WireChanges {
    /// A change set's wire form (docs/sync.md § The wire form). Clocks are listed once in `clocks`
    /// (`[timestamp, replica]`) and named by index, so a batch written by one transaction carries its
    /// clock once, not once per field. `ChangeSet.jsonText` writes through it natively.
    ///
    /// Written straight rather than built as `JSONValue`s first (a first sync writes a hundred
    /// thousand rows), compact, keys in sorted order, as `JSONValue.jsonText` writes a value.
    @inlinable
    public static func text<Entity: RawRepresentable & Hashable & Sendable>(
        accountId: String, replicaId: String, registry: Int, rows: [ReplicaRow<Entity>],
        tombstones: [ReplicaTombstone<Entity>]
    ) -> String where Entity.RawValue == String {
        let clocks = ClockTable(rows: rows, tombstones: tombstones)
        var writer = JSONWriter(capacity: 256 + rows.count * 512)
        writer.raw("{\"accountId\":")
        writer.string(accountId)
        writer.raw(",\"clocks\":[")
        for (offset, clock) in clocks.list.enumerated() {
            if offset > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.byte(UInt8(ascii: "["))
            writer.integer(clock.timestamp.storageValue)
            writer.byte(UInt8(ascii: ","))
            writer.string(clock.replicaId)
            writer.byte(UInt8(ascii: "]"))
        }
        writer.raw("],\"format\":")
        writer.string("cardbox-changes")
        writer.raw(",\"registry\":")
        writer.integer(Int64(registry))
        writer.raw(",\"replicaId\":")
        writer.string(replicaId)
        writer.raw(",\"rows\":[")
        for (offset, row) in rows.enumerated() {
            if offset > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.raw("{\"created\":")
            writer.integer(Int64(clocks.number(row.created)))
            writer.raw(",\"entity\":")
            writer.string(row.entity.rawValue)
            writer.raw(",\"fields\":{")
            for (index, name) in row.fields.keys.sorted().enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                let field = row.fields[name]!
                writer.string(name)
                writer.raw(":[")
                field.value.write(to: &writer)
                writer.byte(UInt8(ascii: ","))
                writer.integer(Int64(clocks.number(field.clock)))
                writer.byte(UInt8(ascii: "]"))
            }
            writer.raw("},\"id\":")
            writer.string(row.id)
            writer.byte(UInt8(ascii: "}"))
        }
        writer.raw("],\"tombstones\":[")
        for (offset, tombstone) in tombstones.enumerated() {
            if offset > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.raw("{\"clock\":")
            writer.integer(Int64(clocks.number(tombstone.clock)))
            writer.raw(",\"entity\":")
            writer.string(tombstone.entity.rawValue)
            writer.raw(",\"id\":")
            writer.string(tombstone.id)
            writer.byte(UInt8(ascii: "}"))
        }
        writer.raw("],\"version\":")
        writer.integer(1)
        writer.byte(UInt8(ascii: "}"))
        return writer.text
    }
}

/// The clocks a change set names, each listed once, numbered in the order rows, their fields (by
/// name) and tombstones first name them.
@usableFromInline
struct ClockTable {
    @usableFromInline var list: [WriteClock] = []
    @usableFromInline var numbers: [WriteClock: Int] = [:]

    @inlinable
    init<Entity>(rows: [ReplicaRow<Entity>], tombstones: [ReplicaTombstone<Entity>]) {
        for row in rows {
            add(row.created)
            for name in row.fields.keys.sorted() { add(row.fields[name]!.clock) }
        }
        for tombstone in tombstones { add(tombstone.clock) }
    }

    @inlinable
    mutating func add(_ clock: WriteClock) {
        guard numbers[clock] == nil else { return }
        numbers[clock] = list.count
        list.append(clock)
    }

    @inlinable
    func number(_ clock: WriteClock) -> Int { numbers[clock]! }
}
