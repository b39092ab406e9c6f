/// Seed 001's card writes on a replica that holds records by name (the browser's), with the rules
/// and field values a device's `CardStore` writes: what a person writes as a front and back (one
/// card, or a cloze text's cards) with its tags, the plan's card limit, and an edit of a card's
/// fields from its editor (a cloze card's text and back are shared with the cards made from the
/// same text; a deletion the edit adds makes a card with the text's tags). Pictures are left to
/// the network.
extension ReplicaRecords {
    /// Seed 001's limit: the free plan's account may hold `freeCardLimit` cards (current and
    /// archived); adding `count` more past it is refused whole, with the seed's message.
    func checkCanAdd(batchOf count: Int) throws(CardboxError) {
        var (plan, limit) = ("free", Limits.freeCardLimit)
        if let entity = schema.entity(named: "account") {
            for row in visibleTopLevelRows(entity) {
                if case .string(let name)? = row.fields["plan"]?.value { plan = name }
                if case .int(let number)? = row.fields["freeCardLimit"]?.value { limit = Int(clamping: number) }
            }
        }
        guard plan != "premium", count > 0 else { return }
        var cards = 0
        for deck in visibleTopLevelRows(deckEntity) {
            forEachRow(of: cardEntity, naming: ParentReference(entity: deckEntity.rawValue, id: deck.id)) { card in
                if isVisible(Key(cardEntity, card.id)) { cards += 1 }
            }
        }
        try Limits.checkCardLimit(cardCount: cards, limit: limit, adding: count)
    }

    /// A card's front, back and notes as the store checks them.
    struct CardTexts {
        var front: String?
        var back: String?
        var notes: String?

        init(front: String?, back: String?, notes: String?) throws(CardboxError) {
            self.front = try front.map { text throws(CardboxError) in try CardText.front(text) }
            self.back = try back.map { text throws(CardboxError) in try CardText.back(text) }
            self.notes = try notes.map { text throws(CardboxError) in try CardText.notes(text) }
        }
    }

    /// Adds what a person wrote to a deck: a front with cloze deletions makes one card per deletion
    /// number (the back their extra), any other front one card; all of them, or none when they would
    /// pass the plan's limit. `ids` are the new cards' ids, used in order (the page makes more than
    /// enough). Answers the ids used.
    /// `tags` are found or made by name, as the account's (`account`, its id) on every device.
    @discardableResult
    public mutating func addWrittenCards(
        deck deckId: String, front: String, back: String, notes: String, tags: [String] = [], account: String = "",
        ids: [String], at milliseconds: Int64
    ) throws(CardboxError) -> [String] {
        let numbers = Cloze.numbers(in: front)
        let texts = try CardTexts(front: front, back: back, notes: notes)
        let tags = try TagNames.validateList(tags)
        try checkCanAdd(batchOf: max(numbers.count, 1))
        let deck = try visibleDeck(deckId)
        try Self.requireAccount(account, naming: tags)
        let drafts: [Int?] = numbers.isEmpty ? [nil] : numbers.map { $0 }
        let clock = tick(UInt64(milliseconds))
        let made = try insertCards(
            drafts, deck: deck, front: texts.front ?? "", back: texts.back ?? "", notes: texts.notes ?? "", ids: ids,
            clock: clock, at: milliseconds)
        for card in made {
            for name in tags {
                link(card: card, tag: findOrCreateTag(named: name, account: account, clock, milliseconds), clock)
            }
        }
        return made
    }

    /// Tags are named by the account's id: without it, a write that names one is refused.
    static func requireAccount(_ account: String, naming tags: [String]) throws(CardboxError) {
        guard tags.isEmpty || !account.isEmpty else {
            throw CardboxError.invalid(field: "account", reason: "is needed to name the tags")
        }
    }

    /// Inserts new cards, one per cloze number (nil: a card that is not a cloze card), each field as
    /// the store sets it: the deck's languages, no picture, a new card's schedule.
    private mutating func insertCards(
        _ clozeNumbers: [Int?], deck: ReplicaRow<NamedEntity>, front: String, back: String, notes: String,
        ids: [String], clock: WriteClock, at milliseconds: Int64
    ) throws(CardboxError) -> [String] {
        guard ids.count >= clozeNumbers.count else {
            throw CardboxError.invalid(
                field: "ids", reason: "needs \(clozeNumbers.count) new card ids, got \(ids.count)")
        }
        for id in ids.prefix(clozeNumbers.count) {
            try Self.requireStoredId(id, of: cardEntity)
            guard records.rows[Key(cardEntity, id)] == nil, records.tombstones[Key(cardEntity, id)] == nil else {
                throw CardboxError.invalid(field: "ids", reason: "\(id) is a card already")
            }
        }
        let new = CardSchedule(
            state: "new", step: nil, stability: nil, difficulty: nil, dueAt: nil, lastReviewAt: nil, reps: 0, lapses: 0)
        let now = JSONValue.int(milliseconds)
        for (id, number) in zip(ids, clozeNumbers) {
            create(
                cardEntity, id: id,
                [
                    "deckId": .string(deck.id), "front": .string(front), "back": .string(back),
                    "cardType": .string(number == nil ? CardText.defaultType : Cloze.cardType), "notes": .string(notes),
                    "frontLanguage": deck.fields["frontLanguage"]?.value ?? .string(""),
                    "backLanguage": deck.fields["backLanguage"]?.value ?? .string(""), "isFavorite": .bool(false),
                    "imageHash": .null, "imagePrompt": .null, "jsonContent": .null, "isIncomplete": .bool(false),
                    "clozeNumber": number.map { .int(Int64($0)) } ?? .null,
                    "archive": .object(["isArchived": .bool(false), "archivedAt": .null]),
                    "schedule": new.fieldValue, "createdAt": now, "modifiedAt": now,
                ], at: clock)
        }
        return Array(ids.prefix(clozeNumbers.count))
    }

    /// What a card's editor changes: each field given (nil stays as it is), checked as the store
    /// checks it.
    public struct CardEdit: Sendable {
        public var front: String?
        public var back: String?
        public var notes: String?
        public var cardType: String?
        public var frontLanguage: String?
        public var backLanguage: String?
        public var isFavorite: Bool?
        /// The card's tags, all of them (nil: its tags stay).
        public var tags: [String]?
        public var removeImage = false

        public init(
            front: String? = nil, back: String? = nil, notes: String? = nil, cardType: String? = nil,
            frontLanguage: String? = nil, backLanguage: String? = nil, isFavorite: Bool? = nil, tags: [String]? = nil,
            removeImage: Bool = false
        ) {
            (self.front, self.back, self.notes, self.cardType) = (front, back, notes, cardType)
            (self.frontLanguage, self.backLanguage, self.isFavorite) = (frontLanguage, backLanguage, isFavorite)
            (self.tags, self.removeImage) = (tags, removeImage)
        }
    }

    /// Changes a card as its editor does (`CardStore.editCard`): its fields, its tags, its favorite
    /// mark, its picture taken away. A cloze card's text and back belong to every card made from
    /// the text (its siblings: the same deck, the same text): they change with it, a deletion the
    /// new text adds gets a card (with the first of `ids`), and one it drops while a card studies
    /// it is refused. A card keeps being a cloze card or not.
    public mutating func editCard(
        card cardId: String, _ edit: CardEdit, account: String = "", ids: [String] = [], at milliseconds: Int64
    ) throws(CardboxError) {
        // In the store's order: the first field it refuses is the one named.
        let front = try edit.front.map { text throws(CardboxError) in try CardText.front(text) }
        let back = try edit.back.map { text throws(CardboxError) in try CardText.back(text) }
        let cardType = try edit.cardType.map { text throws(CardboxError) in try CardText.storedCardType(text) }
        var fields: [String: JSONValue] = [:]
        if let front { fields["front"] = .string(front) }
        if let back { fields["back"] = .string(back) }
        if let cardType { fields["cardType"] = .string(cardType) }
        if let code = edit.frontLanguage {
            fields["frontLanguage"] = .string(try LanguageNames.validate(code, field: "front language"))
        }
        if let code = edit.backLanguage {
            fields["backLanguage"] = .string(try LanguageNames.validate(code, field: "back language"))
        }
        if let notes = edit.notes { fields["notes"] = .string(try CardText.notes(notes)) }
        let tags = try edit.tags.map { names throws(CardboxError) in try TagNames.validateList(names) }
        let key = Key(cardEntity, cardId)
        guard isVisible(key), let card = records.rows[key] else {
            throw CardboxError.notFound(kind: "card", reference: cardId)
        }
        try Self.requireAccount(account, naming: tags ?? [])
        var isCloze = false
        if case .int? = card.fields["clozeNumber"]?.value { isCloze = true }
        // Checked only when the type changes: a card keeps a type it was given before (in any case).
        let kept = Self.text(card, "cardType").lowercased()
        if let cardType, cardType != kept { _ = try CardText.cardType(cardType) }
        if let cardType, cardType != kept, (cardType == Cloze.cardType) != isCloze {
            throw CardboxError.invalid(
                field: "cardType",
                reason: isCloze
                    ? "a cloze card keeps its type: add the text as other cards instead"
                    : "a cloze card is made from text with {{c1::…}} deletions, one card for each number")
        }
        let clock = tick(UInt64(milliseconds))
        if isCloze, front != nil || back != nil {
            try editClozeText(of: card, front: front, back: back, ids: ids, clock: clock, at: milliseconds)
        }
        if edit.removeImage { fields["imageHash"] = .null }
        if let tags { try replaceTags(of: cardId, with: tags, account: account, clock, milliseconds) }
        if let favorite = edit.isFavorite, favorite != (card.fields["isFavorite"]?.value == .bool(true)) {
            fields["isFavorite"] = .bool(favorite)
        }
        guard !fields.isEmpty || tags != nil else { return }
        fields["modifiedAt"] = .int(milliseconds)
        update(key, fields, at: clock)
    }

    /// What a deck's card lists do to one card (seed 000's movement flows, seed 001's favorite).
    public enum CardMove: String, Sendable {
        case archive, restore, delete, favorite
    }

    /// Archives, restores, deletes or marks (or unmarks) a card of `deck` as the store does: archiving
    /// keeps it in its deck with `archivedAt`, restoring clears it, either one again changes nothing;
    /// a delete tombstones it with its review log and tag links; favorite toggles the mark. Seed
    /// 001's not-found for a card a person does not see, or one of another deck.
    public mutating func moveCard(
        card cardId: String, deck deckId: String, _ move: CardMove, at milliseconds: Int64
    ) throws(CardboxError) {
        let key = Key(cardEntity, cardId)
        guard isVisible(key), let card = records.rows[key], card.fields["deckId"]?.value == .string(deckId) else {
            throw CardboxError.notFound(kind: "card", reference: cardId)
        }
        let now = JSONValue.int(milliseconds)
        switch move {
        case .archive, .restore:
            let archived = move == .archive
            guard Self.isArchived(card) != archived else { return }
            let archive = JSONValue.object(["isArchived": .bool(archived), "archivedAt": archived ? now : .null])
            update(key, ["archive": archive, "modifiedAt": now], at: tick(UInt64(milliseconds)))
        case .favorite:
            let favorite = card.fields["isFavorite"]?.value != .bool(true)
            update(key, ["isFavorite": .bool(favorite), "modifiedAt": now], at: tick(UInt64(milliseconds)))
        case .delete:
            delete(key, at: tick(UInt64(milliseconds)))
        }
    }

    /// The cloze cards of `card`'s deck made from its text, itself included: id and deletion number,
    /// by number then id, as the store reads them.
    private func clozeSiblings(of card: ReplicaRow<NamedEntity>) -> [(id: String, number: Int)] {
        guard case .string(let deckId)? = card.fields["deckId"]?.value else { return [] }
        let text = card.fields["front"]?.value
        var siblings: [(id: String, number: Int)] = []
        forEachStudiedCard(ofDeck: deckId, includingArchived: true) { sibling in
            guard sibling.fields["front"]?.value == text, sibling.fields["cardType"]?.value == .string(Cloze.cardType),
                case .int(let number)? = sibling.fields["clozeNumber"]?.value
            else { return }
            siblings.append((sibling.id, Int(number)))
        }
        return siblings.sorted { ($0.number, $0.id) < ($1.number, $1.id) }
    }

    private mutating func editClozeText(
        of card: ReplicaRow<NamedEntity>, front: String?, back: String?, ids: [String], clock: WriteClock,
        at milliseconds: Int64
    ) throws(CardboxError) {
        guard case .string(let oldFront)? = card.fields["front"]?.value else { return }
        var oldBack = ""
        if case .string(let text)? = card.fields["back"]?.value { oldBack = text }
        let text = front ?? oldFront
        let numbers = Cloze.numbers(in: text)
        let siblings = clozeSiblings(of: card)
        for sibling in siblings where !numbers.contains(sibling.number) {
            let which = sibling.id == card.id ? "this card" : "card \(sibling.id.suffix(8))"
            throw CardboxError.invalid(
                field: "front",
                reason:
                    "no longer has the deletion c\(sibling.number), which \(which) studies: keep it, or delete that card first"
            )
        }
        // Only what changed is written to the siblings: a field given its old value would still get a
        // new clock, and win over a real edit made meanwhile on another device.
        var fields: [String: JSONValue] = [:]
        if let front, front != oldFront { fields["front"] = .string(front) }
        if let back, back != oldBack { fields["back"] = .string(back) }
        guard !fields.isEmpty else { return }
        fields["modifiedAt"] = .int(milliseconds)
        for sibling in siblings where sibling.id != card.id { update(Key(cardEntity, sibling.id), fields, at: clock) }
        // Only a deletion the new text brings gets a card: one whose card was deleted stays so.
        let before = Cloze.numbers(in: oldFront)
        let added = numbers.filter { number in
            !before.contains(number) && !siblings.contains { $0.number == number }
        }
        guard !added.isEmpty else { return }
        try checkCanAdd(batchOf: added.count)
        guard case .string(let deckId)? = card.fields["deckId"]?.value else { return }
        var notes = ""
        if case .string(let text)? = card.fields["notes"]?.value { notes = text }
        let made = try insertCards(
            added.map { $0 }, deck: try visibleDeck(deckId), front: text, back: back ?? oldBack, notes: notes, ids: ids,
            clock: clock, at: milliseconds)
        giveTags(of: card.id, to: made, at: clock)
    }

    /// Gives `cards` the tags card `source` has, as a store gives a new cloze card the tags of the
    /// card whose text made it.
    private mutating func giveTags(of source: String, to cards: [String], at clock: WriteClock) {
        let tags = tagIds(of: source).sorted()
        for card in cards {
            for tag in tags { link(card: card, tag: tag, clock) }
        }
    }
}
