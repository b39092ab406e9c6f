import CardboxCore
import CardboxStore
import Foundation

/// What one maintenance step did for a deck.
public struct RefillReport: Sendable, Codable, Equatable {
    public var deckId: DeckID
    public var deckName: String
    /// The deck's `queuedSuggestions`: how many suggestions it keeps queued.
    public var target: Int
    /// Suggestions queued (visible and invisible) before the step.
    public var queuedBefore: Int
    public var added: [Suggestion]
    public var provider: String
    /// Why fewer were added than the queue lacks, when that happened.
    public var note: String?

    public var queuedAfter: Int { queuedBefore + added.count }
}

/// Seed 000's "Suggestion Maintenance": count the deck's suggestions (visible + invisible); when
/// fewer than `queuedSuggestions`, generate more, avoiding every front the deck has as a card, a
/// queued or a rejected suggestion, and balancing the four categories.
public enum SuggestionMaintenance {
    public static func refill(
        _ deckReference: DeckID, in store: CardboxStore, provider: any SuggestionProvider
    ) async throws -> RefillReport {
        try await refill(deckReference, in: StoreWorkspace(store), provider: provider)
    }

    public static func refill(
        _ deckReference: DeckID, in workspace: any SuggestionWorkspace, provider: any SuggestionProvider
    ) async throws -> RefillReport {
        let state = try await workspace.suggestionQueueState(in: deckReference)
        var report = RefillReport(
            deckId: state.deck.id, deckName: state.deck.name, target: state.deck.queuedSuggestions,
            queuedBefore: state.queuedCount, added: [], provider: provider.name)
        let needed = state.deck.queuedSuggestions - state.queuedCount
        guard state.deck.generatesSuggestionsAutomatically else {
            report.note = "automatic suggestions are off for this deck (its queued suggestions are 0)"
            return report
        }
        guard needed > 0 else { return report }
        guard !state.cards.isEmpty else {
            report.note = "the deck has no cards yet for suggestions to relate to"
            return report
        }
        let request = SuggestionRequest(
            deckName: state.deck.name, frontLanguage: state.deck.frontLanguage, backLanguage: state.deck.backLanguage,
            cards: state.cards.map { .init(front: $0.front, back: $0.back) }, limitPerCategory: needed,
            excludedFronts: state.takenFronts)
        let candidates = try await provider.candidates(for: request).filter {
            !state.takenFronts.contains(SuggestionMatch.frontKey($0.front))
        }
        let chosen = balanced(candidates, queued: state.queued, needed: needed)
        report.added = try await workspace.addGeneratedSuggestions(to: state.deck.id, chosen)
        if report.added.count < needed {
            report.note =
                "\(provider.name) found \(Wording.counted(report.added.count, "new suggestion")) "
                + "of the \(needed) the queue lacks"
        }
        return report
    }

    /// Takes `needed` candidates, each time from the category with the fewest queued and chosen
    /// so far (in seed 000's order on a tie) that still has one: within it, the first (in its
    /// ranking) of those drawn from the deck's card chosen least so far, so the queue is spread over
    /// the deck's cards.
    public static func balanced(
        _ candidates: [SuggestionDraft], queued: [SuggestionCategory: Int], needed: Int
    ) -> [SuggestionDraft] {
        var pending = Dictionary(grouping: candidates, by: \.category)
        var counts = queued
        var seedUses: [String: Int] = [:]
        var chosen: [SuggestionDraft] = []
        var fronts = Set<String>()
        while chosen.count < needed {
            let open = SuggestionCategory.allCases.filter { !(pending[$0]?.isEmpty ?? true) }
            guard let category = open.min(by: { counts[$0, default: 0] < counts[$1, default: 0] }) else { break }
            let uses = { (draft: SuggestionDraft) in seedUses[draft.seed ?? "", default: 0] }
            let index = pending[category]!.indices.min { uses(pending[category]![$0]) < uses(pending[category]![$1]) }!
            let draft = pending[category]!.remove(at: index)
            guard fronts.insert(SuggestionMatch.frontKey(draft.front)).inserted else { continue }
            chosen.append(draft)
            counts[category, default: 0] += 1
            if let seed = draft.seed { seedUses[seed, default: 0] += 1 }
        }
        return chosen
    }
}
