import CardboxCore
import Foundation
import GRDB

extension CardboxStore {
    public func createDeck(
        name: String, frontLanguage: String, backLanguage: String, queuedSuggestions: Int = 0
    ) throws -> Deck {
        let name = try Deck.validateName(name)
        let front = try Language.validate(frontLanguage, field: "front language")
        let back = try Language.validate(backLanguage, field: "back language")
        let queued = try Deck.validateQueuedSuggestions(queuedSuggestions)
        return try write { tx in try tx.insertDeck(name: name, frontLanguage: front, backLanguage: back, queued: queued)
        }
    }

    /// Creates a deck from a preset and adds all its cards, or nothing when the plan's limit would be
    /// passed (seed 001's `addPresetCards`: the whole batch is checked first).
    public func createDeck(preset: PresetDeck, name: String? = nil) throws -> (deck: Deck, cards: [Card]) {
        let name = try Deck.validateName(name ?? preset.name)
        let drafts = try preset.cards.map { try $0.draft.validated() }
        return try write { tx in
            try tx.checkCanAdd(batchOf: drafts.count)
            let deck = try tx.insertDeck(
                name: name, frontLanguage: preset.frontLanguage, backLanguage: preset.backLanguage, queued: 0)
            let cards = try tx.insertCards(drafts.map { ($0, nil) }, into: deck)
            try tx.logEvent(.presetDeckAdded, cardLanguage: deck.frontLanguage, tagCount: nil)
            return (deck, cards)
        }
    }

    public func decks() throws -> [Deck] {
        try read { context in
            try context.db.cachedStatement(sql: "SELECT \(Columns.Deck.record) FROM deck ORDER BY nameKey, id")
                .records([], Deck.init(row:))
        }
    }

    public func deck(_ reference: DeckID) throws -> Deck {
        try read { context in try context.deck(context.existing(reference, .deck)) }
    }

    /// How many cards the deck holds in each of seed 000's five lists (due ones counted apart).
    public func deckCounts(_ reference: DeckID) throws -> DeckCounts {
        try read { context in
            let id = try context.existing(reference, .deck)
            let now = environment.now().storageMillis
            let args: StatementArguments = [id]
            // Cards, suggestions and rejected suggestions all name their deck by its key.
            let scope = "deckKey = (SELECT key FROM deck WHERE id = ?)"
            let hidden = """
                EXISTS (SELECT 1 FROM rejectedSuggestion r WHERE
                  r.deckKey = suggestion.deckKey AND r.frontKey = suggestion.frontKey AND r.cardType = suggestion.cardType)
                """
            return DeckCounts(
                currentCards: try context.count(
                    "SELECT COUNT(*) FROM card WHERE \(scope) AND isArchived = 0", args),
                archivedCards: try context.count(
                    "SELECT COUNT(*) FROM card WHERE \(scope) AND isArchived = 1", args),
                dueCards: try context.count(
                    "SELECT COUNT(*) FROM card WHERE \(scope) AND isArchived = 0 AND dueAt <= ?", args + [now]),
                visibleSuggestions: try context.count(
                    "SELECT COUNT(*) FROM suggestion WHERE \(scope) AND isVisible = 1 AND NOT \(hidden)", args),
                invisibleSuggestions: try context.count(
                    "SELECT COUNT(*) FROM suggestion WHERE \(scope) AND isVisible = 0 AND NOT \(hidden)", args),
                rejectedSuggestions: try context.count("SELECT COUNT(*) FROM rejectedSuggestion WHERE \(scope)", args))
        }
    }

    public func renameDeck(_ reference: DeckID, to newName: String) throws -> Deck {
        try configureDeck(reference, name: newName)
    }

    /// Changes a deck's settings in one transaction, all of them or (when one is refused) none: its
    /// name, the suggestion queue size, the language pair and the study settings.
    public func configureDeck(
        _ reference: DeckID, name: String? = nil, queuedSuggestions: Int? = nil, frontLanguage: String? = nil,
        backLanguage: String? = nil, study: StudySettings? = nil
    ) throws -> Deck {
        let name = try name.map(Deck.validateName)
        if let study { try Self.check(study) }
        var fields: Assignments<Columns.Deck> = []
        if let queuedSuggestions {
            fields.append((.queuedSuggestions, try Deck.validateQueuedSuggestions(queuedSuggestions)))
        }
        if let frontLanguage {
            fields.append((.frontLanguage, try Language.validate(frontLanguage, field: "front language")))
        }
        if let backLanguage {
            fields.append((.backLanguage, try Language.validate(backLanguage, field: "back language")))
        }
        return try write { tx in
            let id = try tx.context.existing(reference, .deck)
            if let name {
                try tx.checkDeckNameFree(name, except: id)
                fields += [(.name, name), (.nameKey, StoreContext.nameKey(name))]
            }
            if !fields.isEmpty { try tx.update(.deck, id: id, fields + [(.modifiedAt, tx.nowMillis)]) }
            if let study { try tx.saveStudySettings(study, deck: id) }
            return try tx.context.deck(id)
        }
    }

    /// Deletes a deck with its cards, suggestions and rejected suggestions (cascade).
    public func deleteDeck(_ reference: DeckID) throws {
        try write { tx in
            let id = try tx.context.existing(reference, .deck)
            let deckScope: StatementArguments = [id]
            let images = try String.fetchAll(
                tx.db.cachedStatement(
                    sql: """
                        SELECT imageHash FROM card WHERE \(Entity.card.binding("deckId")) AND imageHash IS NOT NULL
                        UNION SELECT imageHash FROM suggestion WHERE \(Entity.suggestion.binding("deckId"))
                          AND imageHash IS NOT NULL
                        """), arguments: deckScope + deckScope)
            try tx.delete(.deck, id: id)
            try tx.collectImages(images)
            try tx.logEvent(.deckDeleted)
        }
    }

    /// Seed 000's bulk operation: archives every due card of the deck. Returns how many.
    public func archiveDueCards(_ reference: DeckID) throws -> Int {
        try write { tx in
            let id = try tx.context.existing(reference, .deck)
            let due = try String.fetchAll(
                tx.db.cachedStatement(
                    sql: """
                        SELECT \(Entity.card.idExpression) FROM card
                        WHERE \(Entity.card.binding("deckId")) AND isArchived = 0 AND dueAt <= ?
                        """),
                arguments: [id, tx.nowMillis])
            for cardId in due {
                try tx.update(
                    .card, id: cardId, [(.isArchived, 1), (.archivedAt, tx.nowMillis), (.modifiedAt, tx.nowMillis)])
                try tx.logEvent(.cardArchived)
            }
            return due.count
        }
    }

    /// Seed 000's bulk operation: deletes every suggestion of the deck, visible or not. Returns how many.
    public func clearSuggestions(_ reference: DeckID) throws -> Int {
        try write { tx in
            let id = try tx.context.existing(reference, .deck)
            let rows = try Row.fetchAll(
                tx.db.cachedStatement(
                    sql: "SELECT id, imageHash FROM suggestion WHERE \(Entity.suggestion.binding("deckId"))"),
                arguments: [id])
            for row in rows { try tx.delete(.suggestion, id: row["id"]) }
            try tx.collectImages(rows.compactMap { $0["imageHash"] as String? })
            return rows.count
        }
    }

    /// Seed 000's bulk operation: forgets rejected suggestions, all of them or only those older than
    /// `olderThanDays`, so the same content may be suggested again. Returns how many.
    public func resetRejectedSuggestions(_ reference: DeckID, olderThanDays: Int? = nil) throws -> Int {
        if let olderThanDays { _ = try Validate.nonNegative(olderThanDays, field: "olderThan") }
        return try write { tx in
            let id = try tx.context.existing(reference, .deck)
            return try tx.deleteRejectedSuggestions(deckId: id, olderThanDays: olderThanDays)
        }
    }
}

extension WriteContext {
    func insertDeck(name: String, frontLanguage: String, backLanguage: String, queued: Int) throws -> Deck {
        try checkDeckNameFree(name, except: nil)
        let id = newID()
        try insert(
            .deck, id: id,
            [
                (.name, name), (.nameKey, StoreContext.nameKey(name)), (.frontLanguage, frontLanguage),
                (.backLanguage, backLanguage), (.queuedSuggestions, queued), (.createdAt, nowMillis),
                (.modifiedAt, nowMillis),
            ])
        try logEvent(.deckCreated, cardLanguage: frontLanguage)
        return try context.deck(id)
    }

    func checkDeckNameFree(_ name: String, except id: String?) throws {
        let taken = try String.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM deck WHERE nameKey = ?"),
            arguments: [StoreContext.nameKey(name)])
        if let taken, taken != id { throw CardboxError.alreadyExists(kind: "deck", name: name) }
    }

    func deleteRejectedSuggestions(deckId: String, olderThanDays: Int?) throws -> Int {
        var sql = "SELECT id FROM rejectedSuggestion WHERE \(Entity.rejectedSuggestion.binding("deckId"))"
        var arguments: StatementArguments = [deckId]
        if let olderThanDays {
            sql += " AND deletedAt < ?"
            arguments += [nowMillis - Int64(olderThanDays) * 86_400_000]
        }
        let ids = try String.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
        for id in ids { try delete(.rejectedSuggestion, id: id) }
        return ids.count
    }
}

extension StoreContext {
    func deck(_ id: String) throws -> Deck {
        let statement = try db.cachedStatement(sql: "SELECT \(Columns.Deck.record) FROM deck WHERE id = ?")
        guard let deck = try statement.records([id], Deck.init(row:)).first else {
            throw CardboxError.notFound(kind: "deck", reference: id)
        }
        return deck
    }
}

extension Columns.Deck {
    /// What a whole deck is read from (`Deck.init(row:)`).
    static let record = recordSelect()
}

extension Deck {
    /// A deck from a row of `Columns.Deck.record`.
    init(row source: some PositionalRow) throws {
        let row = RecordRow(source, Columns.Deck.self)
        self.init(
            id: try .init(stored: row.id), name: row[.name], frontLanguage: row[.frontLanguage],
            backLanguage: row[.backLanguage], queuedSuggestions: row[.queuedSuggestions],
            createdAt: Date(storageMillis: row[.createdAt]), modifiedAt: Date(storageMillis: row[.modifiedAt]))
        study.desiredRetention = row[.desiredRetention]
        study.learningSteps = row[.learningSteps]
        study.relearningSteps = row[.relearningSteps]
        study.maximumInterval = row[.maximumInterval]
        study.newCardsPerDay = row[.newCardsPerDay]
        study.reviewsPerDay = row[.reviewsPerDay]
        study.enableFuzz = row[.enableFuzz]
        if let text = row[.fsrsParameters] as String?,
            case .array(let values) = try? JSONValue.parse(text, field: "")
        {
            study.fsrsParameters = values.compactMap {
                switch $0 {
                case .double(let value): value
                case .int(let value): Double(value)
                default: nil
                }
            }
        }
    }
}
