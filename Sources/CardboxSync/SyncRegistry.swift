import CardboxCore
import Foundation

/// How one stored value travels in a change set. Independent of any database's column types: the
/// device store and the server each map these to their own columns.
public enum WireType: Sendable, Equatable {
    /// A JSON string.
    case text
    /// A JSON integer.
    case integer
    /// A JSON number.
    case real
    /// `true` or `false` (stored as 0/1).
    case boolean
    /// Integer milliseconds since 1970, UTC.
    case time
    /// A record id: lowercase 8-4-4-4-12 UUID text.
    case id
}

/// What a value must be beyond its type: the device store's CHECK constraints, said again here so
/// that the server refuses a change set every device would refuse to apply (a page that cannot be
/// applied stops every device's sync of the account at it).
public enum WireRule: Sendable, Equatable {
    /// Text other than "".
    case nonEmpty
    /// Text of `length` characters (grapheme clusters, as a person counts them and the engine's
    /// `Validate` does), and at most `Validate.scalarsPerCharacter` Unicode scalars a character.
    case length(ClosedRange<Int>)
    /// Text of exactly this many characters (Unicode scalars, as SQLite counts them).
    case characters(Int)
    /// One of these texts.
    case oneOf([String])
    /// A number from `low` to `high`, each end included unless said otherwise.
    case range(low: Double?, high: Double?, excludingLow: Bool = false, excludingHigh: Bool = false)
    /// Set (not null) exactly when the boolean column named is true (an archived card's time).
    case presentWhen(String)
    /// Learning or relearning steps the scheduler can use (`StudySteps`).
    case steps
    /// FSRS parameters as a deck stores them: a JSON array of 21 numbers within FSRS's bounds.
    case fsrsParameters
    /// A setting's value: JSON text that the setting the named column holds may take
    /// (`UserSettings.takeStored`). Checked with the whole row (`problem(_:in:)`).
    case settingValue(keyColumn: String)

    static let int32 = WireRule.within(0...Int(Int32.max))

    /// A number within `range`, both ends included.
    static func within<Bound: BinaryInteger>(_ range: ClosedRange<Bound>) -> WireRule {
        .range(low: Double(range.lowerBound), high: Double(range.upperBound))
    }

    static func within(_ range: ClosedRange<Double>) -> WireRule {
        .range(low: range.lowerBound, high: range.upperBound)
    }
    static let scheduleStates = CardState.allCases.map(\.rawValue)
    static let suggestionCategories = SuggestionCategory.allCases.map(\.rawValue)

    /// The most Unicode scalars any text on the wire may hold, where the engine sets no tighter
    /// limit (a card's image prompt, its structured content): what its longest texts (50,000
    /// characters) may hold.
    public static let textMaximumScalars = Limits.cardBackMaximum * Validate.scalarsPerCharacter

    /// Why a text is longer than any text on the wire may be, or nil.
    static func textProblem(_ text: String) -> String? {
        // Bytes first: counting the scalars of a long text costs more than its byte count.
        guard text.utf8.count > textMaximumScalars, text.unicodeScalars.count > textMaximumScalars else { return nil }
        return "must be at most \(textMaximumScalars) Unicode scalars"
    }

    /// Why `value` (of the right type, not null) breaks the rule, or nil.
    func problem(_ value: JSONValue) -> String? {
        switch (self, value) {
        case (.nonEmpty, .string(let text)): return text.isEmpty ? "must not be empty" : nil
        case (.length(let length), .string(let text)):
            if text.isEmpty { return length.lowerBound > 0 ? "must not be empty" : nil }
            let scalars = length.upperBound * Validate.scalarsPerCharacter
            if text.unicodeScalars.count > scalars {
                return "must be at most \(length.upperBound) characters, and at most \(scalars) Unicode scalars"
            }
            let count = text.count
            return length.contains(count)
                ? nil : "must be \(length.lowerBound) to \(length.upperBound) characters, got \(count)"
        case (.characters(let count), .string(let text)):
            return text.unicodeScalars.count == count ? nil : "must be \(count) characters"
        case (.oneOf(let choices), .string(let text)):
            return choices.contains(text) ? nil : "must be one of \(choices.joined(separator: ", "))"
        case (.steps, .string(let text)):
            if case .failure(let problem) = StudySteps.parse(text) { return problem.reason }
            return nil
        case (.fsrsParameters, .string(let text)):
            if case .failure(let problem) = StudyRanges.storedParameters(text) { return problem.reason }
            return nil
        case (.range(let low, let high, let excludingLow, let excludingHigh), _):
            let number: Double
            switch value {
            case .int(let whole): number = Double(whole)
            case .double(let real): number = real
            default: return nil
            }
            let tooLow = low.map { excludingLow ? number <= $0 : number < $0 } ?? false
            let tooHigh = high.map { excludingHigh ? number >= $0 : number > $0 } ?? false
            guard tooLow || tooHigh else { return nil }
            return "must be " + Self.describe(low, high, excludingLow, excludingHigh)
        default: return nil
        }
    }

    /// Why `value`, with the row's other columns `members`, breaks a rule that reads two columns.
    func problem(_ value: JSONValue, in members: (String) -> JSONValue?) -> String? {
        guard case .settingValue(let keyColumn) = self, case .string(let key)? = members(keyColumn),
            case .string(let text) = value
        else { return nil }
        guard let stored = try? JSONValue.parse(text, field: "value") else { return "must be JSON text" }
        var settings = UserSettings()
        return settings.takeStored(key, stored).map { "\(key) \($0)" }
    }

    private static func describe(_ low: Double?, _ high: Double?, _ excludingLow: Bool, _ excludingHigh: Bool) -> String
    {
        func text(_ number: Double) -> String {
            number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        }
        switch (low, high) {
        case (let low?, let high?):
            return
                "from \(text(low))\(excludingLow ? " (excluded)" : "") to \(text(high))\(excludingHigh ? " (excluded)" : "")"
        case (let low?, nil): return excludingLow ? "more than \(text(low))" : "\(text(low)) or more"
        case (nil, let high?): return excludingHigh ? "less than \(text(high))" : "\(text(high)) or less"
        case (nil, nil): return "a number"
        }
    }
}

/// One column of a synced field.
public struct WireColumn: Sendable, Equatable {
    public let name: String
    public let type: WireType
    public let isOptional: Bool
    public let rule: WireRule?

    public init(_ name: String, _ type: WireType, optional: Bool = false, _ rule: WireRule? = nil) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.rule = rule
    }
}

/// The unit of last-writer-wins: a field carries one value and one clock. Columns that must change
/// together (a card's scheduling state, a row's parent and position) form one field, so a merge
/// never mixes them from two writes.
public struct SyncedField: Sendable, Equatable {
    public let name: String
    public let columns: [WireColumn]

    /// A field of one column, named as it.
    public init(_ column: WireColumn) {
        name = column.name
        columns = [column]
    }

    /// A field of several columns, carried as one JSON object.
    public init(_ name: String, _ columns: [WireColumn]) {
        self.name = name
        self.columns = columns
    }

    public var isComposite: Bool { columns.count > 1 || columns.first?.name != name }
}

/// A column naming the row a row belongs to: when the parent goes, the child goes.
public struct ParentReference: Sendable, Equatable {
    public let column: String
    public let parent: SyncedEntity
    /// A move changes it (an item to another list, a board card to another column, a column to
    /// another board when one board is merged into another). Such a child is kept aside, not
    /// deleted, when its parent is deleted: a later move may bring it back (a merge's moves and its
    /// deletion may arrive in either order).
    public let isMovable: Bool
}

/// How a record is named on the wire.
public enum RecordIdentity: Sendable, Equatable {
    /// An `id` column holding a UUID.
    case uuid
    /// The values of these columns joined by "/": records without an id of their own (a card's tag
    /// link, a setting), so two devices that make the same one make the same record.
    case composite([String])
}

/// What a delete means for a record.
public enum DeletionRule: Sendable, Equatable {
    /// A delete is final: the id was random, so no later write can mean the same record again.
    case final
    /// The id is derived from a name (a tag, a tag link, a setting): making it again is a new write
    /// that wins over an older delete, as any field does.
    case lastWriterWins
}

/// A synced entity: a table of the store whose rows every replica of an account holds.
public enum SyncedEntity: String, CaseIterable, Sendable, Codable {
    case account
    case setting
    case deck, card, tag, cardTag, suggestion, rejectedSuggestion, reviewLog
    case itemList, item, itemImage
    case board, boardColumn, boardCard

    /// The case's place in declaration order (`allCases`' order): a case without a payload is
    /// represented by it.
    public var ordinal: Int { Int(withUnsafeBytes(of: self) { $0[0] }) }

    /// Hashed by its place, not by its name (the default for a type with a raw value): sets and
    /// dictionaries of entities are asked at every row a store writes. Equal entities have equal
    /// places, so this agrees with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }

    public var identity: RecordIdentity { SyncRegistry.descriptor(self).identity }
    public var deletion: DeletionRule { SyncRegistry.descriptor(self).deletion }
    public var fields: [SyncedField] { SyncRegistry.descriptor(self).fields }
    public var parents: [ParentReference] { SyncRegistry.descriptor(self).parents }
    /// The field holding the row's place among its siblings, and the column naming those siblings'
    /// parent (nil: ordered among all of the account's rows).
    public var ordering: (field: String, parentColumn: String?)? { SyncRegistry.descriptor(self).ordering }

    public func field(named name: String) -> SyncedField? { SyncRegistry.descriptor(self).fieldsByName[name] }

    /// The field a column belongs to.
    public func field(ofColumn column: String) -> SyncedField? {
        SyncRegistry.descriptor(self).fieldsByColumn[column]
    }

    /// Every column the fields carry, in registry order.
    public var columns: [WireColumn] { fields.flatMap(\.columns) }

    /// The entities whose rows name a row of this one as their parent.
    public var children: [(entity: SyncedEntity, reference: ParentReference)] {
        SyncedEntity.allCases.flatMap { child in
            child.parents.filter { $0.parent == self }.map { (child, $0) }
        }
    }
}

extension SyncedEntity: MergedEntity {
    public var deletesFinally: Bool { deletion == .final }
}

/// The descriptor of one entity: what the generic code (capture, apply, delete, dump) reads.
public struct EntityDescriptor: Sendable {
    public let identity: RecordIdentity
    public let deletion: DeletionRule
    public let fields: [SyncedField]
    public let parents: [ParentReference]
    public let ordering: (field: String, parentColumn: String?)?
    let fieldsByName: [String: SyncedField]
    let fieldsByColumn: [String: SyncedField]

    init(
        identity: RecordIdentity = .uuid, deletion: DeletionRule = .final, fields: [SyncedField],
        parents: [ParentReference] = [], ordering: (field: String, parentColumn: String?)? = nil
    ) {
        self.identity = identity
        self.deletion = deletion
        self.fields = fields
        self.parents = parents
        self.ordering = ordering
        fieldsByName = Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0) })
        fieldsByColumn = Dictionary(
            uniqueKeysWithValues: fields.flatMap { field in field.columns.map { ($0.name, field) } })
    }
}

/// The registry of synced entities and their fields: the one place that says what sync carries.
/// `version` changes whenever a field is added, renamed or re-encoded; change sets carry it, and a
/// replica refuses a version it does not know.
public enum SyncRegistry {
    public static let version = 1

    /// Columns a store derives from fields (lookup keys): never sent, recomputed on apply.
    public static let derivedColumns: Set<String> = ["nameKey", "frontKey"]

    public static func descriptor(_ entity: SyncedEntity) -> EntityDescriptor { descriptorsByCase[entity.ordinal] }

    /// The descriptors in the order of `SyncedEntity.allCases`: read at every row a store writes,
    /// by the case's place instead of through a dictionary that hashed its name.
    private static let descriptorsByCase = SyncedEntity.allCases.map { descriptors[$0]! }

    /// Optional fields added after the registry's version was first shipped. A row written before
    /// one came (kept by a server, sent by an older device) reads it as null, at the earliest clock;
    /// an older Cardbox refuses a row that carries it, so devices update with their server.
    public static let laterFields: [SyncedEntity: [String]] = [.card: ["clozeNumber"]]

    private static func plain(_ columns: WireColumn...) -> [SyncedField] { columns.map(SyncedField.init) }

    private static func parent(_ column: String, _ entity: SyncedEntity, movable: Bool = false) -> ParentReference {
        ParentReference(column: column, parent: entity, isMovable: movable)
    }

    private static let stamps = plain(.init("createdAt", .time), .init("modifiedAt", .time))

    private static let descriptors: [SyncedEntity: EntityDescriptor] = [
        .account: EntityDescriptor(
            fields: plain(
                .init("plan", .text, .oneOf(["free", "premium"])), .init("freeCardLimit", .integer, .int32))),
        .setting: EntityDescriptor(
            identity: .composite(["key"]), deletion: .lastWriterWins,
            fields: plain(.init("key", .text, .nonEmpty), .init("value", .text, .settingValue(keyColumn: "key")))),
        .deck: EntityDescriptor(
            fields: plain(
                .init("name", .text, .length(Limits.deckName)), .init("frontLanguage", .text, .characters(2)),
                .init("backLanguage", .text, .characters(2)), .init("queuedSuggestions", .integer, .int32),
                .init("desiredRetention", .real, .within(StudyRanges.desiredRetention)),
                .init("learningSteps", .text, .steps), .init("relearningSteps", .text, .steps),
                .init("maximumInterval", .integer, .within(StudyRanges.maximumInterval)),
                .init("newCardsPerDay", .integer, .within(StudyRanges.dailyLimit)),
                .init("reviewsPerDay", .integer, .within(StudyRanges.dailyLimit)),
                .init("fsrsParameters", .text, optional: true, .fsrsParameters), .init("enableFuzz", .boolean))
                + stamps),
        .card: EntityDescriptor(
            fields: plain(
                .init("deckId", .id), .init("front", .text, .length(1...Limits.cardFrontMaximum)),
                .init("back", .text, .length(0...Limits.cardBackMaximum)),
                .init("cardType", .text, .length(Limits.cardType)),
                .init("notes", .text, .length(0...Limits.itemDescriptionMaximum)), .init("frontLanguage", .text),
                .init("backLanguage", .text),
                .init("isFavorite", .boolean), .init("imageHash", .text, optional: true),
                .init("imagePrompt", .text, optional: true), .init("jsonContent", .text, optional: true),
                .init("isIncomplete", .boolean),
                .init("clozeNumber", .integer, optional: true, .range(low: 1, high: 999)))
                + [
                    // Archiving sets both or neither (the schema checks it).
                    SyncedField(
                        "archive",
                        [
                            .init("isArchived", .boolean),
                            .init("archivedAt", .time, optional: true, .presentWhen("isArchived")),
                        ]),
                    // One answer writes the whole scheduling state: never half of two answers.
                    SyncedField(
                        "schedule",
                        [
                            .init("state", .text, .oneOf(WireRule.scheduleStates)),
                            .init("step", .integer, optional: true, .within(StudyRanges.stepIndex)),
                            .init("stability", .real, optional: true, .within(StudyRanges.stability)),
                            .init("difficulty", .real, optional: true, .within(StudyRanges.difficulty)),
                            .init("lastReviewAt", .time, optional: true),
                            .init("reps", .integer, .within(StudyRanges.answerCount)),
                            .init("lapses", .integer, .within(StudyRanges.answerCount)),
                            .init("dueAt", .time, optional: true),
                        ]),
                ] + stamps,
            parents: [parent("deckId", .deck)]),
        .tag: EntityDescriptor(
            deletion: .lastWriterWins,
            fields: plain(.init("name", .text, .length(Limits.tagName)), .init("createdAt", .time))),
        .cardTag: EntityDescriptor(
            identity: .composite(["cardId", "tagId"]), deletion: .lastWriterWins,
            fields: plain(.init("cardId", .id), .init("tagId", .id)),
            parents: [parent("cardId", .card), parent("tagId", .tag)]),
        .suggestion: EntityDescriptor(
            fields: plain(
                .init("deckId", .id), .init("front", .text, .length(1...Limits.cardFrontMaximum)),
                .init("back", .text, .length(0...Limits.cardBackMaximum)),
                .init("cardType", .text, .length(Limits.cardType)),
                .init("imagePrompt", .text, optional: true),
                .init("context", .text, .length(0...Limits.itemDescriptionMaximum)),
                .init("category", .text, .oneOf(WireRule.suggestionCategories)),
                .init("isVisible", .boolean), .init("imageHash", .text, optional: true), .init("createdAt", .time)),
            parents: [parent("deckId", .deck)]),
        .rejectedSuggestion: EntityDescriptor(
            fields: plain(
                .init("deckId", .id), .init("front", .text, .length(1...Limits.cardFrontMaximum)),
                .init("cardType", .text, .length(Limits.cardType)), .init("deletedAt", .time)),
            parents: [parent("deckId", .deck)]),
        .reviewLog: EntityDescriptor(
            fields: plain(
                .init("cardId", .id), .init("deckId", .id), .init("rating", .integer, .range(low: 1, high: 4)),
                .init("reviewedAt", .time), .init("stateBefore", .text, .oneOf(WireRule.scheduleStates)),
                .init("stateAfter", .text, .oneOf(CardState.allCases.filter { $0 != .new }.map(\.rawValue))),
                .init("elapsedDays", .integer, .within(StudyRanges.elapsedDays)),
                .init("durationMs", .integer, optional: true, .within(StudyRanges.answerDuration)),
                .init("previous", .text)),
            parents: [parent("cardId", .card), parent("deckId", .deck)]),
        .itemList: EntityDescriptor(
            fields: [SyncedField("placement", [.init("position", .text)])]
                + plain(.init("name", .text, .length(Limits.listName)), .init("isArchived", .boolean)) + stamps,
            ordering: ("placement", nil)),
        .item: EntityDescriptor(
            fields: [SyncedField("placement", [.init("listId", .id), .init("position", .text)])]
                + plain(
                    .init("title", .text, .length(Limits.itemTitle)),
                    .init("description", .text, .length(0...Limits.itemDescriptionMaximum)),
                    .init("quantity", .integer, optional: true, .range(low: -2_147_483_648, high: 2_147_483_647)),
                    .init("isCrossedOut", .boolean)) + stamps,
            parents: [parent("listId", .itemList, movable: true)], ordering: ("placement", "listId")),
        .itemImage: EntityDescriptor(
            fields: plain(.init("itemId", .id), .init("imageHash", .text), .init("createdAt", .time))
                + [SyncedField("placement", [.init("position", .text)])],
            parents: [parent("itemId", .item)], ordering: ("placement", "itemId")),
        .board: EntityDescriptor(fields: plain(.init("boardTitle", .text, .length(Limits.boardTitle))) + stamps),
        .boardColumn: EntityDescriptor(
            fields: plain(.init("boardId", .id), .init("listTitle", .text, .length(Limits.boardTitle)))
                + [SyncedField("placement", [.init("position", .text)])] + stamps,
            parents: [parent("boardId", .board, movable: true)], ordering: ("placement", "boardId")),
        .boardCard: EntityDescriptor(
            fields: [SyncedField("placement", [.init("columnId", .id), .init("position", .text)])]
                + plain(
                    .init("cardTitle", .text, .length(Limits.cardTitle)),
                    .init("cardDescription", .text, optional: true, .length(0...Limits.itemDescriptionMaximum)),
                    .init("isArchived", .boolean)) + stamps,
            parents: [parent("columnId", .boardColumn, movable: true)], ordering: ("placement", "columnId")),
    ]
}

extension SyncRegistry {
    /// The registry as a replica that holds records by name needs it (the browser's): entities in
    /// order, their delete rule, and the fields naming their parents.
    public static let replicaSchema = ReplicaSchema(
        entities: SyncedEntity.allCases.map { entity in
            ReplicaSchema.Entity(
                name: entity.rawValue, deletesFinally: entity.deletesFinally,
                parents: entity.parents.map { reference in
                    ReplicaSchema.Parent(
                        field: entity.field(ofColumn: reference.column)!.name, column: reference.column,
                        entity: reference.parent.rawValue)
                },
                realColumns: entity.fields.flatMap { field in
                    field.columns.filter { $0.type == .real }.map {
                        ReplicaSchema.Column(field: field.name, column: $0.name)
                    }
                })
        })
}
