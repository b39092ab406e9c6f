import CardboxCore
import CardboxSync
import GRDB

/// The store's tables are named after the synced entities they hold.
typealias Entity = SyncedEntity

/// How the store keeps each synced entity: its table, how a row is found by its wire id, and the
/// lookup columns derived from fields. SQL about entities in general is built from here and from
/// the registry, never written per table.
extension SyncedEntity {
    var table: String { rawValue }

    /// The word a person reads in messages.
    var kind: String {
        switch self {
        case .itemList: "list"
        case .itemImage: "image"
        case .boardColumn: "column"
        case .boardCard: "board card"
        case .rejectedSuggestion: "rejected suggestion"
        case .cardTag: "card tag"
        case .reviewLog: "review"
        default: rawValue
        }
    }

    /// Whether its name is its text (a card's front, an item's title), matched after short ids.
    var isNamedByText: Bool { [.card, .suggestion, .item, .boardCard].contains(self) }

    /// The column a person may name the record by, besides its id: a deck's, list's or board's
    /// name, a column's, item's or board card's title, a card's or suggestion's front.
    var nameColumn: String? {
        switch self {
        case .deck, .itemList: "name"
        case .board: "boardTitle"
        case .boardColumn: "listTitle"
        case .card, .suggestion: "front"
        case .item: "title"
        case .boardCard: "cardTitle"
        default: nil
        }
    }

    /// The columns whose values, joined by "/", are the row's wire id.
    var identityColumns: [String] {
        switch identity {
        case .uuid: ["id"]
        case .composite(let columns): columns
        }
    }

    /// SQL for a row's wire id.
    var idExpression: String { idExpression(table: nil) }

    func idExpression(table alias: String?) -> String {
        identityColumns.map { selectExpression($0, table: alias) }.joined(separator: " || '/' || ")
    }

    /// The WHERE clause finding one row by its wire id (arguments: `rowArguments`).
    var rowCondition: String { rowCondition(table: nil) }

    func rowCondition(table alias: String?) -> String {
        identityColumns.map { binding($0, table: alias) }.joined(separator: " AND ")
    }

    // MARK: Columns kept as keys

    /// Wire columns naming a parent that the table keeps as the parent's integer `key` (in the
    /// column `storedColumn` names): the wire carries ids, which are 36 characters; a key takes one
    /// to four bytes in the row and in every index that holds it.
    var keyReferences: [String: SyncedEntity] {
        switch self {
        case .card, .suggestion, .rejectedSuggestion: ["deckId": .deck]
        case .reviewLog: ["cardId": .card, "deckId": .deck]
        case .cardTag: ["cardId": .card, "tagId": .tag]
        default: [:]
        }
    }

    /// The columns the table's b-tree is ordered by, which a walk through it pages by: the rowid, or
    /// for a table without one (tag links: two small keys, no third) its primary key.
    var storageOrder: [String] { self == .cardTag ? ["cardKey", "tagKey"] : ["rowid"] }

    /// `storageOrder` as SQL on the table named `alias`, for an `ORDER BY` or a row value.
    func storageOrder(table alias: String) -> String {
        storageOrder.map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// Whether rows of other tables name this table's rows by an integer `key` column.
    var hasIntegerKey: Bool { Self.keyedEntities.contains(self) }

    private static let keyedEntities = Set(allCases.flatMap { $0.keyReferences.values })

    // MARK: Ids kept as bytes

    /// Whether the table keeps its rows' ids as their 16 bytes, in `uid`, and no text: a card's id
    /// took 36 bytes in its row and again in its unique index (100,000 cards: 4.4 MB of a 41 MB
    /// store). SQL finds a row with `binding("id")`, through `uid`'s index, and reads the id's text
    /// with `idExpression` (its `selectExpression("id", …)`), which makes it from the bytes
    /// (`cardbox_uuid_text`). Until v17 the text was a virtual column, which SQLite computes at
    /// every insert and update of a row: 8 % of a CSV import's instructions.
    var keepsIdAsBytes: Bool { self == .card }

    /// SQL for the bytes of the id given as one argument, its text (NULL when it is not a stored id).
    static let idBytesOfArgument = "\(StoredID.functionName)(?)"

    /// The table's column holding a wire column: its own name, for a key reference its parent's key
    /// (`cardId` → `cardKey`), and for an id kept as bytes `uid`.
    func storedColumn(_ wire: String) -> String {
        if wire == "id" { return keepsIdAsBytes ? "uid" : wire }
        guard keyReferences[wire] != nil, wire.hasSuffix("Id") else { return wire }
        return String(wire.dropLast(2)) + "Key"
    }

    /// The wire column a table's column holds: `storedColumn` undone for a key reference's key
    /// (`deckKey` → `deckId`); any other column is its own.
    func wireColumn(_ stored: String) -> String {
        guard stored.hasSuffix("Key") else { return stored }
        let wire = String(stored.dropLast(3)) + "Id"
        return keyReferences[wire] == nil ? stored : wire
    }

    /// SQL reading a wire column's value from the table (aliased `alias`; a key reference names
    /// the table itself when there is no alias, as its parent's subquery would hide the column).
    func selectExpression(_ wire: String, table alias: String?) -> String {
        let prefix = alias.map { "\($0)." } ?? ""
        if wire == "id" && keepsIdAsBytes { return "\(StoredID.textFunctionName)(\(prefix)uid)" }
        guard let parent = keyReferences[wire] else { return prefix + wire }
        let parentId = parent.selectExpression("id", table: "parent")
        return
            "(SELECT \(parentId) FROM \(parent.table) parent WHERE parent.key = \(alias ?? table).\(storedColumn(wire)))"
    }

    /// SQL giving the stored value of a wire column from one argument, its wire value.
    func valueExpression(_ wire: String) -> String {
        if wire == "id" { return keepsIdAsBytes ? Self.idBytesOfArgument : "?" }
        guard let parent = keyReferences[wire] else { return "?" }
        return "(SELECT key FROM \(parent.table) WHERE \(parent.binding("id")))"
    }

    /// Every column of the table (aliased `alias`), and each key reference again as the id it names:
    /// a row read by wire names.
    func allColumns(table alias: String) -> String {
        let made = (keepsIdAsBytes ? ["id"] : []) + keyReferences.keys.sorted()
        return (["\(alias).*"] + made.map { "\(selectExpression($0, table: alias)) AS \($0)" }).joined(separator: ", ")
    }

    /// `column = value` for a wire column and one argument, its wire value: as a condition or an
    /// assignment.
    func binding(_ wire: String, table alias: String? = nil) -> String {
        let column = alias.map { "\($0).\(storedColumn(wire))" } ?? storedColumn(wire)
        return "\(column) = \(valueExpression(wire))"
    }

    /// A condition on the row's id: it is one of `count` arguments, ids.
    func idAmong(_ count: Int, table alias: String? = nil) -> String {
        let column = alias.map { "\($0).\(storedColumn("id"))" } ?? storedColumn("id")
        return "\(column) IN (\(Array(repeating: valueExpression("id"), count: count).joined(separator: ", ")))"
    }

    /// A condition on a wire column: its value is among the wire values `subquery` selects.
    func membership(_ wire: String, in subquery: String) -> String {
        if let parent = keyReferences[wire] {
            return
                "\(storedColumn(wire)) IN (SELECT key FROM \(parent.table) WHERE \(parent.membership("id", in: subquery)))"
        }
        guard wire == "id", keepsIdAsBytes else { return "\(wire) IN (\(subquery))" }
        return "\(storedColumn("id")) IN (WITH wire(id) AS (\(subquery)) SELECT \(StoredID.functionName)(id) FROM wire)"
    }

    func rowArguments(id: String) -> [DatabaseValue] {
        (RecordID.parts(id, of: self) ?? [id]).map(\.databaseValue)
    }

    /// Lookup columns computed from a field's column, kept in step on every write and apply.
    var derivedColumns: [(column: String, source: String, derive: @Sendable (String) -> String)] {
        switch self {
        case .deck, .tag: [("nameKey", "name", StoreContext.nameKey)]
        case .board: [("nameKey", "boardTitle", StoreContext.nameKey)]
        case .card, .suggestion, .rejectedSuggestion: [("frontKey", "front", SuggestionMatch.frontKey)]
        default: []
        }
    }

    /// Columns the table has that are not synced, with the value a row made by sync gets.
    func localColumns(now: Int64) -> [(String, DatabaseValue)] {
        self == .account ? [("createdAt", now.databaseValue)] : []
    }
}

/// The columns every synced row carries for sync: the clock of its creation (timestamp and replica)
/// and the timestamp of its last local write (0 when only other replicas wrote it).
enum SyncColumns {
    static let timestamp = "syncHlc"
    static let replica = "syncReplica"
    static let version = "syncVersion"
    static let all: Set<String> = [timestamp, replica, version]
}

/// Turns stored values into wire values and back, column by column, by the registry's wire types.
enum WireValue {
    static func from(_ value: DatabaseValue, _ column: WireColumn) -> JSONValue {
        switch value.storage {
        case .null: return .null
        case .int64(let number): return column.type == .boolean ? .bool(number != 0) : .int(number)
        case .double(let number): return .double(number)
        case .string(let text): return .string(text)
        case .blob(let data): return .string(data.base64EncodedString())
        }
    }

    static func stored(_ value: JSONValue) -> DatabaseValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        case .int(let number): return number.databaseValue
        case .double(let number): return number.databaseValue
        case .string(let text): return text.databaseValue
        case .array, .object: return value.jsonText.databaseValue
        }
    }

    /// A field's wire value from its columns' stored values.
    static func field(_ field: SyncedField, _ values: [String: DatabaseValue]) -> JSONValue {
        guard field.isComposite else { return from(values[field.name] ?? .null, field.columns[0]) }
        return .object(
            Dictionary(uniqueKeysWithValues: field.columns.map { ($0.name, from(values[$0.name] ?? .null, $0)) }))
    }

    /// A field's columns and their stored values, from its wire value.
    static func columns(_ field: SyncedField, _ value: JSONValue) -> [(String, DatabaseValue)] {
        guard field.isComposite else { return [(field.name, stored(value))] }
        guard case .object(let members) = value else { return field.columns.map { ($0.name, .null) } }
        return field.columns.map { ($0.name, stored(members[$0.name] ?? .null)) }
    }
}
