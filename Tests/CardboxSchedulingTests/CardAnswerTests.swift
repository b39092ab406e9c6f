import CardboxCore
import Foundation
import Testing

@testable import CardboxScheduling

@Suite("Answering a card")
struct CardAnswerTests {
    let start = Date(timeIntervalSince1970: 1_750_000_000)

    func newCard() -> Card {
        Card(
            id: CardID("0195f6a2-7c1e-7b3a-9e4f-1a2b3c4d5e6f")!, deckId: DeckID(UUID()), front: "hola",
            back: "hello", frontLanguage: "es", backLanguage: "en", createdAt: start, modifiedAt: start)
    }

    @Test("an answer moves the whole scheduling state together and counts reps, lapses and elapsed days")
    func answer() throws {
        let scheduler = try Scheduler(StudySettings())
        let first = newCard().answered(.good, at: start, by: scheduler, fuzz: false)
        #expect(first.before.state == .new && first.after.state == .learning && first.after.reps == 1)
        #expect(first.elapsedDays == 0 && first.after.lastReviewAt == start)
        var card = first.after
        for _ in 0..<3 { card = card.answered(.easy, at: card.dueAt!, by: scheduler, fuzz: false).after }
        #expect(card.state == .review && card.lapses == 0)
        let late = card.dueAt!.addingTimeInterval(3 * 86_400 + 3_600)
        let forgotten = card.answered(.again, at: late, by: scheduler, fuzz: false)
        #expect(forgotten.after.state == .relearning && forgotten.after.lapses == 1)
        #expect(forgotten.elapsedDays == Scheduler.wholeDays(from: card.lastReviewAt!, to: late))
        // Forgetting a card still being learned is not a lapse.
        #expect(first.after.answered(.again, at: start, by: scheduler, fuzz: false).after.lapses == 0)
    }

    @Test("with fuzz, the interval depends only on the card and its review count: previews are answers")
    func fuzzIsDrawnFromTheCard() throws {
        let scheduler = try Scheduler(StudySettings())
        var card = newCard()
        for _ in 0..<4 { card = card.answered(.easy, at: card.dueAt ?? start, by: scheduler, fuzz: true).after }
        let at = card.dueAt!
        let once = card.answered(.good, at: at, by: scheduler, fuzz: true).after.dueAt
        let again = card.answered(.good, at: at, by: scheduler, fuzz: true).after.dueAt
        #expect(once == again)
        var other = card
        other.id = CardID(UUID())
        let spread = (0..<20).map { _ -> Date? in
            other.id = CardID(UUID())
            return other.answered(.good, at: at, by: scheduler, fuzz: true).after.dueAt
        }
        #expect(Set(spread).count > 1, "other cards get other fuzz")
    }
}
