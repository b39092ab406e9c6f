/// A deck's page (`Web/Templates/deckbody.mustache`): its heading and counts, seed 000's five lists
/// as tabs, the new-card form, and a page of the current or archived cards through seed 001's
/// filters. The server makes it from its store, the browser's replica from its records.
extension WebPageModels {
    /// Cards a deck's page shows at a time.
    public static let cardsPerPage = 50

    /// A deck as its page heads it.
    public struct DeckName: Sendable {
        public var id: String
        public var name: String
        public var frontLanguage: String
        public var backLanguage: String

        public init(id: String, name: String, frontLanguage: String, backLanguage: String) {
            (self.id, self.name, self.frontLanguage, self.backLanguage) = (id, name, frontLanguage, backLanguage)
        }
    }

    /// How many records each of the deck's lists holds, and what is left to study today.
    public struct DeckCounts: Sendable {
        public var current = 0
        public var archived = 0
        public var suggestions = 0
        /// Suggestions waiting for their picture.
        public var waiting = 0
        public var rejected = 0
        /// Current cards due by now (what "Archive due cards" archives).
        public var dueNow = 0
        /// Today's queue: learning and review cards, and new ones, within the day's limits.
        public var dueToday = 0
        public var newToday = 0

        public init() {}
    }

    /// Seed 000's five lists of a deck, as the deck page's tabs (`?tab=`).
    public enum DeckTab: String, CaseIterable, Sendable {
        case current, archived, suggestions, waiting, rejected

        public var label: String {
            switch self {
            case .current: "Cards"
            case .archived: "Archived"
            case .suggestions: "Suggestions"
            case .waiting: "Waiting"
            case .rejected: "Rejected"
            }
        }

        /// Whether the tab lists cards (the current or archived ones), through seed 001's filters.
        public var listsCards: Bool { self == .current || self == .archived }

        func count(_ counts: DeckCounts) -> Int {
            switch self {
            case .current: counts.current
            case .archived: counts.archived
            case .suggestions: counts.suggestions
            case .waiting: counts.waiting
            case .rejected: counts.rejected
            }
        }
    }

    /// Seed 001's filters of a card tab, as the page's query gives them (`q`, `tag`, `language`,
    /// `favorites`); an empty value is no filter, and the search is trimmed.
    public struct CardQuery: Sendable, Equatable {
        public var search: String?
        public var tag: String?
        public var language: String?
        public var favoritesOnly = false

        public init(search: String? = nil, tag: String? = nil, language: String? = nil, favoritesOnly: Bool = false) {
            let trimmed = search?.trimmedWhitespace
            self.search = trimmed?.isEmpty == false ? trimmed : nil
            self.tag = tag?.isEmpty == false ? tag : nil
            self.language = language?.isEmpty == false ? language : nil
            self.favoritesOnly = favoritesOnly
        }

        public var isFiltered: Bool { self != CardQuery() }
    }

    /// A card as its deck's lists show it.
    public struct CardRow: Sendable {
        public var id: String
        public var front: String
        public var back: String
        public var clozeNumber: Int?
        public var tags: [String]
        public var isFavorite: Bool

        public init(id: String, front: String, back: String, clozeNumber: Int?, tags: [String], isFavorite: Bool) {
            (self.id, self.front, self.back, self.clozeNumber) = (id, front, back, clozeNumber)
            (self.tags, self.isFavorite) = (tags, isFavorite)
        }
    }

    /// A page of a card tab: its rows, how many cards match in all, which page it is, the account's
    /// tags (the filter's menu), and the page's query but its page number (the pages' links keep it).
    public struct CardPage: Sendable {
        public var rows: [CardRow]
        public var total: Int
        public var page: Int
        public var tags: [String]
        public var query: [(name: String, value: String)]

        public init(
            rows: [CardRow], total: Int, page: Int, tags: [String], query: [(name: String, value: String)]
        ) {
            (self.rows, self.total, self.page, self.tags, self.query) = (rows, total, page, tags, query)
        }
    }

    /// What the new-card form shows again after a refusal.
    public struct CardDraft: Sendable {
        public var front = ""
        public var back = ""
        public var tags = ""

        public init(front: String = "", back: String = "", tags: String = "") {
            (self.front, self.back, self.tags) = (front, back, tags)
        }
    }

    /// A deck's page at `tab`; `cards` is the card tab's page (nil on the other tabs), `justAdded`
    /// puts the cursor back in Front.
    public static func deck(
        _ deck: DeckName, counts: DeckCounts, tab: DeckTab, cards: CardPage?, query: CardQuery,
        draft: CardDraft = CardDraft(), justAdded: Bool = false, csrf: String
    ) -> JSONValue {
        let dueToday = counts.dueToday
        var model: [String: JSONValue] = [
            "deck": .object([
                "id": .string(deck.id), "name": .string(deck.name), "frontLanguage": .string(deck.frontLanguage),
                "backLanguage": .string(deck.backLanguage),
                "languages": .string(LanguageNames.pair(deck.frontLanguage, deck.backLanguage)),
            ]),
            "counts": .object([
                "current": .int(Int64(counts.current)), "due": .int(Int64(dueToday)),
                "new": .int(Int64(counts.newToday)), "canStudy": .bool(dueToday + counts.newToday > 0),
            ]),
            "tab": .string(tab.rawValue),
            "tabs": .array(
                DeckTab.allCases.map {
                    .object([
                        "name": .string($0.rawValue), "label": .string($0.label),
                        "count": .int(Int64($0.count(counts))), "selected": .bool($0 == tab),
                    ])
                }),
            "hasDue": .bool(counts.dueNow > 0), "justAdded": .bool(justAdded),
            "draft": .object(["front": .string(draft.front), "back": .string(draft.back), "tags": .string(draft.tags)]),
        ]
        for each in DeckTab.allCases {
            let name = each == .current ? "isCurrent" : "is" + each.label
            model[name] = .bool(each == tab)
        }
        if let cards { model["cards"] = cardList(cards, deck: deck, tab: tab, query: query, csrf: csrf) }
        return .object(model)
    }

    private static func cardList(
        _ cards: CardPage, deck: DeckName, tab: DeckTab, query: CardQuery, csrf: String
    ) -> JSONValue {
        var model: [String: JSONValue] = [
            "hasCards": .bool(!cards.rows.isEmpty),
            "cardRows": .string(cardRows(cards.rows, deck: deck.id, csrf: csrf, tab: tab)),
            "filter": .object([
                "q": .string(query.search ?? ""), "favorites": .bool(query.favoritesOnly),
                "isFiltered": .bool(query.isFiltered),
                "tags": .array(cards.tags.map { .object(["name": .string($0), "selected": .bool($0 == query.tag)]) }),
                "languages": .array(
                    ([deck.frontLanguage] + (deck.backLanguage == deck.frontLanguage ? [] : [deck.backLanguage])).map {
                        .object([
                            "code": .string($0), "name": .string(LanguageNames.name(of: $0)),
                            "selected": .bool($0 == query.language),
                        ])
                    }),
            ]),
        ]
        let pages = max(1, (cards.total + cardsPerPage - 1) / cardsPerPage)
        if pages > 1 {
            var items = cards.query.map { "\($0.name)=\(percentEncoded($0.value))" }
            items.sort()
            let base = "/decks/\(deck.id)?" + (items + ["page="]).joined(separator: "&")
            model["paging"] = .object([
                "page": .int(Int64(cards.page)), "pages": .int(Int64(pages)),
                "previous": cards.page > 1 ? .string(base + "\(cards.page - 1)") : .null,
                "next": cards.page < pages ? .string(base + "\(cards.page + 1)") : .null,
            ])
        }
        return .object(model)
    }

    /// `text` as a query value: every byte but ASCII letters, digits and `-._~` percent-encoded
    /// (RFC 3986's unreserved characters).
    public static func percentEncoded(_ text: String) -> String {
        let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The rows of a deck's card list, written directly rather than through a template.
    ///
    /// Why: under `scripts/web_load.sh`, rendering these rows through swift-mustache took 69 % of the
    /// deck page's time (perf): each `{{…}}` splits its name and tries a handful of dynamic casts at
    /// every level of the context stack, and 50 cards make about 1,000 of them. The rest of the page
    /// stays a template. Everything a person wrote goes through `HTMLText.escape`, as `{{…}}` does.
    ///
    /// One `<li>` per card: front (a cloze card's question), back, tags, and one form whose buttons
    /// favorite, archive (on the current tab) or restore (on the archived tab), and delete it (after
    /// a second click, on the button its Delete opens); `tab` brings the browser back.
    public static func cardRows(_ cards: [CardRow], deck: String, csrf: String, tab: DeckTab) -> String {
        var html = ""
        html.reserveCapacity(cards.count * 1_200)
        let csrf = HTMLText.escape(csrf)
        for card in cards {
            let base = "/decks/\(deck)/cards/\(card.id)"
            // A cloze card reads as its question, with the deletion it studies beside it.
            let question = card.clozeNumber.map { Cloze.plainText(of: card.front, number: $0, revealed: false) }
            let front = HTMLText.escape(question ?? card.front)
            html +=
                "<li><strong><a href=\"\(base)\" aria-label=\"Edit \(front)\">\(front)</a></strong> <span>\(HTMLText.escape(card.back))</span>\n"
            if let number = card.clozeNumber { html += "<span class=\"tag\">cloze c\(number)</span>" }
            for tag in card.tags { html += "<span class=\"tag\">\(HTMLText.escape(tag))</span>" }
            let (mark, star) = card.isFavorite ? ("Unmark", "★") : ("Mark", "☆")
            html += """

                <form method="post" action="\(base)/favorite" class="actions">
                <input type="hidden" name="csrf" value="\(csrf)"><input type="hidden" name="tab" value="\(tab.rawValue)">
                <button type="submit" class="link" aria-pressed="\(card.isFavorite)" \
                aria-label="\(mark) \(front) as a favorite">\(star)</button>

                """
            switch tab {
            case .current:
                html += """
                    <button type="submit" formaction="\(base)/archive" class="link" aria-label="Archive \(front)">Archive</button>

                    """
            case .archived:
                html += """
                    <button type="submit" formaction="\(base)/restore" class="link" aria-label="Restore \(front)">Restore</button>

                    """
            case .suggestions, .waiting, .rejected: break
            }
            html += """
                <details class="confirm"><summary class="link danger" aria-label="Delete \(front)">Delete</summary>
                <button type="submit" formaction="\(base)/delete" class="danger small" \
                aria-label="Yes, delete \(front)">Yes, delete</button></details></form>
                </li>

                """
        }
        return html
    }
}

/// Seed 001's card search, one rule for the store's query and the replica's: a card matches when its
/// front, back or notes contain the search, letters of any case (`folded` on both sides).
public enum CardSearch {
    /// `text` with the letters of every case made lowercase: "ÁRBOL" finds "árbol".
    public static func folded(_ text: String) -> String { text.lowercased() }

    /// Whether `card`'s front, back and notes (one text, a line apart, as the store's query joins
    /// them) contain `search`, both folded.
    public static func matches(front: String, back: String, notes: String, search: String) -> Bool {
        let text = Array(folded(front + "\n" + back + "\n" + notes).utf8)
        let wanted = Array(folded(search).utf8)
        guard !wanted.isEmpty else { return true }
        guard text.count >= wanted.count else { return false }
        for start in 0...(text.count - wanted.count) where text[start] == wanted[0] {
            if text[start..<start + wanted.count].elementsEqual(wanted) { return true }
        }
        return false
    }
}

/// Matching of suggestions against rejected ones and existing cards: same card type, same front text
/// once trimmed and case-folded ("Hola " matches "hola"), on the store and the browser's replica alike.
public enum SuggestionMatch {
    public static func frontKey(_ front: String) -> String {
        front.trimmedWhitespace.lowercased()
    }
}

/// A card's editor (`Web/Templates/cardbody.mustache`): every field of a card, as stored or as
/// typed before a refusal, the languages and types to choose from, and the account's tags.
extension WebPageModels {
    /// A card's fields as its editor shows them; `tags` separated by commas.
    public struct EditedCard: Sendable {
        public var id: String
        public var front: String
        public var back: String
        public var cardType: String
        public var notes: String
        public var frontLanguage: String
        public var backLanguage: String
        public var isFavorite: Bool
        public var tags: String
        public var isCloze: Bool
        public var imageHash: String?

        public init(
            id: String, front: String, back: String, cardType: String, notes: String, frontLanguage: String,
            backLanguage: String, isFavorite: Bool, tags: String, isCloze: Bool, imageHash: String?
        ) {
            (self.id, self.front, self.back, self.cardType, self.notes) = (id, front, back, cardType, notes)
            (self.frontLanguage, self.backLanguage, self.isFavorite) = (frontLanguage, backLanguage, isFavorite)
            (self.tags, self.isCloze, self.imageHash) = (tags, isCloze, imageHash)
        }
    }

    public static func cardEditor(deck: DeckName, card: EditedCard, knownTags: [String]) -> JSONValue {
        .object([
            "deck": .object(["id": .string(deck.id), "name": .string(deck.name)]),
            "card": .object([
                "id": .string(card.id), "front": .string(card.front), "back": .string(card.back),
                "cardType": .string(card.cardType), "notes": .string(card.notes),
                "isFavorite": .bool(card.isFavorite), "tags": .string(card.tags), "isCloze": .bool(card.isCloze),
            ]),
            "frontLanguages": LanguageNames.choices(selected: card.frontLanguage),
            "backLanguages": LanguageNames.choices(selected: card.backLanguage),
            "cardTypes": typeChoices(for: card),
            "knownTags": .array(knownTags.map(JSONValue.string)),
            "image": card.imageHash.map(JSONValue.string) ?? .null,
        ])
    }

    /// The types a card's editor offers: a cloze card keeps "cloze"; any other card may take any
    /// other known type, and keeps one it was given that Cardbox does not know.
    static func typeChoices(for card: EditedCard) -> JSONValue {
        var types = card.isCloze ? [Cloze.cardType] : CardText.types.filter { $0 != Cloze.cardType }
        if !types.contains(card.cardType) { types.append(card.cardType) }
        return .array(types.map { .object(["type": .string($0), "selected": .bool($0 == card.cardType)]) })
    }
}
