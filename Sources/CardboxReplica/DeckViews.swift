/// A deck's page drawn from the replica (offline): the model the server's deck page is drawn from
/// (`WebPageModels.deck`), made from the records here as the store reads them.
extension ReplicaRecords {
    /// What a deck's page asks for: its tab, the card tab's filters and page, and the page's query
    /// (its links keep it).
    public struct DeckPageRequest: Sendable {
        public var deck: String
        public var tab: WebPageModels.DeckTab
        public var query: WebPageModels.CardQuery
        public var page: Int
        /// Whether a card was just added (`?added`): the cursor goes back to Front.
        public var justAdded: Bool
        public var queryItems: [(name: String, value: String)]

        /// The request a deck page's address makes, its query as `items` (decoded, in order; the
        /// first of a name counts): `tab` (the current tab unless it names another), `q`, `tag`,
        /// `language`, `favorites` (present: favorites only), `page` (a number; the first page
        /// unless), `added`. A tab that is not a card tab filters nothing.
        public init(
            deck: String, query items: [(name: String, value: String)], tab chosen: WebPageModels.DeckTab? = nil
        ) {
            func first(_ name: String) -> String? { items.first { $0.name == name }?.value }
            self.deck = deck
            tab = chosen ?? first("tab").flatMap(WebPageModels.DeckTab.init(rawValue:)) ?? .current
            query =
                tab.listsCards
                ? WebPageModels.CardQuery(
                    search: first("q"), tag: first("tag"), language: first("language"),
                    favoritesOnly: first("favorites") != nil)
                : WebPageModels.CardQuery()
            // Past the last page shows an empty one; the bound keeps the offset from overflowing.
            page = min(max(1, first("page").flatMap { Int($0) } ?? 1), Int.max / WebPageModels.cardsPerPage)
            justAdded = first("added") != nil
            queryItems = items.filter { $0.name != "page" }
        }
    }

    /// A deck's page at `now` in the study `day`; seed 000's not-found for a deck a person does not see.
    public func deckPage(_ request: DeckPageRequest, now: Int64, day: StudyDayBounds) throws(CardboxError)
        -> JSONValue
    {
        let deck = try visibleDeck(request.deck)
        var cards: [ReplicaRow<NamedEntity>] = []
        forEachStudiedCard(ofDeck: request.deck, includingArchived: true) { cards.append($0) }
        var counts = WebPageModels.DeckCounts()
        for card in cards {
            if Self.isArchived(card) {
                counts.archived += 1
            } else {
                counts.current += 1
                if let due = Self.schedule(of: card).dueAt, due <= now { counts.dueNow += 1 }
            }
        }
        let today = Self.counts(of: try deckDay(deck: request.deck, now: now, day: day))
        (counts.dueToday, counts.newToday) = (today.learning + today.review, today.new)
        countSuggestions(ofDeck: request.deck, into: &counts)
        return WebPageModels.deck(
            Self.deckName(deck), counts: counts, tab: request.tab,
            cards: request.tab.listsCards ? cardPage(cards, request) : nil, query: request.query,
            justAdded: request.justAdded, csrf: "")
    }

    /// A card's editor (`WebPageModels.cardEditor`), as the server's: seed 001's not-found for a
    /// card a person does not see, or one of another deck.
    public func cardPage(deck deckId: String, card cardId: String) throws(CardboxError) -> JSONValue {
        let deck = try visibleDeck(deckId)
        let key = Key(cardEntity, cardId)
        guard isVisible(key), let card = records.rows[key], card.fields["deckId"]?.value == .string(deckId) else {
            throw CardboxError.notFound(kind: "card", reference: cardId)
        }
        let known = visibleTags()
        let tags = cardTags([cardId], known)[cardId] ?? []
        let row = cardRow(card, tags: tags)
        var imageHash: String?
        if case .string(let hash)? = card.fields["imageHash"]?.value { imageHash = hash }
        return WebPageModels.cardEditor(
            deck: Self.deckName(deck),
            card: .init(
                id: cardId, front: row.front, back: row.back, cardType: Self.text(card, "cardType"),
                notes: Self.text(card, "notes"), frontLanguage: Self.text(card, "frontLanguage"),
                backLanguage: Self.text(card, "backLanguage"), isFavorite: row.isFavorite,
                tags: tags.joined(separator: ", "), isCloze: row.clozeNumber != nil, imageHash: imageHash),
            knownTags: known.map { $0.name })
    }

    static func deckName(_ deck: ReplicaRow<NamedEntity>) -> WebPageModels.DeckName {
        WebPageModels.DeckName(
            id: deck.id, name: text(deck, "name"), frontLanguage: text(deck, "frontLanguage"),
            backLanguage: text(deck, "backLanguage"))
    }

    /// The card tab's page: the deck's cards through the filters, current ones in creation order,
    /// archived ones newest archive first (as `CardStore.cards(in:filter:)`).
    private func cardPage(_ cards: [ReplicaRow<NamedEntity>], _ request: DeckPageRequest) -> WebPageModels.CardPage {
        let archived = request.tab == .archived
        let known = visibleTags()
        let tagsByCard = cardTags(cards.map { $0.id }, known)
        var rows: [WebPageModels.CardRow] = []
        // Ties of time are broken by id, as the store breaks them: a device mints ids in order.
        var order: [(time: Int64, id: String)] = []
        for card in cards where Self.isArchived(card) == archived {
            let row = cardRow(card, tags: tagsByCard[card.id] ?? [])
            guard matches(card, row, request.query) else { continue }
            rows.append(row)
            let time = archived ? -Self.archivedAt(card) : Self.time(card, "createdAt")
            order.append((time, card.id))
        }
        let sorted = zip(order, rows).sorted { $0.0 < $1.0 }.map { $0.1 }
        let start = min((request.page - 1) * WebPageModels.cardsPerPage, sorted.count)
        let shown = Array(sorted[start..<min(start + WebPageModels.cardsPerPage, sorted.count)])
        return WebPageModels.CardPage(
            rows: shown, total: sorted.count, page: request.page, tags: known.map { $0.name },
            query: request.queryItems)
    }

    private func matches(
        _ card: ReplicaRow<NamedEntity>, _ row: WebPageModels.CardRow, _ query: WebPageModels.CardQuery
    ) -> Bool {
        if let language = query.language,
            Self.text(card, "frontLanguage") != language && Self.text(card, "backLanguage") != language
        {
            return false
        }
        if let tag = query.tag {
            let key = TagNames.key(tag)
            guard row.tags.contains(where: { TagNames.key($0) == key }) else { return false }
        }
        if query.favoritesOnly && !row.isFavorite { return false }
        if let search = query.search,
            !CardSearch.matches(
                front: row.front, back: row.back, notes: Self.text(card, "notes"), search: search)
        {
            return false
        }
        return true
    }

    private func cardRow(_ card: ReplicaRow<NamedEntity>, tags: [String]) -> WebPageModels.CardRow {
        var clozeNumber: Int?
        if case .int(let number)? = card.fields["clozeNumber"]?.value { clozeNumber = Int(number) }
        return WebPageModels.CardRow(
            id: card.id, front: Self.text(card, "front"), back: Self.text(card, "back"), clozeNumber: clozeNumber,
            tags: tags, isFavorite: card.fields["isFavorite"]?.value == .bool(true))
    }

    static func archivedAt(_ card: ReplicaRow<NamedEntity>) -> Int64 {
        if case .object(let archive)? = card.fields["archive"]?.value, case .int(let at)? = archive["archivedAt"] {
            return at
        }
        return 0
    }

    /// The account's tags a person sees, by their key (as `TagStore.tags()` lists them).
    func visibleTags() -> [(id: String, name: String)] {
        guard let entity = schema.entity(named: "tag") else { return [] }
        var tags: [(key: String, id: String, name: String)] = []
        for row in visibleTopLevelRows(entity) {
            let name = Self.text(row, "name")
            tags.append((TagNames.key(name), row.id, name))
        }
        return tags.sorted { ($0.key, $0.id) < ($1.key, $1.id) }.map { ($0.id, $0.name) }
    }

    /// Each card's tag names in the order of `tags` (the account's, by key: as the store reads a
    /// card's tags), its links found through the index of children (`tagIds`), not a pass over
    /// every record.
    private func cardTags(_ cardIds: [String], _ tags: [(id: String, name: String)]) -> [String: [String]] {
        var place: [String: Int] = [:]
        for (index, tag) in tags.enumerated() { place[tag.id] = index }
        var found: [String: [String]] = [:]
        for card in cardIds {
            let indexes = tagIds(of: card).compactMap { place[$0] }
            if !indexes.isEmpty { found[card] = indexes.sorted().map { tags[$0].name } }
        }
        return found
    }

    /// The deck's suggestions in seed 000's three lists (as `DeckStore.deckCounts`): shown ones,
    /// ones waiting for their picture, and rejected ones; a suggestion whose front and type were
    /// rejected is in neither of the first two.
    private func countSuggestions(ofDeck deckId: String, into counts: inout WebPageModels.DeckCounts) {
        guard let suggestion = schema.entity(named: "suggestion"),
            let rejectedEntity = schema.entity(named: "rejectedSuggestion")
        else { return }
        var rejected = Set<String>()
        let deck = ParentReference(entity: deckEntity.rawValue, id: deckId)
        forEachRow(of: rejectedEntity, naming: deck) { row in
            guard isVisible(Key(rejectedEntity, row.id)) else { return }
            counts.rejected += 1
            rejected.insert(Self.suggestionKey(row))
        }
        forEachRow(of: suggestion, naming: deck) { row in
            guard isVisible(Key(suggestion, row.id)), !rejected.contains(Self.suggestionKey(row)) else { return }
            if row.fields["isVisible"]?.value == .bool(true) { counts.suggestions += 1 } else { counts.waiting += 1 }
        }
    }

    /// What tells a suggestion from a rejected one: its front's key and its type (`SuggestionMatch`).
    private static func suggestionKey(_ row: ReplicaRow<NamedEntity>) -> String {
        SuggestionMatch.frontKey(text(row, "front")) + "\t" + text(row, "cardType")
    }
}
