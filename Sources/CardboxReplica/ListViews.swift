/// What the browser's list pages show when they are drawn from the replica (offline): the models
/// the server's list pages are drawn from (`WebPageModels`), made from the records here.
extension ReplicaRecords {
    /// The lists page: every list a person sees, by position key then id (as `ListStore.lists()`),
    /// with how many items it has.
    public func listsPage() -> JSONValue {
        // Each list's items are found through the index of children, not a pass over every record
        // (a pass per list made 300 lists of 100 items take 15 s in the browser).
        WebPageModels.lists(
            visibleLists().map {
                (Self.listName($0), visibleChildren(itemEntity, parent: itemPlacement, of: $0.id).count)
            })
    }

    /// A list's page: its items in order, the crossed-out ones only when the `showCrossedOutItems`
    /// setting is on (seed 002, as `ListStore.list`), each with its pictures; seed 002's not-found
    /// when a person does not see it.
    public func listPage(_ id: String) throws(CardboxError) -> JSONValue {
        let key = try visibleList(id)
        let all = items(ofList: id)
        let showCrossedOut = showsCrossedOutItems()
        var shown: [WebPageModels.ListItem] = []
        for (orderNumber, item) in all.enumerated() where showCrossedOut || !Self.isCrossedOut(item) {
            var quantity: Int64?
            if case .int(let value)? = item.fields["quantity"]?.value { quantity = value }
            shown.append(
                WebPageModels.ListItem(
                    id: item.id, title: Self.text(item, "title"), description: Self.text(item, "description"),
                    quantity: quantity, isCrossedOut: Self.isCrossedOut(item), orderNumber: orderNumber,
                    images: images(ofItem: item.id)))
        }
        let heading = WebPageModels.ListName(id: id, name: records.rows[key].map { Self.text($0, "name") } ?? "")
        return WebPageModels.list(
            heading, items: shown, isEmpty: all.isEmpty, showCrossedOut: showCrossedOut,
            otherLists: visibleLists().filter { $0.id != id }.map(Self.listName))
    }

    /// An item's pictures in order (as `ListStore` reads them: by position key, then id).
    private func images(ofItem itemId: String) -> [(id: String, sha256: String)] {
        guard let entity = schema.entity(named: "itemImage"), let parent = schema.parents(of: entity).first else {
            return []
        }
        return visibleChildren(entity, parent: parent, of: itemId).sorted(by: Self.byPlace).map {
            (id: $0.id, sha256: Self.text($0, "imageHash"))
        }
    }

    /// Seed 002's `showCrossedOutItems` setting as the store reads its text: off unless set on.
    /// A setting's record is named by its key, so it is read straight, not found among all records.
    private func showsCrossedOutItems() -> Bool {
        guard let entity = schema.entity(named: "setting"), isVisible(Key(entity, "showCrossedOutItems")),
            case .string(let text)? = records.rows[Key(entity, "showCrossedOutItems")]?.fields["value"]?.value
        else { return false }
        return SettingFlag.read(text) == true
    }

    private static func listName(_ list: ReplicaRow<NamedEntity>) -> WebPageModels.ListName {
        WebPageModels.ListName(id: list.id, name: text(list, "name"))
    }

    static func text(_ row: ReplicaRow<NamedEntity>, _ field: String) -> String {
        if case .string(let text)? = row.fields[field]?.value { return text }
        return ""
    }

    static func isCrossedOut(_ item: ReplicaRow<NamedEntity>) -> Bool {
        item.fields["isCrossedOut"]?.value == .bool(true)
    }
}
