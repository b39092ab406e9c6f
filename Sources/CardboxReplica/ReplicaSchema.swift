/// What a replica that keeps records by their names alone needs to know of the synced entities (the
/// browser's replica, which has no registry of its own): each entity's name, whether its deletes
/// are final, the fields that name its parents, and its columns of real numbers. The native registry writes it
/// (`SyncRegistry.replicaSchema`); the browser reads it as JSON, so the two never disagree.
public struct ReplicaSchema: Sendable, Equatable {
    /// A field of a row naming its parent record: the field, the column within it when the field is
    /// composite (an item's `placement` holds `listId`), and the parent's entity.
    public struct Parent: Sendable, Equatable {
        public let field: String
        public let column: String
        public let entity: String

        public init(field: String, column: String, entity: String) {
            self.field = field
            self.column = column
            self.entity = entity
        }

        /// The parent's id in `row`, or nil when the row names none.
        func parentId<Entity>(in row: ReplicaRow<Entity>) -> String? {
            switch row.fields[field]?.value {
            case .string(let id)?: id
            case .object(let columns)?: if case .string(let id)? = columns[column] { id } else { nil }
            default: nil
            }
        }
    }

    /// A column of a field: the field itself, or one of a composite field's columns.
    public struct Column: Sendable, Equatable {
        public let field: String
        public let column: String

        public init(field: String, column: String) {
            self.field = field
            self.column = column
        }
    }

    public struct Entity: Sendable, Equatable {
        public let name: String
        public let deletesFinally: Bool
        public let parents: [Parent]
        /// Columns holding real numbers: a whole number read from the wire (`1.0` reads as `1`) is
        /// held there as a real, as a device's typed column holds it.
        public let realColumns: [Column]

        public init(name: String, deletesFinally: Bool, parents: [Parent], realColumns: [Column]) {
            self.name = name
            self.deletesFinally = deletesFinally
            self.parents = parents
            self.realColumns = realColumns
        }
    }

    /// In the registry's order: the order of a canonical dump.
    public let entities: [Entity]
    private let byName: [String: Entity]

    public init(entities: [Entity]) {
        self.entities = entities
        var byName: [String: Entity] = [:]
        for entity in entities { byName[entity.name] = entity }
        self.byName = byName
    }

    public static func == (lhs: ReplicaSchema, rhs: ReplicaSchema) -> Bool { lhs.entities == rhs.entities }

    public func entity(named name: String) -> NamedEntity? {
        byName[name].map { NamedEntity(rawValue: $0.name, deletesFinally: $0.deletesFinally) }
    }

    func parents(of entity: NamedEntity) -> [Parent] { byName[entity.rawValue]?.parents ?? [] }

    /// The row with its real columns' whole numbers held as reals.
    func typed(_ row: ReplicaRow<NamedEntity>) -> ReplicaRow<NamedEntity> {
        guard let columns = byName[row.entity.rawValue]?.realColumns, !columns.isEmpty else { return row }
        var row = row
        for place in columns {
            guard var field = row.fields[place.field] else { continue }
            switch field.value {
            case .int(let whole) where place.column == place.field:
                field.value = .double(Double(whole))
            case .object(var members):
                guard case .int(let whole)? = members[place.column] else { continue }
                members[place.column] = .double(Double(whole))
                field.value = .object(members)
            default: continue
            }
            row.fields[place.field] = field
        }
        return row
    }

    /// `{"entities": [{"name", "final", "parents": [{"field", "column", "entity"}], "reals": [{"field",
    /// "column"}]}]}`
    public var json: JSONValue {
        .object([
            "entities": .array(
                entities.map { entity in
                    .object([
                        "name": .string(entity.name), "final": .bool(entity.deletesFinally),
                        "parents": .array(
                            entity.parents.map {
                                .object([
                                    "field": .string($0.field), "column": .string($0.column),
                                    "entity": .string($0.entity),
                                ])
                            }),
                        "reals": .array(
                            entity.realColumns.map {
                                .object(["field": .string($0.field), "column": .string($0.column)])
                            }),
                    ])
                })
        ])
    }

    /// Reads `json`'s form.
    public init(json: JSONValue) throws(WireProblem) {
        let root = WireValue(json, "schema")
        var entities: [Entity] = []
        for entity in try root.member("entities").array() {
            var parents: [Parent] = []
            for parent in try entity.member("parents").array() {
                parents.append(
                    Parent(
                        field: try parent.member("field").string(), column: try parent.member("column").string(),
                        entity: try parent.member("entity").string()))
            }
            var reals: [Column] = []
            for real in try entity.member("reals").array() {
                reals.append(
                    Column(field: try real.member("field").string(), column: try real.member("column").string()))
            }
            entities.append(
                Entity(
                    name: try entity.member("name").string(), deletesFinally: try entity.member("final").bool(),
                    parents: parents, realColumns: reals))
        }
        self.init(entities: entities)
    }
}

/// An entity known by its name (the browser's replica's), with its delete rule from the schema.
public struct NamedEntity: MergedEntity, RawRepresentable {
    public let rawValue: String
    public let deletesFinally: Bool

    public init(rawValue: String, deletesFinally: Bool) {
        self.rawValue = rawValue
        self.deletesFinally = deletesFinally
    }

    /// Needed by `RawRepresentable`; an entity made this way deletes finally, as most do.
    public init(rawValue: String) { self.init(rawValue: rawValue, deletesFinally: true) }

    public static func == (lhs: NamedEntity, rhs: NamedEntity) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
