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

/// The providers a command or the server can be told to use, by name.
public enum ProviderChoice {
    public static let suggestionNames = ["offline", "chat"]
    public static let imageNames = ["drawn", "openai", "none"]

    /// `offline` (WordNet and FreeDict) or `chat` (an OpenAI-compatible chat-completions service
    /// configured by `CARDBOX_AI_BASE_URL`, `CARDBOX_AI_CHAT_MODEL` and `CARDBOX_AI_API_KEY`).
    public static func suggestions(
        _ name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> any SuggestionProvider {
        switch name {
        case "offline": return DictionarySuggestionProvider()
        case "chat":
            return ChatCompletionsSuggestionProvider(
                service: try .fromEnvironment(
                    environment, modelVariable: "CARDBOX_AI_CHAT_MODEL", fallbackModel: "gpt-4o-mini"))
        default:
            throw CardboxError.invalid(
                field: "suggestions", reason: "'\(name)' is not one of \(suggestionNames.joined(separator: ", "))")
        }
    }

    /// `drawn` (pictures drawn here with libvips), `openai` (an OpenAI-compatible image service,
    /// `CARDBOX_AI_IMAGE_MODEL`), or `none` (suggestions wait for an image attached by hand).
    public static func images(
        _ name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> (any ImageProvider)? {
        switch name {
        case "drawn": return RenderedImageProvider()
        case "openai":
            return OpenAIImageProvider(
                service: try .fromEnvironment(
                    environment, modelVariable: "CARDBOX_AI_IMAGE_MODEL", fallbackModel: "gpt-image-1"))
        case "none": return nil
        default:
            throw CardboxError.invalid(
                field: "images", reason: "'\(name)' is not one of \(imageNames.joined(separator: ", "))")
        }
    }
}
