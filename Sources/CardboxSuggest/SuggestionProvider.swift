import CardboxCore
import Foundation

/// What a provider is asked: the deck's languages and cards, and how many candidates to propose
/// per category at most.
public struct SuggestionRequest: Sendable, Equatable {
    public struct SeedCard: Sendable, Equatable {
        public var front: String
        public var back: String

        public init(front: String, back: String) {
            self.front = front
            self.back = back
        }
    }

    public var deckName: String
    /// ISO 639-1 codes.
    public var frontLanguage: String
    public var backLanguage: String
    /// The deck's current cards, newest first: what the suggestions relate to.
    public var cards: [SeedCard]
    public var limitPerCategory: Int
    /// Front keys (`SuggestionMatch.frontKey`) a suggestion must not have: the deck's cards, its
    /// queued suggestions and its rejected ones.
    public var excludedFronts: Set<String>

    public init(
        deckName: String, frontLanguage: String, backLanguage: String, cards: [SeedCard], limitPerCategory: Int,
        excludedFronts: Set<String>
    ) {
        self.deckName = deckName
        self.frontLanguage = frontLanguage
        self.backLanguage = backLanguage
        self.cards = cards
        self.limitPerCategory = limitPerCategory
        self.excludedFronts = excludedFronts
    }
}

/// A source of suggested cards (seed 000's "AI service"): the offline dictionaries, or a
/// chat-completions service. Candidates come ranked, best first within each category; the
/// maintenance step chooses among them and checks them against the deck again.
public protocol SuggestionProvider: Sendable {
    /// Names the provider in reports ("offline dictionaries", "chat completions (model)").
    var name: String { get }
    func candidates(for request: SuggestionRequest) async throws -> [SuggestionDraft]
}
