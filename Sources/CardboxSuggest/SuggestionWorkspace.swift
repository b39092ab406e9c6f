import CardboxCore
import CardboxStore
import Foundation

/// The store operations the maintenance step and the image pipeline use, so they can run on a
/// device's own store (the command line) or on the server's copy of an account, where each write
/// is also pushed to the account's devices. Providers are called between these steps, never inside
/// a transaction.
public protocol SuggestionWorkspace: Sendable {
    /// Decks whose `queuedSuggestions` is at least 1.
    func decksWithAutomaticSuggestions() async throws -> [DeckID]
    func suggestionQueueState(in deck: DeckID) async throws -> SuggestionQueueState
    func addGeneratedSuggestions(to deck: DeckID, _ drafts: [SuggestionDraft]) async throws -> [Suggestion]
    func dueImageJobs(limit: Int) async throws -> [ImageJob]
    func completeImageJob(_ suggestion: SuggestionID, image: Data) async throws -> Suggestion?
    func failImageJob(_ suggestion: SuggestionID, reason: String) async throws -> ImageFailureOutcome
}

/// A device's own store as a workspace.
public struct StoreWorkspace: SuggestionWorkspace {
    public let store: CardboxStore

    public init(_ store: CardboxStore) { self.store = store }

    public func decksWithAutomaticSuggestions() async throws -> [DeckID] { try Self.automaticDecks(store) }

    /// The store's decks with automatic suggestions on.
    public static func automaticDecks(_ store: CardboxStore) throws -> [DeckID] {
        try store.decks().filter(\.generatesSuggestionsAutomatically).map(\.id)
    }

    public func suggestionQueueState(in deck: DeckID) async throws -> SuggestionQueueState {
        try store.suggestionQueueState(in: deck)
    }

    public func addGeneratedSuggestions(to deck: DeckID, _ drafts: [SuggestionDraft]) async throws -> [Suggestion] {
        try store.addGeneratedSuggestions(to: deck, drafts)
    }

    public func dueImageJobs(limit: Int) async throws -> [ImageJob] { try store.dueImageJobs(limit: limit) }

    public func completeImageJob(_ suggestion: SuggestionID, image: Data) async throws -> Suggestion? {
        try store.completeImageJob(suggestion, image: image)
    }

    public func failImageJob(_ suggestion: SuggestionID, reason: String) async throws -> ImageFailureOutcome {
        try store.failImageJob(suggestion, reason: reason)
    }
}
