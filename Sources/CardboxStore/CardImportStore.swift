import CardboxCore
import CardboxScheduling
import Foundation
import GRDB

/// A card to import into a named deck; `source` names where it came from (for errors: "file line 7").
public struct CardImport: Sendable {
    public var deck: String
    public var draft: CardDraft
    public var source: String
    /// An image to attach, already checked.
    public var image: Data?
    public var isArchived = false
    /// Past answers, oldest first: replayed into the card's FSRS state and kept as its review log.
    public var reviews: [ReviewImport] = []

    public init(deck: String, draft: CardDraft, source: String) {
        self.deck = deck
        self.draft = draft
        self.source = source
    }
}

/// One past answer of an imported card.
public struct ReviewImport: Sendable, Equatable {
    public var rating: Int
    public var at: Date
    public var durationMs: Int?

    public init(rating: Int, at: Date, durationMs: Int?) {
        self.rating = rating
        self.at = at
        self.durationMs = durationMs
    }
}

extension CardboxStore {
    /// Imports cards into their decks in one transaction: all of them or none. A card whose front and
    /// type its deck already has (or that came earlier in the same import) is a duplicate: skipped,
    /// replaced (back, notes and tags updated) or copied, as `policy` says. The plan's card limit is
    /// checked for the whole import first (seed 001). Decks that do not exist are created with
    /// `newDeckLanguages`, or refused when it is nil.
    /// `missingLanguage` says how to give them, where the import was asked (a flag, a menu).
    public func importCards(
        _ cards: consuming [CardImport], newDeckLanguages: (front: String, back: String)?,
        onDuplicate policy: DuplicatePolicy, missingLanguage: String = "give the front language for new decks",
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> ImportReport {
        // Validated in place: a large import is held once, not copied.
        var cards = cards
        for index in cards.indices {
            do {
                cards[index].draft = try cards[index].draft.validated()
            } catch CardboxError.invalid(let field, let reason) {
                throw CardboxError.invalid(field: "\(cards[index].source): \(field)", reason: reason)
            }
        }
        let languages = try newDeckLanguages.map {
            (
                try Language.validate($0.front, field: "front language"),
                try Language.validate($0.back, field: "back language")
            )
        }
        let images = cards.compactMap { card in card.image.map { ($0, "\(card.source): image") } }
        return try write(decodingImages: images) { [cards] tx in
            var report = ImportReport()
            var decks: [String: Deck] = [:]
            var keys: [String: [String: String]] = [:]  // deck id → "frontKey\ttype" → card id ("" if new)
            var additions: [String: [Int]] = [:]  // deck id → indices into `cards`
            var order: [String] = []
            for (index, card) in cards.enumerated() {
                let deck = try tx.importDeck(
                    card, languages: languages, missingLanguage: missingLanguage, decks: &decks, report: &report)
                let deckId = deck.id.storage
                if keys[deckId] == nil {
                    keys[deckId] = try tx.cardKeys(deckId: deckId)
                    order.append(deckId)
                }
                let key = Self.duplicateKey(card.draft)
                if let existingId = keys[deckId]![key], policy != .copy {
                    if policy == .skip {
                        report.count("card", \.skipped)
                        continue
                    }
                    if existingId.isEmpty {  // added earlier in this import: the later row wins
                        additions[deckId]!.removeAll { Self.duplicateKey(cards[$0].draft) == key }
                        additions[deckId]!.append(index)
                    } else {
                        try tx.update(
                            .card, id: existingId,
                            [("back", card.draft.back), ("notes", card.draft.notes), ("modifiedAt", tx.nowMillis)])
                        try tx.replaceTags(of: existingId, with: card.draft.tags)
                    }
                    report.count("card", \.replaced)
                    continue
                }
                keys[deckId]![key] = ""
                additions[deckId, default: []].append(index)
            }
            keys = [:]
            let total = additions.values.map(\.count).reduce(0, +)
            try tx.checkCanAdd(batchOf: total)
            var done = 0
            progress?(0, total)
            try tx.withIndexesMadeAfter(["card", "cardTag", "reviewLog"], inserting: total) {
                for deckId in order {
                    guard let indices = additions[deckId], !indices.isEmpty else { continue }
                    try tx.insertImported(
                        indices.map { cards[$0] }, into: decks.values.first { $0.id.storage == deckId }!,
                        report: &report
                    ) {
                        done += 1
                        if done % 1_000 == 0 || done == total { progress?(done, total) }
                    }
                }
            }
            return report
        }
    }

    /// Cards of one deck with the same key are duplicates: the same front and type, and for a cloze
    /// card the same deletion number (the cards of one text are not duplicates of each other).
    fileprivate static func duplicateKey(frontKey: String, cardType: String, clozeNumber: Int?) -> String {
        frontKey + "\t" + cardType + (clozeNumber.map { "\t\($0)" } ?? "")
    }

    fileprivate static func duplicateKey(_ draft: CardDraft) -> String {
        duplicateKey(
            frontKey: SuggestionMatch.frontKey(draft.front), cardType: draft.cardType, clozeNumber: draft.clozeNumber)
    }
}

extension WriteContext {
    /// Inserts one deck's new imported cards, each in the state its past reviews (replayed) and its
    /// archiving in the source leave it, then logs those reviews; `inserted` runs after each card.
    fileprivate func insertImported(
        _ imports: [CardImport], into deck: Deck, report: inout ImportReport, inserted: () -> Void
    ) throws {
        let scheduler = try Scheduler(deck.study)
        let archivedAt = Date(storageMillis: nowMillis)
        let deckKey = try key(of: deck)
        let reviews = try reviewsByKey()
        var replayed: [ReplayedAnswer] = []
        try insertCards(imports.map { ($0.draft, $0.image) }, into: deck) { index, build in
            let imported = imports[index]
            guard !imported.reviews.isEmpty || imported.isArchived else { return nil }
            var card: Card
            (card, replayed) = ReplayedAnswer.replay(imported.reviews, on: build(), scheduler: scheduler)
            if imported.isArchived {
                card.isArchived = true
                card.archivedAt = archivedAt
            }
            return card
        } inserted: { cardKey, _ in
            inserted()
            report.count("card", \.created)
            try logReplayed(replayed, cardKey: cardKey, deckKey: deckKey, into: reviews)
            for _ in replayed { report.count("review", \.created) }
            replayed = []
        }
    }

    /// The deck an imported card goes to: found by id or name, or created when languages are given.
    fileprivate func importDeck(
        _ card: CardImport, languages: (String, String)?, missingLanguage: String, decks: inout [String: Deck],
        report: inout ImportReport
    ) throws -> Deck {
        if let known = decks[card.deck] { return known }
        if let id = try? context.resolve(card.deck, .deck) {
            let deck = try context.deck(id)
            decks[card.deck] = deck
            return deck
        }
        guard let (front, back) = languages else {
            throw CardboxError.invalid(
                field: card.source,
                reason: "deck '\(card.deck)' does not exist (\(missingLanguage) to create it)")
        }
        let deck = try insertDeck(
            name: try Deck.validateName(card.deck), frontLanguage: front, backLanguage: back, queued: 0)
        decks[card.deck] = deck
        report.count("deck", \.created)
        return deck
    }

    /// A deck's cards by `duplicateKey` → id, for finding duplicates.
    fileprivate func cardKeys(deckId: String) throws -> [String: String] {
        var keys: [String: String] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(Entity.card.selectExpression("id", table: nil)) AS id, frontKey, cardType, clozeNumber
                    FROM card WHERE \(Entity.card.binding("deckId"))
                    """),
            arguments: [deckId])
        {
            keys[
                CardboxStore.duplicateKey(
                    frontKey: row["frontKey"], cardType: row["cardType"], clozeNumber: row["clozeNumber"])] = row["id"]
        }
        return keys
    }
}
