import CardboxCore
import CardboxScheduling
import Foundation
import GRDB
import Synchronization

/// Where an imported card came from, as messages name it ("cards.csv line 12", "deck.apkg card 17"):
/// kept as its parts and made into text only for a message. A 10,000-note package made 10,000 such
/// texts that no message used, 2.5 % of its import.
public struct ImportSource: Sendable, CustomStringConvertible, ExpressibleByStringInterpolation {
    private let file: String
    private let unit: StaticString
    private let number: Int64?

    /// The `number`th `unit` of `file`: `ImportSource(file: "cards.csv", unit: "line", number: 12)`.
    public init(file: String, unit: StaticString, number: Int64) {
        (self.file, self.unit, self.number) = (file, unit, number)
    }

    /// A source named by a text as it is.
    public init(stringLiteral text: String) { (file, unit, number) = (text, "", nil) }

    public var description: String { number.map { "\(file) \(unit) \($0)" } ?? file }
}

/// A card to import into a named deck; `source` names where it came from (for errors: "file line 7").
public struct CardImport: Sendable {
    public var deck: String
    public var draft: CardDraft
    public var source: ImportSource
    /// An image to attach, already checked.
    public var image: Data?
    public var isArchived = false
    /// Past answers, oldest first: replayed into the card's FSRS state and kept as its review log.
    public var reviews: [ReviewImport] = []

    public init(deck: String, draft: CardDraft, source: ImportSource) {
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
        var cards = cards
        let duplicateKeys = try Self.validate(&cards)
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
            var targets: [DeckAdditions] = []  // in the order the import first names them
            var targetByName: [String: Int] = [:]
            var previous: (name: String, target: Int)?  // most rows name the deck the row before did
            for (index, card) in cards.enumerated() {
                let target: Int
                if let previous, previous.name == card.deck {
                    target = previous.target
                } else if let known = targetByName[card.deck] {
                    target = known
                } else {
                    let deck = try tx.importDeck(
                        card, languages: languages, missingLanguage: missingLanguage, decks: &decks, report: &report)
                    if let same = targets.firstIndex(where: { $0.deck.id == deck.id }) {  // its id and its name
                        target = same
                    } else {
                        targets.append(DeckAdditions(deck: deck, keys: try tx.cardKeys(deckId: deck.id.storage)))
                        target = targets.count - 1
                    }
                    targetByName[card.deck] = target
                }
                previous = (card.deck, target)
                let key = duplicateKeys[index]
                if let existingId = targets[target].keys[key], policy != .copy {
                    if policy == .skip {
                        report.count("card", \.skipped)
                        continue
                    }
                    if existingId.isEmpty {  // added earlier in this import: the later row wins
                        targets[target].indices.removeAll { duplicateKeys[$0] == key }
                        targets[target].indices.append(index)
                    } else {
                        try tx.update(
                            .card, id: existingId,
                            [(.back, card.draft.back), (.notes, card.draft.notes), (.modifiedAt, tx.nowMillis)])
                        try tx.replaceTags(of: existingId, with: card.draft.tags)
                    }
                    report.count("card", \.replaced)
                    continue
                }
                targets[target].keys[key] = ""
                targets[target].indices.append(index)
            }
            for target in targets.indices { targets[target].keys = [:] }  // the inserts need them no more
            let total = targets.map(\.indices.count).reduce(0, +)
            try tx.checkCanAdd(batchOf: total)
            var done = 0
            progress?(0, total)
            try tx.withIndexesMadeAfter(["card", "cardTag", "reviewLog"], inserting: total) {
                for target in targets where !target.indices.isEmpty {
                    try tx.insertImported(target.indices.map { cards[$0] }, into: target.deck, report: &report) {
                        done += 1
                        if done % 1_000 == 0 || done == total { progress?(done, total) }
                    }
                }
            }
            return report
        }
    }

    /// One deck an import adds to: its cards by duplicate key (an existing card's id, "" for one
    /// this import adds), and the import's cards it adds, by index.
    private struct DeckAdditions {
        let deck: Deck
        var keys: [String: String]
        var indices: [Int] = []
    }

    /// The cards and their keys, shared by threads that each write their own range of indices.
    private struct DisjointParts: @unchecked Sendable {
        let cards: UnsafeMutableBufferPointer<CardImport>
        let keys: UnsafeMutableBufferPointer<String>
    }

    /// Validates every card's draft in place, on as many threads as the machine has (validating is
    /// 8 % of a 100,000-card CSV import's instructions), and returns each card's duplicate key. The
    /// error is the first invalid card's, in the import's order. In place: a large import is held
    /// once, not copied.
    private static func validate(_ cards: inout [CardImport]) throws -> [String] {
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, cards.count / 1_000))
        var keys = [String](repeating: "", count: cards.count)
        let failures = Mutex<[(index: Int, error: any Error)]>([])
        cards.withUnsafeMutableBufferPointer { cards in
            keys.withUnsafeMutableBufferPointer { keys in
                let shared = DisjointParts(cards: cards, keys: keys)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let (cards, keys) = (shared.cards, shared.keys)
                    for index in cards.count * part / parts..<cards.count * (part + 1) / parts {
                        do {
                            cards[index].draft = try cards[index].draft.validated()
                            keys[index] = duplicateKey(cards[index].draft)
                        } catch CardboxError.invalid(let field, let reason) {
                            let error = CardboxError.invalid(field: "\(cards[index].source): \(field)", reason: reason)
                            return failures.withLock { $0.append((index, error)) }
                        } catch {
                            return failures.withLock { $0.append((index, error)) }
                        }
                    }
                }
            }
        }
        if let first = failures.withLock({ $0.min { $0.index < $1.index } }) { throw first.error }
        return keys
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
        let reviews = TableInserter(self, .reviewLog)
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
                field: card.source.description,
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
                    SELECT \(Entity.card.idExpression) AS id, frontKey, cardType, clozeNumber FROM card
                    WHERE \(Entity.card.binding("deckId"))
                    """),
            arguments: [deckId])
        {
            let card = TableRow<Columns.Card>(row)
            keys[
                CardboxStore.duplicateKey(
                    frontKey: card[.frontKey], cardType: card[.cardType], clozeNumber: card[.clozeNumber])] = card.id
        }
        return keys
    }
}
