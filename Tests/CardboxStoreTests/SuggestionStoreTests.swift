import CardboxCore
import Foundation
import Testing

@testable import CardboxStore

@Suite("Seed 000's suggestion flows")
struct SuggestionStoreTests {
    func deck(_ clock: TestClock = TestClock()) throws -> CardboxStore {
        let store = try TestStore.make(clock: clock)
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en", queuedSuggestions: 3)
        return store
    }

    @Test("a suggestion is invisible until its image is attached, then visible")
    func visibility() throws {
        let store = try deck()
        let waiting = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "gato", back: "cat", category: .opposites))
        #expect(!waiting.isVisible)
        #expect(try store.suggestions(in: try store.resolve("D")).isEmpty)
        #expect(try store.suggestions(in: try store.resolve("D"), includeAll: true).count == 1)
        #expect(throws: CardboxError.suggestionNotReady(id: waiting.id.storage)) {
            try store.acceptSuggestion(waiting.id)
        }
        let ready = try store.markSuggestionReady(waiting.id, image: TestStore.png)
        #expect(ready.isVisible && ready.imageHash != nil)
        #expect(try store.suggestions(in: try store.resolve("D")).map(\.front) == ["gato"])
        let withImage = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "perro", back: "dog"), image: TestStore.jpeg)
        #expect(withImage.isVisible)
        #expect(try store.deckCounts(try store.resolve("D")).visibleSuggestions == 2)
    }

    @Test("a replaced suggestion image is not kept")
    func replacedImage() throws {
        let store = try deck()
        let suggestion = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "a", back: "b"), image: TestStore.png)
        _ = try store.markSuggestionReady(suggestion.id, image: TestStore.jpeg)
        #expect(try store.rowCount("image") == 1)
        #expect(try store.suggestion(suggestion.id).imageHash != suggestion.imageHash)
    }

    @Test("accepting makes a card with the suggestion's content and removes the suggestion")
    func accept() throws {
        let store = try deck()
        let suggestion = try store.addSuggestion(
            to: try store.resolve("D"),
            SuggestionDraft(front: "gato", back: "cat", cardType: "vocabulary", imagePrompt: "a cat"),
            image: TestStore.png)
        let card = try store.acceptSuggestion(try store.resolve(String(suggestion.id.storage.prefix(8))))
        #expect(card.front == "gato" && card.back == "cat" && card.cardType == "vocabulary")
        #expect(card.imageHash == suggestion.imageHash && card.imagePrompt == "a cat")
        #expect(card.frontLanguage == "es" && !card.isArchived)
        #expect(try store.suggestions(in: try store.resolve("D"), includeAll: true).isEmpty)
        #expect(try store.rowCount("image") == 1)
    }

    @Test("accepting counts against the plan's card limit")
    func acceptLimit() throws {
        let store = try deck()
        _ = try store.setPlan(.free, freeCardLimit: 0)
        let suggestion = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "a", back: "b"), image: TestStore.png)
        #expect(throws: CardboxError.cardLimitExceeded(currentCount: 0, limit: 0, remainingCards: 0)) {
            try store.acceptSuggestion(suggestion.id)
        }
        #expect(try store.suggestions(in: try store.resolve("D")).count == 1)
    }

    @Test("rejecting records front, card type and date, and removes the suggestion")
    func reject() throws {
        let clock = TestClock()
        let store = try deck(clock)
        let suggestion = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "Gato", back: "cat"), image: TestStore.png)
        let rejected = try store.rejectSuggestion(suggestion.id)
        #expect(rejected.front == "Gato" && rejected.cardType == "basic" && rejected.deletedAt == clock.now)
        #expect(try store.suggestions(in: try store.resolve("D"), includeAll: true).isEmpty)
        #expect(try store.rejectedSuggestions(in: try store.resolve("D")) == [rejected])
    }

    @Test("a suggestion holds complete card content: front, back and type (seed 000)")
    func completeContent() throws {
        let store = try deck()
        for back in ["", "  \n "] {
            #expect(throws: CardboxError.invalid(field: "back", reason: "cannot be empty in a suggestion")) {
                try store.addSuggestion(to: try store.resolve("D"), SuggestionDraft(front: "gato", back: back))
            }
        }
        #expect(try store.suggestions(in: try store.resolve("D"), includeAll: true).isEmpty)
        // A card may still be saved without its back (incomplete).
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "perro", back: ""))
    }

    @Test("a suggestion matching a rejected one or an existing card is refused")
    func duplicates() throws {
        let store = try deck()
        let suggestion = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "gato", back: "cat"), image: TestStore.png)
        _ = try store.rejectSuggestion(suggestion.id)
        #expect(throws: CardboxError.duplicateSuggestion(front: "Gato", cardType: "basic", reason: .rejectedBefore)) {
            try store.addSuggestion(to: try store.resolve("D"), SuggestionDraft(front: "Gato ", back: "cat"))
        }
        // Same front with another card type is another suggestion.
        _ = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "gato", back: "cat", cardType: "phrase"))
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "perro", back: "dog"))
        #expect(throws: CardboxError.duplicateSuggestion(front: "PERRO", cardType: "basic", reason: .existingCard)) {
            try store.addSuggestion(to: try store.resolve("D"), SuggestionDraft(front: "PERRO", back: "dog"))
        }
        #expect(throws: CardboxError.alreadyExists(kind: "suggestion", name: "gato")) {
            try store.addSuggestion(
                to: try store.resolve("D"), SuggestionDraft(front: "gato", back: "cat", cardType: "phrase"))
        }
    }

    @Test("skipping records a rejected suggestion but keeps the suggestion, hidden; reset shows it again")
    func skipAndReset() throws {
        let store = try deck()
        let suggestion = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "gato", back: "cat"), image: TestStore.png)
        let rejected = try store.skipSuggestion(suggestion.id)
        #expect(rejected.front == "gato")
        #expect(try store.suggestions(in: try store.resolve("D")).isEmpty)
        let all = try store.suggestions(in: try store.resolve("D"), includeAll: true)
        #expect(all.count == 1 && all[0].isHidden)
        #expect(throws: CardboxError.self) { try store.acceptSuggestion(suggestion.id) }
        #expect(try store.deckCounts(try store.resolve("D")).rejectedSuggestions == 1)
        #expect(try store.resetRejectedSuggestions(try store.resolve("D")) == 1)
        #expect(try store.suggestions(in: try store.resolve("D")).map(\.id) == [suggestion.id])
    }

    @Test("rejected suggestions older than an age are cleaned up, by hand and automatically")
    func cleanup() throws {
        let clock = TestClock()
        let store = try deck(clock)
        for front in ["old", "new"] {
            let suggestion = try store.addSuggestion(
                to: try store.resolve("D"), SuggestionDraft(front: front, back: "-"), image: TestStore.png)
            _ = try store.rejectSuggestion(suggestion.id)
            clock.advance(days: 40)
        }
        #expect(try store.resetRejectedSuggestions(try store.resolve("D"), olderThanDays: 60) == 1)
        #expect(try store.rejectedSuggestions(in: try store.resolve("D")).map(\.front) == ["new"])
        _ = try store.setSetting("rejectedSuggestionRetentionDays", to: "30")
        // "new" is now 40 days old: adding to the queue cleans it up, so it may be suggested again.
        _ = try store.addSuggestion(to: try store.resolve("D"), SuggestionDraft(front: "new", back: "-"))
        #expect(try store.rejectedSuggestions(in: try store.resolve("D")).isEmpty)
    }

    @Test("clear suggestions deletes every suggestion, visible or not")
    func clear() throws {
        let store = try deck()
        _ = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "a", back: "-"), image: TestStore.png)
        _ = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "b", back: "-"), image: TestStore.png)
        _ = try store.addSuggestion(to: try store.resolve("D"), SuggestionDraft(front: "c", back: "-"))
        #expect(try store.clearSuggestions(try store.resolve("D")) == 3)
        #expect(try store.suggestions(in: try store.resolve("D"), includeAll: true).isEmpty)
        #expect(try store.rowCount("image") == 0)
    }
}
