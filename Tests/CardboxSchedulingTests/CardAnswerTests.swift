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

    @Test(
        "stored values out of range are clamped into the engine's: counts stay at their ceiling, and an answer is due within the longest interval"
    )
    func storedValuesAreClamped() throws {
        var settings = StudySettings()
        (settings.maximumInterval, settings.desiredRetention) = (Int.max, 1e-300)
        (settings.learningSteps, settings.fsrsParameters) = ("1e308d", [])
        let clamped = settings.clampedForStudy
        #expect(clamped.maximumInterval == 36_500 && clamped.desiredRetention == 0.7)
        #expect(clamped.learningSteps == StudySettings().learningSteps && clamped.fsrsParameters == nil)
        let scheduler = try Scheduler(settings)
        var card = newCard()
        (card.state, card.stability, card.difficulty) = (.review, 1e308, 5)
        (card.reps, card.lapses, card.step, card.lastReviewAt, card.dueAt) = (.max, .max, .max, start, start)
        let forgotten = card.answered(.again, at: start, by: scheduler, fuzz: true).after
        #expect(forgotten.reps == StudyRanges.answerCount.upperBound)
        #expect(forgotten.lapses == StudyRanges.answerCount.upperBound)
        let remembered = card.answered(.easy, at: start.addingTimeInterval(86_400), by: scheduler, fuzz: true).after
        #expect(remembered.stability == StudyRanges.stability.upperBound)
        #expect(remembered.dueAt! <= start.addingTimeInterval(86_400 * 36_501))
        #expect(throws: SchedulingError.self) { try Scheduler(maximumInterval: 36_501) }
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
