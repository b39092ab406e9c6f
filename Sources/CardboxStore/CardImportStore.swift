import CardboxCore
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
    public func importCards(
        _ cards: [CardImport], newDeckLanguages: (front: String, back: String)?, onDuplicate policy: DuplicatePolicy
    ) throws -> ImportReport {
        var valid: [CardImport] = []
        valid.reserveCapacity(cards.count)
        for card in cards {
            do {
                var checked = card
                checked.draft = try card.draft.validated()
                valid.append(checked)
            } catch CardboxError.invalid(let field, let reason) {
                throw CardboxError.invalid(field: "\(card.source): \(field)", reason: reason)
            }
        }
        let languages = try newDeckLanguages.map {
            (
                try Language.validate($0.front, field: "front language"),
                try Language.validate($0.back, field: "back language")
            )
        }
        return try write { tx in
            var report = ImportReport()
            var decks: [String: Deck] = [:]
            var keys: [String: [String: String]] = [:]  // deck id → "frontKey\ttype" → card id
            var additions: [String: [CardImport]] = [:]
            var order: [String] = []
            for card in valid {
                let deck: Deck
                if let known = decks[card.deck] {
                    deck = known
                } else if let id = try? tx.context.resolve(card.deck, .deck) {
                    deck = try tx.context.deck(id)
                    decks[card.deck] = deck
                } else {
                    guard let (front, back) = languages else {
                        throw CardboxError.invalid(
                            field: card.source, reason: "deck '\(card.deck)' does not exist (give --front to create it)"
                        )
                    }
                    deck = try tx.insertDeck(
                        name: try Deck.validateName(card.deck), frontLanguage: front, backLanguage: back, queued: 0)
                    decks[card.deck] = deck
                    report.count("deck", \.created)
                }
                let deckId = deck.id.storage
                if keys[deckId] == nil {
                    var existing: [String: String] = [:]
                    for row in try Row.fetchAll(
                        tx.db.cachedStatement(
                            sql: "SELECT id, frontKey, cardType FROM card WHERE accountId = ? AND deckId = ?"),
                        arguments: [tx.account, deckId])
                    {
                        existing[(row["frontKey"] as String) + "\t" + (row["cardType"] as String)] = row["id"]
                    }
                    keys[deckId] = existing
                    order.append(deckId)
                }
                let key = SuggestionMatch.frontKey(card.draft.front) + "\t" + card.draft.cardType
                if let existingId = keys[deckId]![key], policy != .copy {
                    if policy == .skip {
                        report.count("card", \.skipped)
                        continue
                    }
                    if existingId.isEmpty {  // added earlier in this import: the later row wins
                        additions[deckId]!.removeAll {
                            SuggestionMatch.frontKey($0.draft.front) + "\t" + $0.draft.cardType == key
                        }
                        additions[deckId]!.append(card)
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
                additions[deckId, default: []].append(card)
            }
            let total = additions.values.map(\.count).reduce(0, +)
            try tx.allowance().checkCanAdd(batchOf: total)
            for deckId in order {
                guard let imports = additions[deckId], !imports.isEmpty else { continue }
                let deck = decks.values.first { $0.id.storage == deckId }!
                let cards = try tx.insertCards(imports.map { ($0.draft, $0.image) }, into: deck)
                for (card, imported) in zip(cards, imports) {
                    report.count("card", \.created)
                    if !imported.reviews.isEmpty {
                        try tx.replay(imported.reviews, on: card, deck: deck)
                        for _ in imported.reviews { report.count("review", \.created) }
                    }
                    if imported.isArchived {
                        try tx.update(.card, id: card.id.storage, [("isArchived", 1), ("archivedAt", tx.nowMillis)])
                    }
                }
            }
            return report
        }
    }
}
