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

@Suite("The passing ratings' intervals, in Anki's order")
struct PassingIntervalOrderTests {
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    func days(_ state: MemoryState) -> Int { Int((state.due.timeIntervalSince(now) / 86_400).rounded()) }

    @Test("Good is at least a day past Hard and Easy a day past Good, even where FSRS gives them one interval")
    func ordered() throws {
        let scheduler = try Scheduler(StudySettings())
        var orderedByTheRule = 0
        for hundredths in stride(from: 5, through: 400, by: 5) {
            for difficulty in [1.0, 5.0, 9.5] {
                let stability = Double(hundredths) / 100
                let card = MemoryState(
                    phase: .review, step: nil, stability: stability, difficulty: difficulty, due: now,
                    lastReview: now.addingTimeInterval(-86_400 * max(1, stability.rounded())))
                let (hard, good, easy) = (
                    scheduler.review(card, rating: .hard, at: now), scheduler.review(card, rating: .good, at: now),
                    scheduler.review(card, rating: .easy, at: now)
                )
                #expect(days(hard) < days(good) && days(good) < days(easy), "stability \(stability)")
                // The memory is FSRS's own: only the day offered moves.
                #expect(good.stability! > hard.stability!)
                if scheduler.nextInterval(hard.stability!) == scheduler.nextInterval(good.stability!) {
                    orderedByTheRule += 1
                    #expect(days(good) == days(hard) + 1)
                }
            }
        }
        #expect(orderedByTheRule > 0, "the range must hold cards FSRS alone would give Hard and Good one day")
    }

    @Test("at the longest interval the ratings share it, and fuzz never takes Good below Hard's next day")
    func ceilingAndFuzz() throws {
        var settings = StudySettings()
        settings.maximumInterval = 5
        let scheduler = try Scheduler(settings)
        let card = MemoryState(
            phase: .review, step: nil, stability: 200, difficulty: 5, due: now,
            lastReview: now.addingTimeInterval(-86_400 * 200))
        #expect(Rating.allCases.dropFirst().allSatisfy { days(scheduler.review(card, rating: $0, at: now)) == 5 })

        // Fuzz spreads Good over a band that can reach down to Hard's day; the band is cut there.
        let plain = try Scheduler(StudySettings())
        for tenths in stride(from: 10, through: 200, by: 5) {
            let card = MemoryState(
                phase: .review, step: nil, stability: Double(tenths) / 10, difficulty: 9, due: now,
                lastReview: now.addingTimeInterval(-86_400 * Double(tenths) / 10))
            let hard = days(plain.review(card, rating: .hard, at: now))
            let good = days(plain.review(card, rating: .good, at: now) { $0.lowerBound })
            let easy = days(plain.review(card, rating: .easy, at: now) { $0.lowerBound })
            #expect(hard < good && good < easy, "stability \(Double(tenths) / 10)")
        }
    }
}
