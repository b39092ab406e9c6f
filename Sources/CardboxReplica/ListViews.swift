/// What the browser's list pages show when they are drawn from the replica (offline): the lists and
/// their items in the order the server's pages show them, as JSON for the page to draw.
extension ReplicaRecords {
    /// Every list a person sees, by position key then id (as `ListStore.lists()`):
    /// `[{"id", "name", "isArchived", "items", "remaining"}]`, with how many items it has and how many
    /// of them are not crossed out.
    public func listsView() -> JSONValue {
        // Counted in one pass over the records: a pass per list made 300 lists of 100 items take
        // 15 s in the browser.
        var counts: [String: (items: Int, remaining: Int)] = [:]
        for (key, row) in records.rows where key.entity == itemEntity {
            guard let listId = itemPlacement.parentId(in: row), isVisible(key) else { continue }
            let count = counts[listId] ?? (0, 0)
            counts[listId] = (count.items + 1, count.remaining + (Self.isCrossedOut(row) ? 0 : 1))
        }
        return .array(
            visibleLists().map { list in
                let count = counts[list.id] ?? (0, 0)
                return .object([
                    "id": .string(list.id), "name": list.fields["name"]?.value ?? .string(""),
                    "isArchived": list.fields["isArchived"]?.value ?? .bool(false),
                    "items": .int(Int64(count.items)), "remaining": .int(Int64(count.remaining)),
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
