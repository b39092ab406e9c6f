/// What the web app's list, lists and study templates read (`Web/Templates/*-body.mustache`), made
/// by one builder for the server's pages (from its store) and for the browser's offline pages (from
/// its replica, in WebAssembly): a page drawn offline is the page drawn online. Each model is the
/// template's context as JSON, its names the ones the template reads.
public enum WebPageModels {
    /// An item as a list's page shows it. `orderNumber` is its place among all of the list's items,
    /// crossed-out ones included: where the arrows move it to.
    public struct ListItem: Sendable {
        public var id: String
        public var title: String
        public var description: String
        public var quantity: Int64?
        public var isCrossedOut: Bool
        public var orderNumber: Int
        /// Its pictures in order: each image record's id and its image's hash.
        public var images: [(id: String, sha256: String)]

        public init(
            id: String, title: String, description: String, quantity: Int64?, isCrossedOut: Bool, orderNumber: Int,
            images: [(id: String, sha256: String)]
        ) {
            (self.id, self.title, self.description, self.quantity) = (id, title, description, quantity)
            (self.isCrossedOut, self.orderNumber, self.images) = (isCrossedOut, orderNumber, images)
        }
    }

    /// A list's heading, or a list another item can move to.
    public struct ListName: Sendable {
        public var id: String
        public var name: String

        public init(id: String, name: String) { (self.id, self.name) = (id, name) }
    }

    /// What the new-item form shows again after a refusal.
    public struct ItemDraft: Sendable {
        public var title = ""
        public var quantity = ""
        public var description = ""

        public init(title: String = "", quantity: String = "", description: String = "") {
            (self.title, self.quantity, self.description) = (title, quantity, description)
        }
    }

    /// The lists page: every list in its order, with how many items it has, and for lists of one
    /// name (two devices each made "Groceries" before they synced) the others it can merge into.
    public static func lists(_ lists: [(list: ListName, items: Int)]) -> JSONValue {
        let labels = lists.map { "\($0.list.name) · \(Wording.counted($0.items, "item"))" }
        let others = namesakes(lists.map { $0.list.name })
        return .object([
            "hasLists": .bool(!lists.isEmpty),
            "lists": .array(
                lists.enumerated().map { index, entry in
                    var fields = mergeTargets(others[index], lists.map { $0.list }, labels: labels)
                    fields["id"] = .string(entry.list.id)
                    fields["name"] = .string(entry.list.name)
                    fields["count"] = .int(Int64(entry.items))
                    fields["order"] = .int(Int64(index))
                    fields["arrows"] = arrows(index, of: Array(lists.indices))
                    return .object(fields)
                }),
        ])
    }

    /// For each name, the places of the others of that name (letters of any case): records two
    /// devices made apart before they synced, to tell apart and merge. Each name is folded once.
    public static func namesakes(_ names: [String]) -> [[Int]] {
        let keys = names.map { $0.lowercased() }
        var places: [String: [Int]] = [:]
        for (index, key) in keys.enumerated() { places[key, default: []].append(index) }
        return keys.enumerated().map { index, key in (places[key] ?? []).filter { $0 != index } }
    }

    /// The records at `targets` (a record's namesakes), which it can be merged into, each with a
    /// label that tells them apart: `mergeTargets` and `hasMergeTargets`.
    static func mergeTargets(_ targets: [Int], _ records: [ListName], labels: [String]) -> [String: JSONValue] {
        [
            "hasMergeTargets": .bool(!targets.isEmpty),
            "mergeTargets": .array(
                targets.map { .object(["id": .string(records[$0].id), "label": .string(labels[$0])]) }),
        ]
    }

    /// A list's page: `items` as shown (crossed-out ones left out unless `showCrossedOut`),
    /// `isEmpty` when the list has no item at all, the lists an item can move to, and the new-item
    /// form's draft (`justAdded`: the cursor goes back to it). Crossed-out items sink below the
    /// others, each part in the list's order, as in Reminders and ListAll; an item moves up or down
    /// among the items of its part.
    public static func list(
        _ list: ListName, items: [ListItem], isEmpty: Bool, showCrossedOut: Bool, otherLists: [ListName],
        draft: ItemDraft = ItemDraft(), justAdded: Bool = false
    ) -> JSONValue {
        let parts = [items.filter { !$0.isCrossedOut }, items.filter { $0.isCrossedOut }]
        let shown = parts.flatMap { part in
            let orders = part.map { $0.orderNumber }
            return part.enumerated().map { item($1, arrows: arrows($0, of: orders)) }
        }
        return .object([
            "list": name(list), "items": .array(shown),
            "hasItems": .bool(!items.isEmpty), "isEmpty": .bool(isEmpty), "showCrossedOut": .bool(showCrossedOut),
            "draft": .object([
                "title": .string(draft.title), "quantity": .string(draft.quantity),
                "description": .string(draft.description),
            ]),
            "justAdded": .bool(justAdded), "otherLists": .array(otherLists.map(name)),
            "hasOtherLists": .bool(!otherLists.isEmpty),
        ])
    }

    private static func name(_ list: ListName) -> JSONValue {
        .object(["id": .string(list.id), "name": .string(list.name)])
    }

    private static func item(_ item: ListItem, arrows: JSONValue) -> JSONValue {
        let images = item.images.map { image in
            JSONValue.object(["id": .string(image.id), "sha256": .string(image.sha256), "itemId": .string(item.id)])
        }
        return .object([
            "id": .string(item.id), "title": .string(item.title), "description": .string(item.description),
            // Seed 002: a description's web addresses show as links.
            "descriptionHTML": .string(HTMLText.linkified(item.description)),
            "hasDescription": .bool(!item.description.isEmpty),
            "quantity": .string(item.quantity.map { "\($0)" } ?? ""), "hasQuantity": .bool(item.quantity != nil),
            "crossed": .bool(item.isCrossedOut), "order": .int(Int64(item.orderNumber)), "arrows": arrows,
            // Seed 002: a list shows how many images an item has; they load when its details open.
            "images": .array(images), "hasImages": .bool(!images.isEmpty),
            "imageLabel": .string(images.count == 1 ? "1 image" : "\(images.count) images"),
            "canAddImage": .bool(images.count < Limits.imagesPerItem),
        ])
    }

    /// The arrows that move a row shown at `index` one place back (up, left) or forward (down,
    /// right), given the place among all its siblings of each row shown (`orders`): a move's
    /// position counts the rows the page hides (crossed-out items, archived board cards), so a row
    /// goes to the place of the row shown before or after it. The first row has no back arrow, the
    /// last no forward one.
    public static func arrows(_ index: Int, of orders: [Int]) -> JSONValue {
        let hasBefore = index > 0
        let hasAfter = index + 1 < orders.count
        return .object([
            "hasBefore": .bool(hasBefore), "before": .int(Int64(hasBefore ? orders[index - 1] : 0)),
            "hasAfter": .bool(hasAfter), "after": .int(Int64(hasAfter ? orders[index + 1] : 0)),
        ])
    }

    /// A board's card; `orderNumber` is its place among all of its column's cards, archived ones
    /// included.
    public struct BoardCard: Sendable {
        public var id: String
        public var title: String
        public var description: String?
        public var isArchived: Bool
        public var orderNumber: Int

        public init(id: String, title: String, description: String?, isArchived: Bool, orderNumber: Int) {
            (self.id, self.title, self.description) = (id, title, description)
            (self.isArchived, self.orderNumber) = (isArchived, orderNumber)
        }
    }

    /// A board's column with all of its cards in order, archived ones included.
    public struct BoardColumn: Sendable {
        public var id: String
        public var title: String
        public var cards: [BoardCard]

        public init(id: String, title: String, cards: [BoardCard]) {
            (self.id, self.title, self.cards) = (id, title, cards)
        }
    }

    /// The boards page: every board (`name` is its title), in order.
    public static func boards(_ boards: [ListName]) -> JSONValue {
        // Boards of one title are told apart by their place among them: "Home (2 of 2)".
        let others = namesakes(boards.map { $0.name })
        let labels = boards.indices.map { index in
            guard !others[index].isEmpty else { return boards[index].name }
            let place = others[index].filter { $0 < index }.count
            return "\(boards[index].name) (\(place + 1) of \(others[index].count + 1))"
        }
        return .object([
            "hasBoards": .bool(!boards.isEmpty),
            "boards": .array(
                boards.indices.map { index in
                    var fields = mergeTargets(others[index], boards, labels: labels)
                    fields["id"] = .string(boards[index].id)
                    fields["title"] = .string(boards[index].name)
                    fields["label"] = .string(labels[index])
                    return .object(fields)
                }),
        ])
    }

    /// A board's page: its columns side by side, each with its cards (archived ones only when
    /// `archived`; a drop's position counts them either way), and the column a card was just
    /// added to (its New card field takes the cursor).
    public static func board(
        _ board: ListName, archived: Bool, columns: [BoardColumn], justAddedTo added: String? = nil
    ) -> JSONValue {
        .object([
            "board": .object(["id": .string(board.id), "title": .string(board.name)]), "archived": .bool(archived),
            "columns": .array(
                columns.enumerated().map { index, column in
                    let shown = archived ? column.cards : column.cards.filter { !$0.isArchived }
                    let orders = shown.map { $0.orderNumber }
                    let previous = index > 0 ? JSONValue.string(columns[index - 1].id) : .null
                    let next = index + 1 < columns.count ? JSONValue.string(columns[index + 1].id) : .null
                    // Where a card's "Move to…" menu can send it: every other column, in order.
                    let others = JSONValue.array(
                        columns.filter { $0.id != column.id }.map {
                            .object(["id": .string($0.id), "title": .string($0.title)])
                        })
                    return .object([
                        "id": .string(column.id), "title": .string(column.title), "count": .int(Int64(shown.count)),
                        "total": .int(Int64(column.cards.count)), "order": .int(Int64(index)),
                        "arrows": arrows(index, of: Array(columns.indices)), "justAdded": .bool(column.id == added),
                        "cards": .array(
                            shown.enumerated().map { position, card in
                                let description = card.description ?? ""
                                return .object([
                                    "id": .string(card.id), "title": .string(card.title), "column": .string(column.id),
                                    "description": .string(description),
                                    "descriptionHTML": .string(HTMLText.linkified(description)),
                                    "hasDescription": .bool(!description.isEmpty), "isArchived": .bool(card.isArchived),
                                    "order": .int(Int64(card.orderNumber)), "arrows": arrows(position, of: orders),
                                    "previousColumn": previous, "nextColumn": next,
                                    "moveTargets": others, "hasMoveTargets": .bool(columns.count > 1),
                                ])
                            }),
                    ])
                }),
        ])
    }

    /// The card a study page shows next, and how many are left of each kind.
    public struct StudyCard: Sendable {
        public var id: String
        public var front: String
        public var back: String
        public var notes: String
        public var clozeNumber: Int?
        public var imageHash: String?
        /// When the card comes back after each rating, Again to Easy, as read: "10m", "4d".
        public var intervals: [String]
        public var remaining: (new: Int, learning: Int, review: Int)

        public init(
            id: String, front: String, back: String, notes: String, clozeNumber: Int?, imageHash: String?,
            intervals: [String], remaining: (new: Int, learning: Int, review: Int)
        ) {
            (self.id, self.front, self.back, self.notes) = (id, front, back, notes)
            (self.clozeNumber, self.imageHash, self.intervals, self.remaining) =
                (clozeNumber, imageHash, intervals, remaining)
        }
    }

    /// The four answer buttons, ratings 1 to 4 (Anki's names).
    public static let ratingNames = ["Again", "Hard", "Good", "Easy"]

    /// A deck's study page: its next card (none: the day is done), and whether an answer can be undone.
    public static func study(deck: ListName, next: StudyCard?, canUndo: Bool) -> JSONValue {
        var model: [String: JSONValue] = [
            "deck": .object(["id": .string(deck.id), "name": .string(deck.name)]), "canUndo": .bool(canUndo),
        ]
        if let next {
            let buttons = ratingNames.enumerated().map { index, label in
                JSONValue.object([
                    "rating": .int(Int64(index + 1)), "label": .string(label),
                    "interval": .string(index < next.intervals.count ? next.intervals[index] : ""),
                ])
            }
            model["next"] = .object([
                "card": .object([
                    "id": .string(next.id), "question": .string(side(next, revealed: false)),
                    "revealed": .string(side(next, revealed: true)), "back": .string(next.back),
                    "notes": .string(next.notes), "isCloze": .bool(next.clozeNumber != nil),
                    "imageHash": next.imageHash.map(JSONValue.string) ?? .null,
                    "hasPicture": .bool(next.imageHash != nil),
                ]),
                "hasNotes": .bool(!next.notes.isEmpty),
                "remaining": .object([
                    "new": .int(Int64(next.remaining.new)), "learning": .int(Int64(next.remaining.learning)),
                    "review": .int(Int64(next.remaining.review)),
                ]),
                "buttons": .array(buttons),
            ])
        }
        return .object(model)
    }

    /// One side of a card as HTML: a cloze card's deletions hidden (or marked once revealed), any
    /// other card's front escaped.
    static func side(_ card: StudyCard, revealed: Bool) -> String {
        cardSide(front: card.front, clozeNumber: card.clozeNumber, revealed: revealed)
    }

    /// A card's front as the study pages draw it (HTML): a cloze card's deletion hidden, or marked
    /// once revealed; any other card's front escaped. The server's pages, the replica's and the
    /// last release's offline study answer all draw it here.
    public static func cardSide(front: String, clozeNumber: Int?, revealed: Bool) -> String {
        guard let number = clozeNumber else { return HTMLText.escape(front) }
        return Cloze.html(of: front, number: number, revealed: revealed)
    }
}
