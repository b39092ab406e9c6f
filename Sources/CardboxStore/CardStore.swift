import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// Changes to a card; nil leaves a field as it is.
public struct CardChanges: Sendable, Equatable {
    public var front: String?
    public var back: String?
    public var cardType: String?
    public var notes: String?
    /// ISO 639-1 codes; a card starts with its deck's pair and may be given another.
    public var frontLanguage: String?
    public var backLanguage: String?
    public var isFavorite: Bool?
    /// Replaces the card's tags.
    public var tags: [String]?
    public var imagePrompt: String?
    public var jsonContent: String?
    public var isIncomplete: Bool?
    public var image: Data?
    public var removeImage: Bool
    /// When the card is next due; `.some(nil)` makes it new again (never reviewed).
    public var dueAt: Date??

    public init(
        front: String? = nil, back: String? = nil, cardType: String? = nil, notes: String? = nil,
        tags: [String]? = nil, imagePrompt: String? = nil, jsonContent: String? = nil, isIncomplete: Bool? = nil,
        image: Data? = nil, removeImage: Bool = false, dueAt: Date?? = nil, frontLanguage: String? = nil,
        backLanguage: String? = nil, isFavorite: Bool? = nil
    ) {
        self.isFavorite = isFavorite
        self.frontLanguage = frontLanguage
        self.backLanguage = backLanguage
        self.front = front
        self.back = back
        self.cardType = cardType
        self.notes = notes
        self.tags = tags
        self.imagePrompt = imagePrompt
        self.jsonContent = jsonContent
        self.isIncomplete = isIncomplete
        self.image = image
        self.removeImage = removeImage
        self.dueAt = dueAt
    }
}

/// The plan and the free plan's card limit a store holds for its account.
public struct HeldPlan: Sendable, Equatable {
    public var plan: Plan
    public var freeCardLimit: Int

    /// Whether they are what the server holds: its `plan`, and the free plan's limit (a server sets
    /// no other; a device's write of its own is replaced by them).
    public func isServers(_ plan: Plan) -> Bool { self.plan == plan && freeCardLimit == Limits.freeCardLimit }
}

extension CardboxStore {
    // MARK: Plan

    public func allowance() throws -> CardAllowance {
        try read { context in try context.allowance() }
    }

    /// The account's plan and card limit as the store holds them, without counting cards (a sync,
    /// and the server's copy at a write, compare them with the server's).
    public func heldPlan() throws -> HeldPlan {
        try read { context in try Self.heldPlan(context) }
    }

    static func heldPlan(_ context: StoreContext) throws -> HeldPlan {
        let row = try Row.fetchOne(
            context.db.cachedStatement(sql: "SELECT plan, freeCardLimit FROM account WHERE id = ?"),
            arguments: [context.account])
        return HeldPlan(
            plan: Plan(rawValue: row?[0] ?? "") ?? .free, freeCardLimit: row?[1] ?? Limits.freeCardLimit)
    }

    /// Sets the account's plan and, optionally, the free plan's card limit.
    public func setPlan(_ plan: Plan, freeCardLimit: Int? = nil) throws -> CardAllowance {
        if let freeCardLimit { _ = try Validate.nonNegative(freeCardLimit, field: "freeCardLimit") }
        return try write { tx in
            var fields: Assignments<Columns.Account> = [(.plan, plan.rawValue)]
            if let freeCardLimit { fields.append((.freeCardLimit, freeCardLimit)) }
            try tx.update(.account, id: tx.account, fields)
            return try tx.context.allowance()
        }
    }

    // MARK: Adding

    /// Seed 001's `addCard`: refused with the exact limit message once the plan's limit is reached.
    /// Languages come from the deck; tags are found or created by name.
    public func addCard(to deckReference: DeckID, _ draft: CardDraft, image: Data? = nil) throws -> Card {
        let draft = try draft.validated()
        return try write(decodingImages: Self.decoding(image)) { tx in
            try tx.checkCanAdd()
            let deck = try tx.context.deck(tx.context.existing(deckReference, .deck))
            let card = try tx.insertCards([(draft, image)], into: deck)[0]
            try tx.logEvent(.cardAdded, cardLanguage: card.frontLanguage, tagCount: card.tags.count)
            return card
        }
    }

    /// Adds a batch of cards to a deck: all of them, or none when the batch would pass the plan's limit
    /// or any card is invalid (seed 001's `addPresetCards`; imports use it too).
    public func addCards(to deckReference: DeckID, _ drafts: [CardDraft]) throws -> [Card] {
        var valid: [CardDraft] = []
        valid.reserveCapacity(drafts.count)
        for (index, draft) in drafts.enumerated() {
            do {
                valid.append(try draft.validated())
            } catch CardboxError.invalid(let field, let reason) {
                throw CardboxError.invalid(field: "card \(index + 1) \(field)", reason: reason)
            }
        }
        return try write { tx in
            try tx.checkCanAdd(batchOf: valid.count)
            let deck = try tx.context.deck(tx.context.existing(deckReference, .deck))
            return try tx.withIndexesMadeAfter(["card", "cardTag"], inserting: valid.count) {
                try tx.insertCards(valid.map { ($0, nil) }, into: deck)
            }
        }
    }

    // MARK: Reading

    /// Cards of a deck (or of every deck) through seed 001's filters. Current cards come in creation
    /// order; archived cards newest archive first (seed 000). Cards made at one moment (an import)
    /// come by id, the order a device mints them in (see `Schema.orderTiesById`).
    public func cards(
        in deckReference: DeckID?, filter: CardFilter = CardFilter(), limit: Int? = nil, offset: Int = 0
    ) throws -> [Card] {
        try read { context in
            var (condition, arguments) = try Self.condition(deckReference, filter, context)
            let order = filter.archived ? "archivedAt DESC, uid" : "createdAt, uid"
            arguments += [limit ?? Int(Int64.max), offset]
            return try context.cards(
                context.db.cachedStatement(
                    sql: "SELECT \(Columns.Card.record) FROM card WHERE \(condition) ORDER BY \(order) LIMIT ? OFFSET ?"
                ),
                arguments)
        }
    }

    /// How many cards `cards(in:filter:)` gives in all.
    public func cardCount(in deckReference: DeckID?, filter: CardFilter = CardFilter()) throws -> Int {
        try read { context in
            let (condition, arguments) = try Self.condition(deckReference, filter, context)
            return try context.count("SELECT COUNT(*) FROM card WHERE \(condition)", arguments)
        }
    }

    /// The SQL condition of seed 001's filters, with its arguments.
    private static func condition(
        _ deckReference: DeckID?, _ filter: CardFilter, _ context: StoreContext
    ) throws -> (String, StatementArguments) {
        var (sql, arguments) = try context.deckScope(deckReference, of: .card)
        sql += " AND isArchived = ?"
        arguments += [filter.archived.storage]
        if let language = filter.language {
            sql += " AND (frontLanguage = ? OR backLanguage = ?)"
            let code = try Language.validate(language, field: "language")
            arguments += [code, code]
        }
        if let tag = filter.tag {
            sql += """
                 AND EXISTS (SELECT 1 FROM cardTag JOIN tag ON tag.key = cardTag.tagKey
                 WHERE cardTag.cardKey = card.key AND tag.nameKey = ?)
                """
            arguments += [TagName.normalize(tag)]
        }
        if filter.favoritesOnly { sql += " AND isFavorite = 1" }
        if let search = filter.search {
            // cardbox_folded: `CardSearch.folded`, so "ÁRBOL" finds "árbol" (SQLite's lower() and
            // LIKE fold ASCII letters only), as the browser's replica finds it.
            sql += " AND instr(cardbox_folded(front || char(10) || back || char(10) || notes), ?) > 0"
            arguments += [CardSearch.folded(search)]
        }
        return (sql, arguments)
    }

    public func card(_ reference: CardID) throws -> Card {
        try read { context in try context.card(context.existing(reference, .card)) }
    }

    /// The bytes and type of a stored image.
    public func imageData(sha256: String) throws -> (data: Data, mimeType: String) {
        try read { context in
            guard
                let row = try Row.fetchOne(
                    context.db.cachedStatement(
                        sql: "SELECT data, mimeType FROM image WHERE sha256 = ?"),
                    arguments: [sha256])
            else { throw CardboxError.notFound(kind: "image", reference: sha256) }
            return (row["data"], row["mimeType"])
        }
    }

    // MARK: Changing

    public func editCard(_ reference: CardID, _ changes: CardChanges) throws -> Card {
        var fields: Assignments<Columns.Card> = []
        let front = try changes.front.map(CardText.front)
        let back = try changes.back.map(CardText.back)
        let cardType = try changes.cardType.map(CardText.storedCardType)
        if let front { fields += [(.front, front), (.frontKey, SuggestionMatch.frontKey(front))] }
        if let back { fields.append((.back, back)) }
        if let cardType { fields.append((.cardType, cardType)) }
        if let language = changes.frontLanguage {
            fields.append((.frontLanguage, try Language.validate(language, field: "front language")))
        }
        if let language = changes.backLanguage {
            fields.append((.backLanguage, try Language.validate(language, field: "back language")))
        }
        if let notes = changes.notes {
            fields.append((.notes, try CardText.notes(notes)))
        }
        try CardText.checkExtras(imagePrompt: changes.imagePrompt, jsonContent: changes.jsonContent)
        if let prompt = changes.imagePrompt { fields.append((.imagePrompt, prompt.isEmpty ? nil : prompt)) }
        if let json = changes.jsonContent {
            fields.append((.jsonContent, json.isEmpty ? nil : json))
        }
        if let incomplete = changes.isIncomplete { fields.append((.isIncomplete, incomplete.storage)) }
        let tags = try changes.tags.map(TagName.validateList)
        return try write(decodingImages: Self.decoding(changes.image)) { tx in
            let id = try tx.context.existing(reference, .card)
            let old = try tx.context.card(id)
            // Checked only when the type changes: a card keeps a type it was given before (one
            // Cardbox does not know, or "cloze" before cloze cards existed).
            let changedType = cardType.flatMap { $0 == old.cardType.lowercased() ? nil : $0 }
            if let changedType { _ = try CardText.cardType(changedType) }
            if let changedType, (changedType == Cloze.cardType) != old.isCloze {
                throw CardboxError.invalid(
                    field: "cardType",
                    reason: old.isCloze
                        ? "a cloze card keeps its type: add the text as other cards instead"
                        : "a cloze card is made from text with {{c1::…}} deletions, one card for each number")
            }
            if old.isCloze, front != nil || back != nil { try tx.editClozeText(of: old, front: front, back: back) }
            var fields = fields
            if let image = changes.image {
                fields.append((.imageHash, try tx.storeImage(image).hash))
            } else if changes.removeImage {
                fields.append((.imageHash, nil))
            }
            if let tags { try tx.replaceTags(of: id, with: tags) }
            if let favorite = changes.isFavorite { try tx.setFavorite(old, favorite) }
            if let dueAt = changes.dueAt {
                // A due date sets the schedule; none forgets the card.
                try tx.saveSchedule(dueAt.map(old.rescheduled(dueAt:)) ?? old.forgotten(), stamped: false)
            }
            if !fields.isEmpty || tags != nil || changes.dueAt != nil {
                try tx.update(.card, id: id, fields + [(.modifiedAt, tx.nowMillis)])
            }
            if let hash = old.imageHash, changes.image != nil || changes.removeImage { try tx.collectImages([hash]) }
            return try tx.context.card(id)
        }
    }

    /// Seed 000: archiving keeps the card in its deck with `archivedAt`; restoring clears it.
    public func setArchived(_ reference: CardID, _ archived: Bool) throws -> Card {
        try write { tx in
            let id = try tx.context.existing(reference, .card)
            let card = try tx.context.card(id)
            guard card.isArchived != archived else { return card }
            try tx.update(
                .card, id: id,
                [
                    (.isArchived, archived.storage), (.archivedAt, archived ? tx.nowMillis : nil),
                    (.modifiedAt, tx.nowMillis),
                ])
            try tx.logEvent(archived ? .cardArchived : .cardRestored, cardLanguage: card.frontLanguage)
            return try tx.context.card(id)
        }
    }

    /// Seed 001's `toggleFavorite` (nil), or sets the flag.
    public func setFavorite(_ reference: CardID, _ favorite: Bool? = nil) throws -> Card {
        try write { tx in
            let id = try tx.context.existing(reference, .card)
            let card = try tx.context.card(id)
            try tx.setFavorite(card, favorite ?? !card.isFavorite)
            return try tx.context.card(id)
        }
    }

    /// Seed 001's `deleteAllCards()`: deletes every card (of one deck, when given), archived ones
    /// too, with their reviews and tag links, in one transaction. Answers how many went.
    @discardableResult
    public func deleteAllCards(in deckReference: DeckID? = nil) throws -> Int {
        try write { tx in
            let (scope, arguments) = try tx.context.deckScope(deckReference, of: .card)
            let cards = try Row.fetchAll(
                tx.db, sql: "SELECT \(Columns.Card.record) FROM card WHERE \(scope)", arguments: arguments
            ).map { try Card(row: $0, tags: []) }
            for card in cards { try tx.deleteCardRow(card) }
            return cards.count
        }
    }

    public func deleteCard(_ reference: CardID) throws {
        try write { tx in
            let id = try tx.context.existing(reference, .card)
            let card = try tx.context.card(id)
            try tx.deleteCardRow(card)
            try tx.logEvent(.cardDeleted, cardLanguage: card.frontLanguage)
        }
    }
}

extension Columns.Card {
    /// What a whole card is read from (`Card.init(row:tags:)`); the deck as its id, from its key.
    static let record = recordSelect()
}

extension WriteContext {
    func allowance() throws -> CardAllowance { try context.allowance() }
    func checkCanAdd(batchOf count: Int = 1) throws { try context.checkCanAdd(batchOf: count) }

    /// Inserts validated drafts into a deck, finding or creating their tags; returns the cards. The
    /// caller has checked the plan's limit for the whole batch.
    func insertCards(_ drafts: [(CardDraft, Data?)], into deck: Deck) throws -> [Card] {
        var cards: [Card] = []
        cards.reserveCapacity(drafts.count)
        try insertCards(drafts, into: deck) { _, build in cards.append(build()) }
        return cards
    }

    /// The same, calling `inserted` once per card with its row's key and a way to build its value
    /// (large imports need only the ids and skip building 100,000 values). `start` may give a card
    /// the state it starts in (an imported card's replayed answers, its archiving): it gets the
    /// card's index and a way to build the new card, and returns the card as it is to be inserted,
    /// or nil to insert it new.
    func insertCards(
        _ drafts: [(CardDraft, Data?)], into deck: Deck, start: (Int, () -> Card) throws -> Card? = { _, _ in nil },
        inserted: (_ cardKey: Int64, _ build: () -> Card) throws -> Void
    ) throws {
        var tags: [String: FoundTag] = [:]
        let deckKey = try key(of: deck)
        let (frontLanguage, backLanguage) = (deck.frontLanguage.databaseValue, deck.backLanguage.databaseValue)
        let (zero, created) = (Int64(0).databaseValue, nowMillis.databaseValue)
        let cards = TableInserter(self, .card)
        // Links are written by the keys just written: an import links hundreds of thousands, and
        // finding the card again by its id's bytes and the tag by its id cost as much as the link.
        let links = TableInserter(self, .cardTag)
        let now = Date(storageMillis: nowMillis)
        for (index, (draft, image)) in drafts.enumerated() {
            let uuid = newUUID()
            let id = uuid.storage
            let imageHash = try image.map { try storeImage($0).hash }
            let build = {
                Card(
                    id: CardID(uuid), deckId: deck.id, front: draft.front, back: draft.back,
                    cardType: draft.cardType, notes: draft.notes, frontLanguage: deck.frontLanguage,
                    backLanguage: deck.backLanguage, tags: draft.tags, imageHash: imageHash,
                    imagePrompt: draft.imagePrompt, jsonContent: draft.jsonContent, isIncomplete: draft.isIncomplete,
                    createdAt: now, modifiedAt: now, clozeNumber: draft.clozeNumber)
            }
            // A card inserted with a state of its own (imported with its reviews, archived) adds
            // its scheduling columns.
            let started = try start(index, build)
            var row: [(Columns.Card, DatabaseValue)] = [
                (.deckKey, deckKey.databaseValue), (.front, draft.front.databaseValue),
                (.frontKey, SuggestionMatch.frontKey(draft.front).databaseValue), (.back, draft.back.databaseValue),
                (.cardType, draft.cardType.databaseValue), (.notes, draft.notes.databaseValue),
                (.frontLanguage, frontLanguage), (.backLanguage, backLanguage), (.isFavorite, zero),
                (.imageHash, imageHash.databaseValue), (.imagePrompt, draft.imagePrompt.databaseValue),
                (.jsonContent, draft.jsonContent.databaseValue),
                (.isArchived, (started?.isArchived ?? false).storage.databaseValue),
                (.archivedAt, started?.archivedAt?.storageMillis.databaseValue ?? .null),
                (.isIncomplete, draft.isIncomplete.storage.databaseValue), (.createdAt, created),
                (.modifiedAt, created), (.clozeNumber, draft.clozeNumber.databaseValue),
            ]
            if let started {
                row += Self.scheduleFields(started).map { ($0.0, $0.1?.databaseValue ?? .null) }
            }
            try cards.insert(id: id, row)
            // The card was the last row inserted (no trigger on `card` writes another); a new card
            // has no links yet, so none is looked for first.
            let cardKey = db.lastInsertedRowID
            for name in draft.tags {
                let tag = try findOrCreateTag(named: name, cache: &tags)
                try links.insert(
                    id: RecordID.make([id, tag.id]),
                    [(.cardKey, cardKey.databaseValue), (.tagKey, tag.key.databaseValue)])
            }
            try inserted(cardKey) { started ?? build() }
        }
    }

    /// A deck's row key, for rows written by key in a batch.
    func key(of deck: Deck) throws -> Int64 {
        guard
            let key = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT key FROM deck WHERE id = ?"), arguments: [deck.id.storage])
        else { throw CardboxError.notFound(kind: "deck", reference: deck.id.storage) }
        return key
    }

    func deleteCardRow(_ card: Card) throws {
        try delete(.card, id: card.id.storage)
        if let hash = card.imageHash { try collectImages([hash]) }
    }
}

extension StoreContext {
    func allowance() throws -> CardAllowance {
        let (plan, freeCardLimit) = try planAndFreeCardLimit()
        return CardAllowance(plan: plan, cardCount: try cardCount(), freeCardLimit: freeCardLimit)
    }

    /// Seed 001's check before adding cards. The cards are counted only when the plan has a limit:
    /// on premium, adding a card walks no index of every card.
    func checkCanAdd(batchOf count: Int = 1) throws {
        let (plan, freeCardLimit) = try planAndFreeCardLimit()
        guard !CardAllowance(plan: plan, cardCount: 0, freeCardLimit: freeCardLimit).hasUnlimitedCards else { return }
        try CardAllowance(plan: plan, cardCount: try cardCount(), freeCardLimit: freeCardLimit)
            .checkCanAdd(batchOf: count)
    }

    private func planAndFreeCardLimit() throws -> (Plan, Int) {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT plan, freeCardLimit FROM account WHERE id = ?"), arguments: [account])
        else { throw CardboxError.storage("the store has no account \(account)") }
        let account = TableRow<Columns.Account>(row)
        return (Plan(rawValue: account[.plan]) ?? .free, account[.freeCardLimit])
    }

    private func cardCount() throws -> Int { try count("SELECT COUNT(*) FROM card", []) }

    func card(_ id: String) throws -> Card {
        let statement = try db.cachedStatement(
            sql: "SELECT \(Columns.Card.record) FROM card WHERE \(Entity.card.binding("id"))")
        guard let card = try cards(statement, [id]).first else {
            throw CardboxError.notFound(kind: "card", reference: id)
        }
        return card
    }

    /// The cards with these ids, in this order (ids of no card are left out).
    func cards(ids: [String]) throws -> [Card] {
        try cards(ids, padding: "", column: Entity.card.idExpression) { Entity.card.idAmong($0) }
    }

    /// The cards with these keys, in this order: the study queue picks its cards off the indexes,
    /// which hold the key (reading the id would make each candidate's text from its bytes).
    func cards(keys: [Int64]) throws -> [Card] {
        try cards(keys, padding: 0, column: "key") { "key IN (\(databaseQuestionMarks(count: $0)))" }
    }

    /// The cards whose `column` holds these values, in this order, read 512 at a time by `condition`
    /// (given the number of arguments).
    private func cards<Value: Hashable & DatabaseValueConvertible>(
        _ values: [Value], padding: Value, column: String, condition: (Int) -> String
    ) throws -> [Card] {
        var found: [Value: (card: Card, key: Int64)] = [:]
        let lookup = Columns.Card.recordWidth
        for chunk in paddedChunks(values, padding: padding) {
            let statement = try db.cachedStatement(
                sql: "SELECT \(Columns.Card.record), \(column) AS lookup FROM card WHERE \(condition(chunk.count))")
            try statement.forEachRow(StatementArguments(chunk)) { row in
                found[row[lookup]] = (try Card(row: row, tags: []), RecordRow(row, Columns.Card.self).key)
            }
        }
        return try withTags(values.compactMap { found[$0] })
    }

    /// The cards `statement` reads (its columns `Columns.Card.record`), with their tags.
    func cards(_ statement: Statement, _ arguments: StatementArguments) throws -> [Card] {
        try withTags(
            statement.records(arguments) { row -> (card: Card, key: Int64) in
                (try Card(row: row, tags: []), RecordRow(row, Columns.Card.self).key)
            })
    }

    /// The cards with their tags, fetched in batches by the cards' keys (the links are keyed by them).
    private func withTags(_ cards: [(card: Card, key: Int64)]) throws -> [Card] {
        var tagsByCard: [Int64: [String]] = [:]
        for chunk in paddedChunks(cards.map(\.key), padding: 0) {
            try db.cachedStatement(
                sql: """
                    SELECT cardTag.cardKey, tag.name FROM cardTag JOIN tag ON tag.key = cardTag.tagKey
                    WHERE cardTag.cardKey IN (\(databaseQuestionMarks(count: chunk.count)))
                    ORDER BY tag.nameKey
                    """
            ).forEachRow(StatementArguments(chunk)) { row in tagsByCard[row[0], default: []].append(row[1]) }
        }
        return cards.map { found in
            var card = found.card
            card.tags = tagsByCard[found.key] ?? []
            return card
        }
    }
}

/// `values` 512 at a time, each chunk padded with `padding` (a value no row has) to a power of two,
/// so a handful of prepared statements serve every size.
private func paddedChunks<Value>(_ values: [Value], padding: Value) -> [[Value]] {
    stride(from: 0, to: values.count, by: 512).map { start in
        let chunk = Array(values[start..<min(start + 512, values.count)])
        let size = chunk.count <= 1 ? 1 : 1 << (Int.bitWidth - (chunk.count - 1).leadingZeroBitCount)
        return chunk + Array(repeating: padding, count: size - chunk.count)
    }
}

extension Card {
    /// A card from a row of `Columns.Card.record`.
    init(row source: some PositionalRow, tags: [String]) throws {
        let row = RecordRow(source, Columns.Card.self)
        self.init(
            id: try .init(stored: row.id), deckId: try .init(stored: row[.deckId]), front: row[.front],
            back: row[.back], cardType: row[.cardType], notes: row[.notes], frontLanguage: row[.frontLanguage],
            backLanguage: row[.backLanguage], isFavorite: row[.isFavorite], tags: tags, imageHash: row[.imageHash],
            imagePrompt: row[.imagePrompt], jsonContent: row[.jsonContent], isArchived: row[.isArchived],
            archivedAt: row.millis(.archivedAt), isIncomplete: row[.isIncomplete], dueAt: row.millis(.dueAt),
            createdAt: Date(storageMillis: row[.createdAt]), modifiedAt: Date(storageMillis: row[.modifiedAt]),
            clozeNumber: row[.clozeNumber])
        state = CardState(rawValue: row[.state]) ?? .new
        step = row[.step]
        stability = row[.stability]
        difficulty = row[.difficulty]
        lastReviewAt = row.millis(.lastReviewAt)
        reps = row[.reps]
        lapses = row[.lapses]
    }
}

extension WriteContext {
    /// Marks or unmarks `card` as a favorite, and logs it (seed 001's usage events), if it changes.
    func setFavorite(_ card: Card, _ favorite: Bool) throws {
        guard favorite != card.isFavorite else { return }
        try update(.card, id: card.id.storage, [(.isFavorite, favorite.storage), (.modifiedAt, nowMillis)])
        try logEvent(
            favorite ? .cardFavorited : .cardUnfavorited, cardLanguage: card.frontLanguage, tagCount: card.tags.count)
    }
}
