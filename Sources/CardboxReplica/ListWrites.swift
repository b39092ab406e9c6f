/// Seed 002's list writes on a replica that holds records by name (the browser's), with the rules
/// and field values `CardboxStore`'s `ListStore` writes: the same validation (`Validate`, `Limits`),
/// position keys (`PositionKey`), and the list's `modifiedAt` touched by every change to its items.
extension ReplicaRecords {
    var itemEntity: NamedEntity { schema.entity(named: "item")! }
    var listEntity: NamedEntity { schema.entity(named: "itemList")! }
    var itemPlacement: ReplicaSchema.Parent { schema.parents(of: itemEntity)[0] }

    /// An item's `placement` field: its list and its key there (one field, so a move is one write).
    private static func placement(_ listId: String, _ position: String) -> JSONValue {
        .object(["listId": .string(listId), "position": .string(position)])
    }

    /// Writes `fields` of an item, then the list's `modifiedAt`, as the store's `touchList` does.
    private mutating func updateItem(
        _ id: String, inList listId: String, _ fields: [String: JSONValue], at clock: WriteClock, now: JSONValue
    ) {
        var fields = fields
        fields["modifiedAt"] = now
        update(Key(itemEntity, id), fields, at: clock)
        update(Key(listEntity, listId), ["modifiedAt": now], at: clock)
    }

    /// The list, when a person sees it; else seed 002's not-found.
    func visibleList(_ id: String) throws(CardboxError) -> Key {
        let key = Key(listEntity, id)
        guard isVisible(key) else { throw CardboxError.notFound(kind: "list", reference: id) }
        return key
    }

    private func visibleItem(_ id: String) throws(CardboxError) -> ReplicaRow<NamedEntity> {
        let key = Key(itemEntity, id)
        guard isVisible(key), let row = records.rows[key] else {
            throw CardboxError.notFound(kind: "item", reference: id)
        }
        return row
    }

    /// Adds an item at the end of a list. `id` is the new record's (the page makes it).
    public mutating func addItem(
        id: String, listId: String, title: String, description: String = "", quantity: Int32? = nil,
        at milliseconds: UInt64, random: inout some RandomNumberGenerator
    ) throws(CardboxError) {
        try Self.requireStoredId(id, of: itemEntity)
        let title = try Validate.text(title, field: "title", length: Limits.itemTitle)
        let description = try Validate.longText(
            description, field: "description", maximum: Limits.itemDescriptionMaximum)
        let list = try visibleList(listId)
        let clock = tick(milliseconds)
        let position = try place(
            at: nil, among: items(ofList: listId), placement: { Self.placement(listId, $0) }, clock: clock,
            random: &random)
        let now = JSONValue.int(Int64(milliseconds))
        create(
            itemEntity, id: id,
            [
                "placement": Self.placement(listId, position), "title": .string(title),
                "description": .string(description), "quantity": quantity.map { .int(Int64($0)) } ?? .null,
                "isCrossedOut": .bool(false), "createdAt": now, "modifiedAt": now,
            ], at: clock)
        update(list, ["modifiedAt": now], at: clock)
    }

    /// The sync refuses any other form of id: a record made here with one would wait for ever.
    static func requireStoredId(_ id: String, of entity: NamedEntity) throws(CardboxError) {
        guard Validate.isStoredId(id) else {
            throw CardboxError.invalid(field: "id", reason: "'\(id.prefix(80))' is not a \(entity.rawValue) id")
        }
    }

    /// Makes a list after the others. `id` is the new record's (the page makes it).
    public mutating func createList(
        id: String, name: String, at milliseconds: UInt64, random: inout some RandomNumberGenerator
    ) throws(CardboxError) {
        try Self.requireStoredId(id, of: listEntity)
        let name = try Validate.text(name, field: "name", length: Limits.listName)
        let clock = tick(milliseconds)
        let position = try PositionKey.between(visibleLists().last.map(Self.position), nil, using: &random)
        let now = JSONValue.int(Int64(milliseconds))
        create(
            listEntity, id: id,
            [
                "placement": .object(["position": .string(position)]), "name": .string(name),
                "isArchived": .bool(false), "createdAt": now, "modifiedAt": now,
            ], at: clock)
    }

    /// Every list a person sees, by position key then id.
    func visibleLists() -> [ReplicaRow<NamedEntity>] {
        visibleTopLevelRows(listEntity).sorted(by: Self.byPlace)
    }

    /// Changes an item's title, description or quantity: each one given (a quantity of `.some(nil)`
    /// takes it away), checked as the store checks it, and written with the list's `modifiedAt`
    /// even when it was already so, as the store writes it.
    public mutating func editItem(
        id: String, title: String? = nil, description: String? = nil, quantity: Int32?? = nil,
        at milliseconds: UInt64
    ) throws(CardboxError) {
        var fields: [String: JSONValue] = [:]
        if let title { fields["title"] = .string(try Validate.text(title, field: "title", length: Limits.itemTitle)) }
        if let description {
            fields["description"] = .string(
                try Validate.longText(description, field: "description", maximum: Limits.itemDescriptionMaximum))
        }
        if let quantity { fields["quantity"] = quantity.map { .int(Int64($0)) } ?? .null }
        let item = try visibleItem(id)
        guard !fields.isEmpty, let listId = itemPlacement.parentId(in: item) else { return }
        updateItem(id, inList: listId, fields, at: tick(milliseconds), now: .int(Int64(milliseconds)))
    }

    /// Deletes an item with its pictures, and touches its list's `modifiedAt`.
    public mutating func deleteItem(id: String, at milliseconds: UInt64) throws(CardboxError) {
        let item = try visibleItem(id)
        guard let listId = itemPlacement.parentId(in: item) else { return }
        let clock = tick(milliseconds)
        delete(Key(itemEntity, id), at: clock)
        update(Key(listEntity, listId), ["modifiedAt": .int(Int64(milliseconds))], at: clock)
    }

    /// Crosses an item out (done) or back in; nil toggles. Crossing it as it already is writes nothing.
    public mutating func crossItem(id: String, crossedOut: Bool? = nil, at milliseconds: UInt64) throws(CardboxError) {
        let item = try visibleItem(id)
        let current = item.fields["isCrossedOut"]?.value == .bool(true)
        let crossed = crossedOut ?? !current
        guard crossed != current, let listId = itemPlacement.parentId(in: item) else { return }
        updateItem(
            id, inList: listId, ["isCrossedOut": .bool(crossed)], at: tick(milliseconds),
            now: .int(Int64(milliseconds)))
    }

    /// Moves an item to `index` (0-based) among the others of its list, or to the end (nil).
    public mutating func moveItem(
        id: String, to index: Int?, at milliseconds: UInt64, random: inout some RandomNumberGenerator
    ) throws(CardboxError) {
        let item = try visibleItem(id)
        guard let listId = itemPlacement.parentId(in: item) else { return }
        let others = items(ofList: listId).filter { $0.id != id }
        try Self.checkSlot(index, among: others)
        let clock = tick(milliseconds)
        let position = try place(
            at: index, among: others, placement: { Self.placement(listId, $0) }, clock: clock, random: &random)
        updateItem(
            id, inList: listId, ["placement": Self.placement(listId, position)], at: clock,
            now: .int(Int64(milliseconds)))
    }

    /// Seed 002's `showCrossedOutItems` setting, as the store writes it: the setting's record (its
    /// id is its key) made, or its value changed; nothing written when it is already so.
    public mutating func showCrossedOutItems(_ show: Bool, at milliseconds: UInt64) throws(CardboxError) {
        guard let entity = schema.entity(named: "setting") else {
            throw CardboxError.invalid(field: "setting", reason: "this replica holds no settings")
        }
        let key = Key(entity, "showCrossedOutItems")
        let value = JSONValue.string(show ? "true" : "false")
        if isVisible(key), let row = records.rows[key] {
            guard row.fields["value"]?.value != value else { return }
            update(key, ["value": value], at: tick(milliseconds))
        } else {
            create(entity, id: key.id, ["key": .string(key.id), "value": value], at: tick(milliseconds))
        }
    }

    /// The items of a list as a person sees them: by position key, then id (two devices may mint the
    /// same key), each with its order number 0…n−1.
    public func items(ofList listId: String) -> [ReplicaRow<NamedEntity>] {
        visibleChildren(itemEntity, parent: itemPlacement, of: listId).sorted(by: Self.byPlace)
    }

    static func position(_ row: ReplicaRow<NamedEntity>) -> String {
        if case .object(let placement)? = row.fields["placement"]?.value, case .string(let key)? = placement["position"]
        {
            return key
        }
        return ""
    }

    static func byPlace(_ a: ReplicaRow<NamedEntity>, _ b: ReplicaRow<NamedEntity>) -> Bool {
        (position(a), a.id) < (position(b), b.id)
    }

    /// Refuses a slot that is not 0…`siblings.count` (nil, the end, is one), before anything is written.
    static func checkSlot(_ index: Int?, among siblings: [ReplicaRow<NamedEntity>]) throws(CardboxError) {
        guard let index, index < 0 || index > siblings.count else { return }
        throw CardboxError.invalid(field: "position", reason: "must be 0 to \(siblings.count), got \(index)")
    }

    /// A position key for slot `index` (checked by `checkSlot`) among `siblings` (a parent's other
    /// children, in order: a list's items, a column's cards), as the store chooses one: after the
    /// last for nil; between the neighbours otherwise; and, when two devices minted the same key
    /// there, the siblings laid out anew first, in the same write (`placement(key)` is a sibling's
    /// placement field with its new key).
    mutating func place(
        at index: Int?, among siblings: [ReplicaRow<NamedEntity>], placement: (String) -> JSONValue,
        clock: WriteClock, random: inout some RandomNumberGenerator
    ) throws(CardboxError) -> String {
        guard let index else { return try PositionKey.between(siblings.last.map(Self.position), nil, using: &random) }
        var keys = siblings.map(Self.position)
        if index > 0, index < keys.count, keys[index - 1] >= keys[index] {
            keys = PositionKey.sequence(count: siblings.count)
            for (sibling, key) in zip(siblings, keys) {
                update(Key(sibling.entity, sibling.id), ["placement": placement(key)], at: clock)
            }
        }
        return try PositionKey.between(
            index == 0 ? nil : keys[index - 1], index < keys.count ? keys[index] : nil, using: &random)
    }
}
