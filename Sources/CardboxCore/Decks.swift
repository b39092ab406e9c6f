import Foundation

/// A deck of flashcards with its language pair (seed 000's `Deck`, seed 001's language pair).
public struct Deck: Codable, Sendable, Equatable, Identifiable {
    public var id: DeckID
    public var name: String
    /// The language being learned (front of the cards), ISO 639-1.
    public var frontLanguage: String
    /// The user's own language (back of the cards), ISO 639-1.
    public var backLanguage: String
    /// How many suggestions the background service keeps queued; 0 turns automatic suggestions off.
    public var queuedSuggestions: Int
    public var createdAt: Date
    public var modifiedAt: Date
    /// How the deck is studied: FSRS settings and daily limits.
    public var study = StudySettings()

    public init(
        id: DeckID, name: String, frontLanguage: String, backLanguage: String, queuedSuggestions: Int = 0,
        createdAt: Date, modifiedAt: Date
    ) {
        self.id = id
        self.name = name
        self.frontLanguage = frontLanguage
        self.backLanguage = backLanguage
        self.queuedSuggestions = queuedSuggestions
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// Seed 000: `queuedSuggestions >= 1` turns automatic suggestions on.
    public var generatesSuggestionsAutomatically: Bool { queuedSuggestions >= 1 }

    public static func validateName(_ name: String) throws -> String {
        try Validate.text(name, field: "name", length: Limits.deckName)
    }

    public static func validateQueuedSuggestions(_ value: Int) throws -> Int {
        guard (0...Int(Int32.max)).contains(value) else {
            throw CardboxError.invalid(field: "queuedSuggestions", reason: "must be 0 or more, got \(value)")
        }
        return value
    }
}

/// Where a card is in spaced repetition: never reviewed, learning, reviewed at day-scale intervals,
/// or relearning after a lapse.
public enum CardState: String, Codable, Sendable, CaseIterable {
    case new, learning, review, relearning
}

/// A deck's study settings: FSRS-6 (desired retention, steps, maximum interval, parameters, fuzz)
/// and Anki's daily limits.
public struct StudySettings: Codable, Sendable, Equatable {
    public var desiredRetention = StudyDefaults.desiredRetention
    public var learningSteps = StudyDefaults.learningSteps
    public var relearningSteps = StudyDefaults.relearningSteps
    public var maximumInterval = StudyDefaults.maximumInterval
    public var newCardsPerDay = StudyDefaults.newCardsPerDay
    public var reviewsPerDay = StudyDefaults.reviewsPerDay
    /// The 21 FSRS-6 parameters fitted to this deck's reviews; nil means FSRS-6's defaults.
    public var fsrsParameters: [Double]?
    public var enableFuzz = StudyDefaults.enableFuzz

    public init() {}
}

/// How many cards a deck holds in each of seed 000's five lists.
public struct DeckCounts: Codable, Sendable, Equatable {
    public var currentCards: Int
    public var archivedCards: Int
    public var dueCards: Int
    public var visibleSuggestions: Int
    /// Suggestions waiting for their picture (skipped ones count as rejected: their record hides them).
    public var invisibleSuggestions: Int
    public var rejectedSuggestions: Int

    public init(
        currentCards: Int = 0, archivedCards: Int = 0, dueCards: Int = 0, visibleSuggestions: Int = 0,
        invisibleSuggestions: Int = 0, rejectedSuggestions: Int = 0
    ) {
        self.currentCards = currentCards
        self.archivedCards = archivedCards
        self.dueCards = dueCards
        self.visibleSuggestions = visibleSuggestions
        self.invisibleSuggestions = invisibleSuggestions
        self.rejectedSuggestions = rejectedSuggestions
    }
}

/// A flashcard (seed 000's `Card` merged with seed 001's `CardItem`).
public struct Card: Codable, Sendable, Equatable, Identifiable {
    public var id: CardID
    public var deckId: DeckID
    public var front: String
    public var back: String
    public var cardType: String
    public var notes: String
    public var frontLanguage: String
    public var backLanguage: String
    public var isFavorite: Bool
    public var tags: [String]
    /// SHA-256 of the card's image in the image store, when it has one (`customImageData`).
    public var imageHash: String?
    public var imagePrompt: String?
    public var jsonContent: String?
    public var isArchived: Bool
    public var archivedAt: Date?
    public var isIncomplete: Bool
    /// When the card is next due for review; nil for a new card (never reviewed).
    public var dueAt: Date?
    public var createdAt: Date
    public var modifiedAt: Date
    /// Spaced repetition: where the card is, its FSRS memory, and how often it was reviewed and forgotten.
    public var state: CardState = .new
    public var step: Int?
    public var stability: Double?
    public var difficulty: Double?
    public var lastReviewAt: Date?
    public var reps: Int = 0
    public var lapses: Int = 0
    /// The deletion number a cloze card studies (`c1` → 1); nil for every other card (see `Cloze`).
    public var clozeNumber: Int?

    public init(
        id: CardID, deckId: DeckID, front: String, back: String, cardType: String = Card.defaultType,
        notes: String = "",
        frontLanguage: String, backLanguage: String, isFavorite: Bool = false, tags: [String] = [],
        imageHash: String? = nil, imagePrompt: String? = nil, jsonContent: String? = nil, isArchived: Bool = false,
        archivedAt: Date? = nil, isIncomplete: Bool = false, dueAt: Date? = nil, createdAt: Date, modifiedAt: Date,
        clozeNumber: Int? = nil
    ) {
        self.clozeNumber = clozeNumber
        self.id = id
        self.deckId = deckId
        self.front = front
        self.back = back
        self.cardType = cardType
        self.notes = notes
        self.frontLanguage = frontLanguage
        self.backLanguage = backLanguage
        self.isFavorite = isFavorite
        self.tags = tags
        self.imageHash = imageHash
        self.imagePrompt = imagePrompt
        self.jsonContent = jsonContent
        self.isArchived = isArchived
        self.archivedAt = archivedAt
        self.isIncomplete = isIncomplete
        self.dueAt = dueAt
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    public static let defaultType = CardText.defaultType
    /// The types Cardbox knows (`CardType.validate`).
    public static let types = CardText.types

    /// Every field, empty ones as `null`, so readers see the whole data model.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(deckId, forKey: .deckId)
        try container.encode(front, forKey: .front)
        try container.encode(back, forKey: .back)
        try container.encode(cardType, forKey: .cardType)
        try container.encode(notes, forKey: .notes)
        try container.encode(frontLanguage, forKey: .frontLanguage)
        try container.encode(backLanguage, forKey: .backLanguage)
        try container.encode(isFavorite, forKey: .isFavorite)
        try container.encode(tags, forKey: .tags)
        try container.encode(imageHash, forKey: .imageHash)
        try container.encode(imagePrompt, forKey: .imagePrompt)
        try container.encode(jsonContent, forKey: .jsonContent)
        try container.encode(isArchived, forKey: .isArchived)
        try container.encode(archivedAt, forKey: .archivedAt)
        try container.encode(isIncomplete, forKey: .isIncomplete)
        try container.encode(dueAt, forKey: .dueAt)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(modifiedAt, forKey: .modifiedAt)
        try container.encode(state, forKey: .state)
        try container.encode(step, forKey: .step)
        try container.encode(stability, forKey: .stability)
        try container.encode(difficulty, forKey: .difficulty)
        try container.encode(lastReviewAt, forKey: .lastReviewAt)
        try container.encode(reps, forKey: .reps)
        try container.encode(lapses, forKey: .lapses)
        try container.encode(clozeNumber, forKey: .clozeNumber)
    }

    /// A new card has never been reviewed; a reviewed card is due once its due time has come (seed 000).
    public func isDue(at now: Date) -> Bool {
        guard !isArchived, let dueAt else { return false }
        return dueAt <= now
    }
}

/// What a person types to make a card; validated into a `Card` by `CardDraft.validated()`.
public struct CardDraft: Sendable, Equatable {
    public var front: String
    public var back: String
    public var cardType: String
    public var notes: String
    public var tags: [String]
    public var imagePrompt: String?
    public var jsonContent: String?
    public var isIncomplete: Bool
    /// The deletion number of a cloze card (`CardDraft.cloze` makes them); nil otherwise.
    public var clozeNumber: Int?

    public init(
        front: String, back: String, cardType: String = Card.defaultType, notes: String = "", tags: [String] = [],
        imagePrompt: String? = nil, jsonContent: String? = nil, isIncomplete: Bool = false, clozeNumber: Int? = nil
    ) {
        self.clozeNumber = clozeNumber
        self.front = front
        self.back = back
        self.cardType = cardType
        self.notes = notes
        self.tags = tags
        self.imagePrompt = imagePrompt
        self.jsonContent = jsonContent
        self.isIncomplete = isIncomplete
    }

    /// Checks every field; returns the draft with trimmed text and normalized tags.
    public func validated() throws -> CardDraft {
        var draft = self
        draft.front = try CardText.front(front)
        draft.back = try CardText.back(back)
        draft.cardType = try CardType.validate(cardType)
        draft.notes = try CardText.notes(notes)
        draft.tags = try TagName.validateList(tags)
        try Cloze.check(front: draft.front, cardType: draft.cardType, clozeNumber: clozeNumber)
        try CardText.checkExtras(imagePrompt: imagePrompt, jsonContent: jsonContent)
        return draft
    }
}

extension CardText {
    /// A card's image prompt and structured content (a JSON document): at most 50,000 characters
    /// each, as the longest texts, so every value a card holds can travel to the server.
    public static func checkExtras(imagePrompt: String?, jsonContent: String?) throws {
        if let imagePrompt {
            _ = try Validate.longText(imagePrompt, field: "imagePrompt", maximum: Limits.cardBackMaximum)
        }
        if let jsonContent, !jsonContent.isEmpty {
            _ = try Validate.longText(jsonContent, field: "jsonContent", maximum: Limits.cardBackMaximum)
            _ = try JSONValue.parse(jsonContent, field: "jsonContent")
        }
    }
}

public enum CardType {
    /// A new card's type: one Cardbox knows (`CardText.types`), in any case.
    public static func validate(_ type: String) throws -> String { try CardText.cardType(type) }
}

/// Filters of seed 001's `filteredItems`: language first, then tag, then favorites; all combinable.
public struct CardFilter: Sendable, Equatable {
    public var archived: Bool
    public var favoritesOnly: Bool
    public var tag: String?
    /// Matches cards whose front or back language is this ISO 639-1 code.
    public var language: String?
    /// Matches cards whose front, back or notes contain this text (letters of any case).
    public var search: String?

    public init(
        archived: Bool = false, favoritesOnly: Bool = false, tag: String? = nil, language: String? = nil,
        search: String? = nil
    ) {
        self.archived = archived
        self.favoritesOnly = favoritesOnly
        self.tag = tag
        self.language = language
        self.search = search.flatMap { $0.trimmedWhitespace.isEmpty ? nil : $0.trimmedWhitespace }
    }

    public func matches(_ card: Card) -> Bool {
        if card.isArchived != archived { return false }
        if let language, card.frontLanguage != language && card.backLanguage != language { return false }
        if let tag, !card.tags.contains(where: { TagName.normalize($0) == TagName.normalize(tag) }) { return false }
        if favoritesOnly && !card.isFavorite { return false }
        if let search, !CardSearch.matches(front: card.front, back: card.back, notes: card.notes, search: search) {
            return false
        }
        return true
    }
}

/// Tag names: found or created by name, case-insensitively and trimmed (seed 001's `findOrCreateTag`).
public enum TagName {
    /// The key two names share when they name the same tag: trimmed, inner white space folded, lowercased.
    public static func normalize(_ name: String) -> String { TagNames.key(name) }

    public static func validate(_ name: String) throws -> String { try TagNames.validate(name) }

    /// Validates a card's tags, keeping the first spelling of each distinct tag.
    public static func validateList(_ names: [String]) throws -> [String] { try TagNames.validateList(names) }
}
