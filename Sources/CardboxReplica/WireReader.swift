/// A change set read straight from its text, or a pull page holding one.
public struct WireText: Sendable {
    public let changes: WireChanges
    /// A pull page's cursor and whether more pages follow; nil for a bare change set.
    public let page: (cursor: Int64, hasMore: Bool)?
}

extension WireChanges {
    /// Reads a change set (or a pull page holding one, `{"changes", "cursor", "hasMore", …}`) straight
    /// from its text, without making a `JSONValue` of the rows first: a first sync of 110,000 records
    /// spent most of its merge building and reading that tree (`scripts/replica_bench.sh`).
    ///
    /// Nil when the text is not in the form replicas write: any problem, a repeated key, clocks listed
    /// after the rows that name them. Then `init(json:schema:)` reads it and names what is wrong, so
    /// the two ways give the same change set for every text this reads (the `wire` fuzz target holds
    /// them to it).
    public static func read(text: String, schema: ReplicaSchema) -> WireText? {
        JSONParser.reading(text) { parser throws(JSONParser.Failure) -> WireText? in
            var bare = ChangeSetReading(schema: schema)
            var nested: WireChanges?
            var (cursor, hasMore): (Int64?, Bool?) = (nil, nil)
            try parser.readObject { key, parser throws(JSONParser.Failure) in
                switch key {
                case "changes":
                    guard nested == nil else { throw parser.unexpected(key) }
                    nested = try ChangeSetReading.changeSet(&parser, schema: schema)
                case "cursor" where cursor == nil: cursor = try parser.readInteger()
                case "hasMore" where hasMore == nil:
                    guard case .bool(let flag) = try parser.readValue() else { throw parser.unexpected(key) }
                    hasMore = flag
                default:
                    if try !bare.read(key, &parser) { _ = try parser.readValue() }
                }
            }
            if let nested {
                guard let cursor, let hasMore else { return nil }
                return WireText(changes: nested, page: (cursor, hasMore))
            }
            return bare.finished().map { WireText(changes: $0, page: nil) }
        } ?? nil
    }

    init(
        accountId: String, replicaId: String, registry: Int64?, rows: [ReplicaRow<NamedEntity>],
        tombstones: [ReplicaTombstone<NamedEntity>]
    ) {
        self.accountId = accountId
        self.replicaId = replicaId
        self.registry = registry
        self.rows = rows
        self.tombstones = tombstones
    }
}

/// The members of one change set as they are read, each once.
private struct ChangeSetReading {
    let schema: ReplicaSchema
    var format: String?
    var version: Int64?
    var accountId: String?
    var replicaId: String?
    var registry: Int64?
    var clocks: [WriteClock]?
    var rows: [ReplicaRow<NamedEntity>]?
    var tombstones: [ReplicaTombstone<NamedEntity>]?

    init(schema: ReplicaSchema) { self.schema = schema }

    /// A change set's object, from its `{`.
    static func changeSet(_ parser: inout JSONParser, schema: ReplicaSchema) throws(JSONParser.Failure)
        -> WireChanges
    {
        var reading = ChangeSetReading(schema: schema)
        try parser.readObject { key, parser throws(JSONParser.Failure) in
            if try !reading.read(key, &parser) { _ = try parser.readValue() }
        }
        guard let changes = reading.finished() else { throw parser.unexpected("changes") }
        return changes
    }

    /// Reads member `key`'s value when it is one of a change set's (answers false, reading nothing,
    /// for any other).
    mutating func read(_ key: String, _ parser: inout JSONParser) throws(JSONParser.Failure) -> Bool {
        switch key {
        case "format" where format == nil: format = try parser.readString()
        case "version" where version == nil: version = try parser.readInteger()
        case "accountId" where accountId == nil: accountId = try parser.readString()
        case "replicaId" where replicaId == nil: replicaId = try parser.readString()
        case "registry" where registry == nil: registry = try parser.readInteger()
        case "clocks" where clocks == nil: clocks = try readClocks(&parser)
        case "rows" where rows == nil:
            // Clocks come first in the form replicas write (keys in order); rows before them are read
            // the other way.
            guard let clocks else { throw parser.unexpected(key) }
            rows = try parser.readArray { parser throws(JSONParser.Failure) in try readRow(&parser, clocks) }
        case "tombstones" where tombstones == nil:
            guard let clocks else { throw parser.unexpected(key) }
            tombstones = try parser.readArray { parser throws(JSONParser.Failure) in
                try readTombstone(&parser, clocks)
            }
        case "format", "version", "accountId", "replicaId", "registry", "clocks", "rows", "tombstones":
            throw parser.unexpected(key)  // a second time
        default:
            return false
        }
        return true
    }

    func finished() -> WireChanges? {
        guard format == "cardbox-changes", version == 1, let accountId, let replicaId, clocks != nil, let rows,
            let tombstones
        else { return nil }
        return WireChanges(
            accountId: accountId, replicaId: replicaId, registry: registry, rows: rows, tombstones: tombstones)
    }

    private func readClocks(_ parser: inout JSONParser) throws(JSONParser.Failure) -> [WriteClock] {
        try parser.readArray { parser throws(JSONParser.Failure) in
            let (timestamp, replica) = try parser.readPair(
                { parser throws(JSONParser.Failure) in try parser.readInteger() },
                { parser throws(JSONParser.Failure) in try parser.readString() })
            guard timestamp >= 0 else { throw parser.unexpected("clock") }
            return WriteClock(HLCTimestamp(rawValue: UInt64(timestamp)), replica)
        }
    }

    private func clock(_ parser: inout JSONParser, _ clocks: [WriteClock]) throws(JSONParser.Failure) -> WriteClock {
        let index = try parser.readInteger()
        guard index >= 0, index < clocks.count else { throw parser.unexpected("clock") }
        return clocks[Int(index)]
    }

    private func entity(_ parser: inout JSONParser) throws(JSONParser.Failure) -> NamedEntity {
        guard let entity = schema.entity(named: try parser.readString()) else { throw parser.unexpected("entity") }
        return entity
    }

    private func readRow(_ parser: inout JSONParser, _ clocks: [WriteClock]) throws(JSONParser.Failure)
        -> ReplicaRow<NamedEntity>
    {
        var (entity, id, created, fields): (NamedEntity?, String?, WriteClock?, [String: FieldChange]?)
        try parser.readObject { key, parser throws(JSONParser.Failure) in
            switch key {
            case "entity" where entity == nil: entity = try self.entity(&parser)
            case "id" where id == nil: id = try parser.readString()
            case "created" where created == nil: created = try clock(&parser, clocks)
            case "fields" where fields == nil: fields = try readFields(&parser, clocks)
            case "entity", "id", "created", "fields": throw parser.unexpected(key)
            default: _ = try parser.readValue()
            }
        }
        guard let entity, let id, let created, let fields else { throw parser.unexpected("row") }
        return ReplicaRow(entity: entity, id: id, created: created, fields: fields)
    }

    /// `{name: [value, clock], …}`
    private func readFields(_ parser: inout JSONParser, _ clocks: [WriteClock]) throws(JSONParser.Failure)
        -> [String: FieldChange]
    {
        var fields: [String: FieldChange] = [:]
        try parser.readObject { name, parser throws(JSONParser.Failure) in
            guard fields[name] == nil else { throw parser.unexpected(name) }
            let (value, clock) = try parser.readPair(
                { parser throws(JSONParser.Failure) in try parser.readValue() },
                { parser throws(JSONParser.Failure) in try self.clock(&parser, clocks) })
            fields[name] = FieldChange(value: value, clock: clock)
        }
        return fields
    }

    private func readTombstone(_ parser: inout JSONParser, _ clocks: [WriteClock]) throws(JSONParser.Failure)
        -> ReplicaTombstone<NamedEntity>
    {
        var (entity, id, clock): (NamedEntity?, String?, WriteClock?)
        try parser.readObject { key, parser throws(JSONParser.Failure) in
            switch key {
            case "entity" where entity == nil: entity = try self.entity(&parser)
            case "id" where id == nil: id = try parser.readString()
            case "clock" where clock == nil: clock = try self.clock(&parser, clocks)
            case "entity", "id", "clock": throw parser.unexpected(key)
            default: _ = try parser.readValue()
            }
        }
        guard let entity, let id, let clock else { throw parser.unexpected("tombstone") }
        return ReplicaTombstone(entity: entity, id: id, clock: clock)
    }
}
