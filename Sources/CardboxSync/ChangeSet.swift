import CardboxCore
import Foundation

// The records and their clocks are in CardboxReplica (no Foundation: the browser's WebAssembly
// build merges with the same code); here, named by the registry's entities.
public typealias RowChange = ReplicaRow<SyncedEntity>
public typealias Tombstone = ReplicaTombstone<SyncedEntity>
public typealias RecordKey = ReplicaKey<SyncedEntity>

/// The replica id the server signs pulled change sets with: pulled rows keep the clocks of the
/// devices that wrote them, so this only names the sender.
public let serverReplicaId = "server"

/// What one replica sends another: the rows it changed and the rows it deleted, for one account.
/// Its JSON form (`jsonText`, `parse`) is the wire format, versioned by `format` and `registryVersion`.
public struct ChangeSet: Sendable, Equatable {
    public static let format = "cardbox-changes"
    public static let formatVersion = 1

    public var accountId: UUID
    public var replicaId: String
    public var rows: [RowChange]
    public var tombstones: [Tombstone]

    public init(accountId: UUID, replicaId: String, rows: [RowChange] = [], tombstones: [Tombstone] = []) {
        self.accountId = accountId
        self.replicaId = replicaId
        self.rows = rows
        self.tombstones = tombstones
    }

    public var isEmpty: Bool { rows.isEmpty && tombstones.isEmpty }

    /// Whether the set writes the account's record, whose plan and card limit are the server's.
    public var writesAccount: Bool {
        rows.contains { $0.entity == .account } || tombstones.contains { $0.entity == .account }
    }

    /// The set with the account's plan and card limit, wherever a row writes them, replaced by the
    /// server's (`plan`, and the free plan's limit), and without deletes of the account's record:
    /// a device's write to them is ignored. Each field keeps its clock, so every replica, the
    /// sender too once it follows the server's plan, converges on the server's values.
    public func holdingAccount(to plan: Plan) -> ChangeSet {
        guard writesAccount else { return self }
        var set = self
        set.tombstones.removeAll { $0.entity == .account }
        for index in set.rows.indices where set.rows[index].entity == .account {
            for (name, value) in [
                ("plan", JSONValue.string(plan.rawValue)), ("freeCardLimit", .int(Int64(Limits.freeCardLimit))),
            ] {
                guard let field = set.rows[index].fields[name] else { continue }
                set.rows[index].fields[name] = FieldChange(value: value, clock: field.clock)
            }
        }
        return set
    }

    /// The newest clock the set carries.
    public var newestTimestamp: HLCTimestamp { .newest(rows: rows, tombstones: tombstones) }

    /// The images its rows name (the `imageHash` of cards, suggestions and item images): what a
    /// device that applies the set will want the bytes of.
    public var namedImages: Set<String> {
        Set(
            rows.lazy.compactMap { row in
                if case .string(let hash)? = row.fields["imageHash"]?.value { hash } else { nil }
            })
    }
}

// MARK: Wire form

extension ChangeSet {
    /// The change set as JSON, its wire form (written by `WireChanges.text`):
    ///
    ///     {"format": "cardbox-changes", "version": 1, "registry": 1, "accountId": "…", "replicaId": "…",
    ///      "clocks": [[112233445566, "replica-id"]],
    ///      "rows": [{"entity": "card", "id": "…", "created": 0, "fields": {"front": ["hola", 0], …}}],
    ///      "tombstones": [{"entity": "item", "id": "…", "clock": 0}]}
    public var jsonText: String {
        WireChanges.text(
            accountId: accountId.uuidString.lowercased(), replicaId: replicaId, registry: SyncRegistry.version,
            rows: rows, tombstones: tombstones)
    }

    /// Reads a change set from its JSON text. Anything malformed is an error naming the place,
    /// e.g. `changes.rows[3].fields.front: needs [value, clock]`; nothing is half-read. What the
    /// rows say is checked against the registry by `validate()`, which `apply` and a server's push
    /// call before anything else.
    public static func parse(_ text: String) throws -> ChangeSet {
        guard text.utf8.count <= maximumBytes else {
            throw CardboxError.invalid(field: "changes", reason: "is larger than \(maximumBytes / 1_048_576) MiB")
        }
        try WireReader.checkDepth(text, limit: 8)
        return try readStraight(text) ?? ChangeSet(json: JSONValue.parse(text, field: "changes"))
    }

    /// The change set read straight from its text (`WireChanges.read`, without a JSON tree of its
    /// rows: a server reads every push), when the text is in the form replicas write and passes
    /// what `init(json:)` checks; nil sends the text the slow way, which names any problem. The
    /// `wire` fuzz target holds the two ways to the same change set.
    package static func readStraight(_ text: String) -> ChangeSet? {
        guard let read = WireChanges.read(text: text, schema: SyncRegistry.replicaSchema), read.page == nil else {
            return nil
        }
        let wire = read.changes
        guard wire.registry == Int64(SyncRegistry.version), let accountId = accountID(wire.accountId) else {
            return nil
        }
        var rows: [RowChange] = []
        rows.reserveCapacity(wire.rows.count)
        for row in wire.rows {
            guard let entity = SyncedEntity(rawValue: row.entity.rawValue) else { return nil }
            var change = RowChange(entity: entity, id: row.id, created: row.created, fields: row.fields)
            change.fillLaterFields()
            rows.append(change)
        }
        var tombstones: [Tombstone] = []
        tombstones.reserveCapacity(wire.tombstones.count)
        for tombstone in wire.tombstones {
            guard let entity = SyncedEntity(rawValue: tombstone.entity.rawValue) else { return nil }
            tombstones.append(Tombstone(entity: entity, id: tombstone.id, clock: tombstone.clock))
        }
        return ChangeSet(accountId: accountId, replicaId: wire.replicaId, rows: rows, tombstones: tombstones)
    }

    /// The account a change set names: an id in its stored form (36 characters, lower case).
    private static func accountID(_ text: String) -> UUID? {
        guard text.count == 36, text == text.lowercased() else { return nil }
        return UUID(uuidString: text)
    }

    /// Change sets larger than this are split by the sender.
    public static let maximumBytes = 64 * 1_048_576

    public init(json: JSONValue) throws {
        let root = try WireReader(json, path: "changes").object()
        let format = try root.member("format").string()
        guard format == Self.format else { throw root.error("format", "must be \"\(Self.format)\", got \"\(format)\"") }
        let version = try root.member("version").integer()
        guard version == Self.formatVersion else {
            throw root.error("version", "\(version) is not known to this Cardbox (it reads \(Self.formatVersion))")
        }
        let registry = try root.member("registry").integer()
        guard registry == SyncRegistry.version else {
            throw root.error("registry", "\(registry) is not known to this Cardbox (it reads \(SyncRegistry.version))")
        }
        guard let accountId = Self.accountID(try root.member("accountId").string()) else {
            throw root.error("accountId", "is not an id")
        }
        let replicaId = try root.member("replicaId").string()
        let clocks: [WriteClock] = try root.member("clocks").array().map { entry in
            let pair = try entry.array()
            guard pair.count == 2 else { throw entry.error(nil, "needs [timestamp, replica]") }
            let raw = try pair[0].integer()
            guard raw >= 0 else { throw pair[0].error(nil, "must not be negative") }
            let replica = try pair[1].string()
            return WriteClock(HLCTimestamp(rawValue: UInt64(raw)), replica)
        }
        func clock(_ reader: WireReader) throws -> WriteClock {
            let index = try reader.integer()
            guard index >= 0, index < clocks.count else { throw reader.error(nil, "names no entry of clocks") }
            return clocks[Int(index)]
        }
        let rows = try root.member("rows").array().map { reader in
            let row = try reader.object()
            let entity = try row.member("entity").entity()
            var fields: [String: FieldChange] = [:]
            for (name, value) in try row.member("fields").members() {
                let pair = try value.array()
                guard pair.count == 2 else { throw value.error(nil, "needs [value, clock]") }
                fields[name] = FieldChange(value: pair[0].value, clock: try clock(pair[1]))
            }
            var change = RowChange(
                entity: entity, id: try row.member("id").string(), created: try clock(row.member("created")),
                fields: fields)
            change.fillLaterFields()
            return change
        }
        let tombstones = try root.member("tombstones").array().map { reader in
            let tombstone = try reader.object()
            let entity = try tombstone.member("entity").entity()
            return Tombstone(
                entity: entity, id: try tombstone.member("id").string(),
                clock: try clock(tombstone.member("clock")))
        }
        // Checked against the registry where it is used (`apply`, a server's push), once.
        self.init(accountId: accountId, replicaId: replicaId, rows: rows, tombstones: tombstones)
    }

    /// Checks what a change set says against the registry: every row's id, every field known and
    /// present with a value of its wire type, every clock's replica named. `apply` calls it, so a
    /// change set made in code is held to the same rules as one read from the wire.
    public func validate() throws {
        try Self.checkReplica(replicaId, path: "changes.replicaId")
        // A first sync checks a hundred thousand rows. Each is checked first without naming every
        // place in it (those names were a third of applying it); only a row that fails is gone
        // through again, to say exactly what is wrong and where.
        for (index, row) in rows.enumerated() where !Self.isWellFormed(row) {
            let path = "changes.rows[\(index)]"
            try Self.validate(row, path: path)
            throw CardboxError.invalid(field: path, reason: "is malformed")
        }
        for (index, tombstone) in tombstones.enumerated() {
            guard RecordID.parts(tombstone.id, of: tombstone.entity) != nil else {
                throw CardboxError.invalid(
                    field: "changes.tombstones[\(index)].id",
                    reason: "'\(tombstone.id.prefix(80))' is not a \(tombstone.entity.rawValue) id")
            }
            try Self.checkReplica(tombstone.clock.replicaId, path: "changes.tombstones[\(index)].clock")
        }
    }

    /// Whether `validate(_:path:)` passes the row: the same checks, with no error to describe.
    package static func isWellFormed(_ row: RowChange) -> Bool {
        guard let parts = RecordID.parts(row.id, of: row.entity), isReplica(row.created.replicaId),
            row.fields.count == row.entity.fields.count
        else { return false }
        let creator = row.created.replicaId
        for (name, change) in row.fields {
            // A field is mostly written by the row's creator, in the same transaction: its replica is
            // the one checked already (the same string, compared by reference first).
            let replica = change.clock.replicaId
            guard let field = row.entity.field(named: name), replica == creator || isReplica(replica),
                WireReader.problem(change.value, field) == nil
            else { return false }
        }
        if rowProblem(row) != nil { return false }
        if case .composite(let columns) = row.entity.identity {
            return columns.map { row.fields[$0]?.value } == parts.map { JSONValue.string($0) }
        }
        return true
    }

    /// The first rule of the row's entity that reads two of its fields and fails: the field, and why.
    static func rowProblem(_ row: RowChange) -> (field: String, reason: String)? {
        for field in row.entity.fields where !field.isComposite {
            guard let rule = field.columns[0].rule, let value = row.fields[field.name]?.value,
                let reason = rule.problem(value, in: { row.fields[$0]?.value })
            else { continue }
            return (field.name, reason)
        }
        return nil
    }

    /// Checks one row, naming the first problem and its place.
    package static func validate(_ row: RowChange, path: String) throws {
        guard let parts = RecordID.parts(row.id, of: row.entity) else {
            throw CardboxError.invalid(
                field: "\(path).id", reason: "'\(row.id.prefix(80))' is not a \(row.entity.rawValue) id")
        }
        try checkReplica(row.created.replicaId, path: "\(path).created")
        for name in row.fields.keys.sorted() {
            guard let field = row.entity.field(named: name) else {
                throw CardboxError.invalid(
                    field: "\(path).fields.\(name)", reason: "is not a field of \(row.entity.rawValue)")
            }
            let change = row.fields[name]!
            try WireReader(change.value, path: "\(path).fields.\(name)").check(field)
            try checkReplica(change.clock.replicaId, path: "\(path).fields.\(name)")
        }
        let missing = row.entity.fields.map(\.name).filter { row.fields[$0] == nil }
        guard missing.isEmpty else {
            throw CardboxError.invalid(field: "\(path).fields", reason: "misses \(missing.joined(separator: ", "))")
        }
        if let (field, reason) = rowProblem(row) {
            throw CardboxError.invalid(field: "\(path).fields.\(field)", reason: reason)
        }
        if case .composite(let columns) = row.entity.identity {
            // A record named by its fields must carry the fields its name says.
            let named = columns.map { row.fields[$0]?.value }
            guard named == parts.map({ JSONValue.string($0) }) else {
                throw CardboxError.invalid(
                    field: "\(path).id", reason: "does not match its fields \(columns.joined(separator: ", "))")
            }
        }
    }

    /// 1 to 64 characters, bounded in bytes too (a character may hold many scalars), none of them
    /// control characters: replica ids are keys in the server's tables, where PostgreSQL refuses NUL.
    private static func isReplica(_ replica: String) -> Bool {
        // A character takes one byte or more: 64 bytes or fewer are 64 characters or fewer, without
        // counting graphemes (the common case, a UUID).
        let bytes = replica.utf8.count
        return bytes > 0 && bytes <= 256 && (bytes <= 64 || replica.count <= 64) && !replica.containsControlCharacters
    }

    private static func checkReplica(_ replica: String, path: String) throws {
        guard isReplica(replica) else {
            throw CardboxError.invalid(
                field: path, reason: "names a replica of 1 to 64 characters, none of them control characters")
        }
    }
}

/// Reads one value of a change set, knowing where it is, so every error names its place.
struct WireReader {
    let value: JSONValue
    /// Where the value is, spelled out only for an error: a change set of a hundred thousand rows
    /// has millions of places, and naming each as it was read took longer than reading it.
    private let place: WirePlace

    init(_ value: JSONValue, path: String) {
        self.init(value, place: .root(path))
    }

    private init(_ value: JSONValue, place: WirePlace) {
        self.value = value
        self.place = place
    }

    var path: String { place.text }

    func error(_ member: String?, _ reason: String) -> CardboxError {
        CardboxError.invalid(field: member.map { "\(path).\($0)" } ?? path, reason: reason)
    }

    func object() throws -> WireReader {
        guard case .object = value else { throw error(nil, "must be an object") }
        return self
    }

    func member(_ name: String) throws -> WireReader {
        guard case .object(let members) = value else { throw error(nil, "must be an object") }
        guard let member = members[name] else { throw error(name, "is missing") }
        return WireReader(member, place: .member(place, name))
    }

    func members() throws -> [(String, WireReader)] {
        guard case .object(let members) = value else { throw error(nil, "must be an object") }
        return members.sorted { $0.key < $1.key }.map { ($0.key, WireReader($0.value, place: .member(place, $0.key))) }
    }

    func array() throws -> [WireReader] {
        guard case .array(let values) = value else { throw error(nil, "must be an array") }
        return values.enumerated().map { WireReader($0.element, place: .index(place, $0.offset)) }
    }

    func string() throws -> String {
        guard case .string(let text) = value else { throw error(nil, "must be a string") }
        return text
    }

    func integer() throws -> Int64 {
        guard case .int(let number) = value else { throw error(nil, "must be a whole number") }
        return number
    }

    func entity() throws -> SyncedEntity {
        let name = try string()
        guard let entity = SyncedEntity(rawValue: name) else {
            throw error(nil, "'\(name.prefix(80))' is not a synced entity")
        }
        return entity
    }

    /// Checks a field's value against its wire types: one value, or an object of exactly its columns.
    func check(_ field: SyncedField) throws {
        if let (member, reason) = Self.problem(value, field) { throw error(member, reason) }
    }

    func check(_ column: WireColumn) throws {
        if let reason = Self.problem(value, column) { throw error(nil, reason) }
    }

    /// What is wrong with a field's value (and in which member of a composite field), or nil.
    static func problem(_ value: JSONValue, _ field: SyncedField) -> (member: String?, reason: String)? {
        guard field.isComposite else { return problem(value, field.columns[0]).map { (nil, $0) } }
        guard case .object(let members) = value else { return (nil, "must be an object") }
        let known = field.columns.count { members[$0.name] != nil }
        if known < members.count,
            let unknown = members.keys.sorted().first(where: { key in !field.columns.contains { $0.name == key } })
        {
            return (unknown, "is not part of \(field.name)")
        }
        for column in field.columns {
            let value = members[column.name] ?? .null
            if let reason = problem(value, column) { return (column.name, reason) }
            if case .presentWhen(let flag) = column.rule, (value != .null) != (members[flag] == .bool(true)) {
                return (column.name, "must be set exactly when \(flag) is true")
            }
        }
        return nil
    }

    static func problem(_ value: JSONValue, _ column: WireColumn) -> String? {
        switch (value, column.type) {
        case (.null, _): column.isOptional ? nil : "must not be null"
        case (.string(let text), .text):
            column.rule?.problem(value) ?? WireRule.textProblem(text)
        case (.int(let milliseconds), .time):
            StoredTime.milliseconds.contains(milliseconds)
                ? column.rule?.problem(value)
                : "must be milliseconds since 1970 from 0 to \(StoredTime.latestMilliseconds) (the year 10889)"
        case (.int, .integer), (.int, .real), (.double, .real):
            column.rule?.problem(value)
        case (.string(let text), .id): UUID.isStoredForm(text) ? nil : "'\(text.prefix(80))' is not an id"
        case (.bool, .boolean): nil
        default: "must be \(describe(column.type))"
        }
    }

    static func describe(_ type: WireType) -> String {
        switch type {
        case .text: "a string"
        case .integer: "a whole number"
        case .real: "a number"
        case .boolean: "true or false"
        case .time: "milliseconds since 1970"
        case .id: "an id"
        }
    }

    /// Refuses nesting deeper than a change set ever has, before the JSON parser sees it: deep
    /// nesting would otherwise exhaust the stack.
    static func checkDepth(_ text: String, limit: Int) throws {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in text.utf8 {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                guard depth <= limit else {
                    throw CardboxError.invalid(field: "changes", reason: "nests deeper than \(limit) levels")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
    }
}

/// A place in a change set: `changes.rows[3].fields.front`.
indirect enum WirePlace {
    case root(String)
    case member(WirePlace, String)
    case index(WirePlace, Int)

    var text: String {
        switch self {
        case .root(let name): name
        case .member(let parent, let name): "\(parent.text).\(name)"
        case .index(let parent, let offset): "\(parent.text)[\(offset)]"
        }
    }
}

/// Wire ids: a UUID, or for composite identities the identity columns' values joined by "/".
public enum RecordID {
    public static func parts(_ id: String, of entity: SyncedEntity) -> [String]? {
        switch entity.identity {
        case .uuid:
            return UUID.isStoredForm(id) ? [id] : nil
        case .composite(let columns):
            let parts = id.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == columns.count else { return nil }
            for (part, isID) in zip(parts, identityIsID[entity] ?? []) {
                if isID
                    ? !UUID.isStoredForm(part)
                    : (part.isEmpty || part.count > 200 || part.utf8.count > 800 || part.containsControlCharacters)
                {
                    return nil
                }
            }
            return parts
        }
    }

    public static func make(_ parts: [String]) -> String { parts.joined(separator: "/") }

    /// For each entity named by columns, which of them hold ids (looked up once, not per record).
    private static let identityIsID: [SyncedEntity: [Bool]] = Dictionary(
        uniqueKeysWithValues: SyncedEntity.allCases.compactMap { entity in
            guard case .composite(let columns) = entity.identity else { return nil }
            return (
                entity,
                columns.map { column in
                    entity.field(ofColumn: column)?.columns.first { $0.name == column }?.type == .id
                }
            )
        })
}

extension UUID {
    /// Whether `text` is an id as Cardbox writes it: lowercase 8-4-4-4-12 hex digits.
    public static func isStoredForm(_ text: String) -> Bool { Validate.isStoredId(text) }
}
