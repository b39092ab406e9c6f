import Foundation

/// Seed 000's suggestion categories.
public enum SuggestionCategory: String, Codable, Sendable, CaseIterable {
    case relatedVocabulary = "related_vocabulary"
    case usageExamples = "usage_examples"
    case opposites
    case progressiveComplexity = "progressive_complexity"

    public static func validate(_ raw: String) throws -> SuggestionCategory {
        guard let category = SuggestionCategory(rawValue: raw.trimmedWhitespace.lowercased()) else {
            let known = allCases.map(\.rawValue).joined(separator: ", ")
            throw CardboxError.invalid(field: "category", reason: "'\(raw)' is not one of \(known)")
        }
        return category
    }
}

/// A suggested card waiting in a deck's queue (seed 000's `SuggestionCard`).
/// Invisible until its image is attached (seed 000); hidden while a rejected-suggestion
/// record matches it (that is what "skip" leaves behind).
public struct Suggestion: Codable, Sendable, Equatable, Identifiable {
    public var id: SuggestionID
    public var deckId: DeckID
    public var front: String
    public var back: String
    public var cardType: String
    public var imagePrompt: String?
    /// Why it was suggested.
    public var context: String
    public var category: SuggestionCategory
    public var isVisible: Bool
    /// Skipped: kept in the queue but not shown while its rejected-suggestion record exists.
    public var isHidden: Bool
    public var imageHash: String?
    public var createdAt: Date

    public init(
        id: SuggestionID, deckId: DeckID, front: String, back: String, cardType: String, imagePrompt: String?,
        context: String,
        category: SuggestionCategory, isVisible: Bool, isHidden: Bool, imageHash: String?, createdAt: Date
    ) {
        self.id = id
        self.deckId = deckId
        self.front = front
        self.back = back
        self.cardType = cardType
        self.imagePrompt = imagePrompt
        self.context = context
        self.category = category
        self.isVisible = isVisible
        self.isHidden = isHidden
        self.imageHash = imageHash
        self.createdAt = createdAt
    }

    /// Every field, empty ones as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(deckId, forKey: .deckId)
        try container.encode(front, forKey: .front)
        try container.encode(back, forKey: .back)
        try container.encode(cardType, forKey: .cardType)
        try container.encode(imagePrompt, forKey: .imagePrompt)
        try container.encode(context, forKey: .context)
        try container.encode(category, forKey: .category)
        try container.encode(isVisible, forKey: .isVisible)
        try container.encode(isHidden, forKey: .isHidden)
        try container.encode(imageHash, forKey: .imageHash)
        try container.encode(createdAt, forKey: .createdAt)
    }
}

/// What a person or a generator feeds into a deck's suggestion queue.
public struct SuggestionDraft: Sendable, Equatable {
    public var front: String
    public var back: String
    public var cardType: String
    public var imagePrompt: String?
    public var context: String
    public var category: SuggestionCategory
    /// The front of the deck's card a generator drew it from, so a queue can be spread over the
    /// deck's cards; not stored.
    public var seed: String?

    public init(
        front: String, back: String, cardType: String = Card.defaultType, imagePrompt: String? = nil,
        context: String = "", category: SuggestionCategory = .relatedVocabulary
    ) {
        self.front = front
        self.back = back
        self.cardType = cardType
        self.imagePrompt = imagePrompt
        self.context = context
        self.category = category
    }

    public func validated() throws -> SuggestionDraft {
        var draft = self
        draft.front = try CardText.front(front)
        draft.back = try CardText.back(back)
        // Seed 000: a suggestion holds complete card content (front, back, type). A card may be
        // saved without its back (incomplete); a suggestion may not.
        guard !draft.back.trimmedWhitespace.isEmpty else {
            throw CardboxError.invalid(field: "back", reason: "cannot be empty in a suggestion")
        }
        draft.cardType = try CardType.validate(cardType)
        draft.context = try Validate.longText(context, field: "context", maximum: Limits.itemDescriptionMaximum)
        return draft
    }
}

/// A rejected (or skipped) suggestion, kept so the same content is not suggested again (seed 000's
/// `DeletedSuggestion`): only the front text and card type, for matching, and the date.
public struct RejectedSuggestion: Codable, Sendable, Equatable, Identifiable {
    public var id: RejectedSuggestionID
    public var deckId: DeckID
    public var front: String
    public var cardType: String
    public var deletedAt: Date

    public init(id: RejectedSuggestionID, deckId: DeckID, front: String, cardType: String, deletedAt: Date) {
        self.id = id
        self.deckId = deckId
        self.front = front
        self.cardType = cardType
        self.deletedAt = deletedAt
    }
}
