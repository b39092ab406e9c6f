import CardboxCore
import Foundation
import GRDB

extension CardboxStore {
    /// Feeds a deck's suggestion queue. Refused when the front and card type match a rejected
    /// suggestion, a card of the deck, or a suggestion already queued (seed 000). The suggestion is
    /// invisible until it has its image (seed 000: visible suggestions have generated images).
    public func addSuggestion(to deckReference: DeckID, _ draft: SuggestionDraft, image: Data? = nil) throws
        -> Suggestion
    {
        let draft = try draft.validated()
        return try write(decodingImages: Self.decoding(image)) { tx in
            let deckId = try tx.context.existing(deckReference, .deck)
            // Seed 000: rejected suggestions are cleaned up periodically; adding is when the queue is kept.
            _ = try tx.deleteRejectedSuggestions(
                deckId: deckId, olderThanDays: try tx.context.settings().rejectedSuggestionRetentionDays)
            try tx.checkNotDuplicate(draft, deckId: deckId)
            let imageHash = try image.map { try tx.storeImage($0).hash }
            let id = try tx.insertSuggestion(
                draft, deckId: deckId, imageHash: imageHash, visible: imageHash != nil)
            return try tx.context.suggestion(id)
        }
    }

    /// A deck's suggestions: by default the visible ones a person can review; `includeAll` adds the
    /// invisible (awaiting an image) and hidden (skipped) ones.
    public func suggestions(in deckReference: DeckID, includeAll: Bool = false) throws -> [Suggestion] {
        try read { context in
            let deckId = try context.existing(deckReference, .deck)
            let all = try context.suggestions(Entity.suggestion.binding("deckId", table: "s"), [deckId])
            return includeAll ? all : all.filter { $0.isVisible && !$0.isHidden }
        }
    }

    public func suggestion(_ reference: SuggestionID) throws -> Suggestion {
        try read { context in try context.suggestion(context.existing(reference, .suggestion)) }
    }

    public func rejectedSuggestions(in deckReference: DeckID) throws -> [RejectedSuggestion] {
        try read { context in
            try Row.fetchAll(
                context.db.cachedStatement(
                    sql: """
                        SELECT id, \(Entity.rejectedSuggestion.selectExpression("deckId", table: "rejectedSuggestion"))
                          AS deckId, front, cardType, deletedAt
                        FROM rejectedSuggestion WHERE \(Entity.rejectedSuggestion.binding("deckId"))
                        ORDER BY deletedAt DESC, id
                        """), arguments: [try context.existing(deckReference, .deck)]
            ).map {
                RejectedSuggestion(
                    id: try .init(stored: $0["id"]), deckId: try .init(stored: $0["deckId"]), front: $0["front"],
                    cardType: $0["cardType"], deletedAt: Date(storageMillis: $0["deletedAt"]))
            }
        }
    }

    /// Seed 000's image pipeline step: the image is made and attached, so the suggestion becomes
    /// visible (a replaced image is let go).
    public func markSuggestionReady(_ reference: SuggestionID, image: Data) throws -> Suggestion {
        try write(decodingImages: Self.decoding(image)) { tx in
            let id = try tx.context.existing(reference, .suggestion)
            let old = try tx.context.suggestion(id).imageHash
            try tx.update(.suggestion, id: id, [(.isVisible, 1), (.imageHash, try tx.storeImage(image).hash)])
            if let old { try tx.collectImages([old]) }
            return try tx.context.suggestion(id)
        }
    }

    /// Seed 000: a visible suggestion becomes a card of its deck and leaves the queue. Counts against
    /// the plan's card limit like any added card.
    public func acceptSuggestion(_ reference: SuggestionID) throws -> Card {
        try write { tx in
            let suggestion = try tx.reviewableSuggestion(reference)
            try tx.checkCanAdd()
            let deck = try tx.context.deck(suggestion.deckId.storage)
            let draft = CardDraft(
                front: suggestion.front, back: suggestion.back, cardType: suggestion.cardType,
                imagePrompt: suggestion.imagePrompt)
            let card = try tx.insertCards([(draft, nil)], into: deck)[0]
            if let hash = suggestion.imageHash {
                try tx.update(.card, id: card.id.storage, [(.imageHash, hash)])
            }
            try tx.delete(.suggestion, id: suggestion.id.storage)
            try tx.logEvent(.suggestionAccepted)
            try tx.logEvent(.cardAdded, cardLanguage: card.frontLanguage, tagCount: 0)
            return try tx.context.card(card.id.storage)
        }
    }

    /// Seed 000: rejecting records the front and card type (so it is not suggested again) and removes
    /// the suggestion.
    public func rejectSuggestion(_ reference: SuggestionID) throws -> RejectedSuggestion {
        try write { tx in
            let suggestion = try tx.reviewableSuggestion(reference)
            let rejected = try tx.insertRejected(suggestion)
            try tx.delete(.suggestion, id: suggestion.id.storage)
            try tx.collectImages([suggestion.imageHash].compactMap { $0 })
            try tx.logEvent(.suggestionRejected)
            return rejected
        }
    }

    /// Seed 000: skipping records the suggestion as rejected but keeps it, hidden while that record
    /// exists (resetting rejected suggestions shows it again).
    public func skipSuggestion(_ reference: SuggestionID) throws -> RejectedSuggestion {
        try write { tx in
            let suggestion = try tx.reviewableSuggestion(reference)
            let rejected = try tx.insertRejected(suggestion)
            try tx.logEvent(.suggestionSkipped)
            return rejected
        }
    }
}

extension WriteContext {
    /// Inserts a validated draft into the deck's queue and logs it; returns its id.
    func insertSuggestion(_ draft: SuggestionDraft, deckId: String, imageHash: String?, visible: Bool) throws -> String
    {
        let id = newID()
        try insert(
            .suggestion, id: id,
            [
                (.deckId, deckId), (.front, draft.front), (.frontKey, SuggestionMatch.frontKey(draft.front)),
                (.back, draft.back), (.cardType, draft.cardType), (.imagePrompt, draft.imagePrompt),
                (.context, draft.context), (.category, draft.category.rawValue), (.isVisible, visible.storage),
                (.imageHash, imageHash), (.createdAt, nowMillis),
            ])
        try logEvent(.suggestionAdded)
        return id
    }

    func checkNotDuplicate(_ draft: SuggestionDraft, deckId: String) throws {
        let arguments: StatementArguments = [deckId, SuggestionMatch.frontKey(draft.front), draft.cardType]
        // Cards, suggestions and rejected suggestions all name their deck by its key.
        let scope = "deckKey = (SELECT key FROM deck WHERE id = ?) AND frontKey = ? AND cardType = ?"
        if try context.count("SELECT COUNT(*) FROM rejectedSuggestion WHERE \(scope)", arguments) > 0 {
            throw CardboxError.duplicateSuggestion(
                front: draft.front, cardType: draft.cardType, reason: .rejectedBefore)
        }
        if try context.count("SELECT COUNT(*) FROM card WHERE \(scope)", arguments) > 0 {
            throw CardboxError.duplicateSuggestion(front: draft.front, cardType: draft.cardType, reason: .existingCard)
        }
        if try context.count("SELECT COUNT(*) FROM suggestion WHERE \(scope)", arguments) > 0 {
            throw CardboxError.alreadyExists(kind: "suggestion", name: draft.front)
        }
    }

    /// Only a visible suggestion can be accepted, rejected or skipped.
    func reviewableSuggestion(_ reference: SuggestionID) throws -> Suggestion {
        let suggestion = try context.suggestion(context.existing(reference, .suggestion))
        guard suggestion.isVisible else { throw CardboxError.suggestionNotReady(id: suggestion.id.storage) }
        guard !suggestion.isHidden else {
            throw CardboxError.invalid(
                field: "suggestion",
                reason: "\(suggestion.id.storage) was skipped; reset rejected suggestions to review it")
        }
        return suggestion
    }

    func insertRejected(_ suggestion: Suggestion) throws -> RejectedSuggestion {
        let id = newID()
        try insert(
            .rejectedSuggestion, id: id,
            [
                (.deckId, suggestion.deckId.storage), (.front, suggestion.front),
                (.frontKey, SuggestionMatch.frontKey(suggestion.front)), (.cardType, suggestion.cardType),
                (.deletedAt, nowMillis),
            ])
        return RejectedSuggestion(
            id: try .init(stored: id), deckId: suggestion.deckId, front: suggestion.front,
            cardType: suggestion.cardType, deletedAt: Date(storageMillis: nowMillis))
    }
}

extension StoreContext {
    func suggestion(_ id: String) throws -> Suggestion {
        guard let suggestion = try suggestions("s.id = ?", [id]).first else {
            throw CardboxError.notFound(kind: "suggestion", reference: id)
        }
        return suggestion
    }

    /// Suggestions matching `condition`, oldest first, with `isHidden` derived from the rejected list.
    func suggestions(_ condition: String, _ arguments: StatementArguments) throws -> [Suggestion] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(Entity.suggestion.allColumns(table: "s")), EXISTS (SELECT 1 FROM rejectedSuggestion r WHERE
                      r.deckKey = s.deckKey AND r.frontKey = s.frontKey AND r.cardType = s.cardType) AS isHidden
                    FROM suggestion s WHERE \(condition) ORDER BY s.createdAt, s.id
                    """), arguments: arguments
        ).map { fetched in
            let row = TableRow<Columns.Suggestion>(fetched)
            return Suggestion(
                id: try .init(stored: row.id), deckId: try .init(stored: row[.deckId]), front: row[.front],
                back: row[.back], cardType: row[.cardType], imagePrompt: row[.imagePrompt], context: row[.context],
                category: SuggestionCategory(rawValue: row[.category]) ?? .relatedVocabulary,
                isVisible: row[.isVisible], isHidden: fetched["isHidden"], imageHash: row[.imageHash],
                createdAt: Date(storageMillis: row[.createdAt]))
        }
    }
}

/// What the suggestion maintenance step needs to know about a deck (seed 000's "Suggestion
/// Maintenance"): its settings, what its suggestions relate to, how full the queue is per
/// category, and which fronts are taken.
public struct SuggestionQueueState: Sendable {
    public var deck: Deck
    /// The deck's current (not archived) cards, newest first.
    public var cards: [(front: String, back: String)]
    /// Queued suggestions (visible and invisible, skipped ones included) per category.
    public var queued: [SuggestionCategory: Int]
    /// Front keys of the deck's cards (archived too), suggestions and rejected suggestions.
    public var takenFronts: Set<String>

    public var queuedCount: Int { queued.values.reduce(0, +) }
}

extension CardboxStore {
    public func suggestionQueueState(in deckReference: DeckID) throws -> SuggestionQueueState {
        try read { context in
            let deckId = try context.existing(deckReference, .deck)
            let deck = try context.deck(deckId)
            let arguments: StatementArguments = [deckId]
            let cards = try Row.fetchAll(
                context.db,
                sql: """
                    SELECT front, back FROM card WHERE \(Entity.card.binding("deckId")) AND isArchived = 0
                    ORDER BY createdAt DESC, uid DESC
                    """, arguments: arguments
            ).map { (front: $0["front"] as String, back: $0["back"] as String) }
            var queued: [SuggestionCategory: Int] = [:]
            for row in try Row.fetchAll(
                context.db,
                sql: """
                    SELECT category, COUNT(*) AS n FROM suggestion WHERE \(Entity.suggestion.binding("deckId"))
                    GROUP BY category
                    """,
                arguments: arguments)
            {
                if let category = SuggestionCategory(rawValue: row["category"]) { queued[category] = row["n"] }
            }
            let taken = try String.fetchAll(
                context.db,
                sql: """
                    SELECT frontKey FROM card WHERE deckKey = (SELECT key FROM deck WHERE id = ?1)
                    UNION SELECT frontKey FROM suggestion WHERE deckKey = (SELECT key FROM deck WHERE id = ?1)
                    UNION SELECT frontKey FROM rejectedSuggestion WHERE deckKey = (SELECT key FROM deck WHERE id = ?1)
                    """, arguments: arguments)
            return SuggestionQueueState(deck: deck, cards: cards, queued: queued, takenFronts: Set(taken))
        }
    }

    /// Adds generated suggestions to a deck's queue in one transaction, invisible until their
    /// images are ready; a draft whose front is taken by then (a card, a queued or a rejected
    /// suggestion) is left out, not an error.
    public func addGeneratedSuggestions(to deckReference: DeckID, _ drafts: [SuggestionDraft]) throws -> [Suggestion] {
        let drafts = try drafts.map { try $0.validated() }
        return try write { tx in
            let deckId = try tx.context.existing(deckReference, .deck)
            _ = try tx.deleteRejectedSuggestions(
                deckId: deckId, olderThanDays: try tx.context.settings().rejectedSuggestionRetentionDays)
            var added: [Suggestion] = []
            for draft in drafts {
                do {
                    try tx.checkNotDuplicate(draft, deckId: deckId)
                } catch let error as CardboxError {
                    if case .duplicateSuggestion = error { continue }
                    if case .alreadyExists = error { continue }
                    throw error
                }
                let id = try tx.insertSuggestion(draft, deckId: deckId, imageHash: nil, visible: false)
                added.append(try tx.context.suggestion(id))
            }
            return added
        }
    }
}
