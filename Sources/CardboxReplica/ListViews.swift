/// What the browser's list pages show when they are drawn from the replica (offline): the lists and
/// their items in the order the server's pages show them, as JSON for the page to draw.
extension ReplicaRecords {
    /// Every list a person sees, by position key then id (as `ListStore.lists()`):
    /// `[{"id", "name", "isArchived", "items", "remaining"}]`, with how many items it has and how many
    /// of them are not crossed out.
    public func listsView() -> JSONValue {
        .array(
            visibleLists().map { list in
                let items = items(ofList: list.id)
                let remaining = items.filter { !Self.isCrossedOut($0) }.count
                return .object([
                    "id": .string(list.id), "name": list.fields["name"]?.value ?? .string(""),
                    "isArchived": list.fields["isArchived"]?.value ?? .bool(false),
                    "items": .int(Int64(items.count)), "remaining": .int(Int64(remaining)),
                ])
            })
    }

    /// A list and its items in order: `{"id", "name", "items": [{"id", "title", "description",
    /// "quantity", "isCrossedOut"}]}`; seed 002's not-found when a person does not see it.
    public func listView(_ id: String) throws(CardboxError) -> JSONValue {
        let key = try visibleList(id)
        let items: [JSONValue] = items(ofList: id).map { item in
            var fields: [String: JSONValue] = ["id": .string(item.id)]
            for name in ["title", "description", "quantity", "isCrossedOut"] {
                fields[name] = item.fields[name]?.value ?? .null
            }
            return .object(fields)
        }
        return .object([
            "id": .string(id), "name": records.rows[key]?.fields["name"]?.value ?? .string(""), "items": .array(items),
        ])
    }

    static func isCrossedOut(_ item: ReplicaRow<NamedEntity>) -> Bool {
        item.fields["isCrossedOut"]?.value == .bool(true)
    }
}
