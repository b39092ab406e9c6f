import CardboxCore
import Foundation
import Testing

@testable import CardboxScheduling

@Suite("The workload simulator and the recommended retention")
struct SimulatorTests {
    static func simulator(_ change: (inout SimulationSettings) -> Void = { _ in }) throws -> WorkloadSimulator {
        var settings = SimulationSettings()
        settings.deckSize = 500
        settings.days = 60
        change(&settings)
        return try WorkloadSimulator(parameters: .defaults, settings: settings)
    }

    @Test("a seed gives the same run; another seed another run")
    func seeded() throws {
        let simulator = try Self.simulator()
        let first = try simulator.simulate(desiredRetention: 0.9, seed: 7)
        #expect(try simulator.simulate(desiredRetention: 0.9, seed: 7) == first)
        #expect(try simulator.simulate(desiredRetention: 0.9, seed: 8) != first)
        #expect(first.reviews.count == 60 && first.memorized.count == 60)
    }

    @Test("new cards a day, reviews a day and minutes a day hold every day")
    func limits() throws {
        let result = try Self.simulator {
            $0.newPerDay = 12
            $0.reviewsPerDay = 40
            $0.newCardsIgnoreReviewLimit = false
        }.simulate(desiredRetention: 0.9)
        #expect(result.newCards.allSatisfy { $0 <= 12 } && result.newCards[0] == 12)
        #expect(zip(result.newCards, result.reviews).allSatisfy { $0 + $1 <= 40 })
        #expect(result.reviews.contains(40), "the review limit is reached on some day")
        // The day's time is checked before each card: one card may end a day past it, never two.
        let timed = try Self.simulator { $0.maximumSecondsPerDay = 300 }.simulate(desiredRetention: 0.9)
        #expect(timed.seconds.allSatisfy { $0 <= 300 + 19.58 * 6 })
        #expect(timed.newCards.reduce(0, +) < 500)
    }

    @Test("every new card is learned when time allows, and a higher retention costs more reviews")
    func retentionCosts() throws {
        let simulator = try Self.simulator { $0.maximumSecondsPerDay = .infinity }
        let high = try simulator.simulate(desiredRetention: 0.95)
        let low = try simulator.simulate(desiredRetention: 0.75)
        #expect(high.newCards.reduce(0, +) == 500 && high.newCards[0] == 500)
        #expect(high.reviews.reduce(0, +) > low.reviews.reduce(0, +))
        #expect(high.memorized.last! > low.memorized.last!)
        // Memorized is a sum of chances of recall: never more than the cards learned.
        #expect(high.memorized.allSatisfy { $0 <= 500 })
    }

    @Test("cards already studied count from their last review, overdue ones are due on the first day")
    func existingCards() throws {
        let simulator = try Self.simulator { $0.deckSize = 2 }
        let cards = [
            SimulatedCard(stability: 30, difficulty: 5, lastDay: -10, dueDay: 20),
            SimulatedCard(stability: 2, difficulty: 8, lastDay: -10, dueDay: -8),
        ]
        let result = try simulator.simulate(desiredRetention: 0.9, existing: cards)
        #expect(result.newCards.reduce(0, +) == 0)
        #expect(result.reviews[0] == 1, "the overdue card is reviewed on the first day")
        let scheduler = try Scheduler()
        // The first card ten days after its review; the second just reviewed (a chance of recall of 1).
        let firstDay = scheduler.retrievability(days: 10, 30) + 1
        #expect(abs(result.memorized[0] - firstDay) < 1e-9)
    }

    @Test("answers' odds and costs come from the review log, leaning on the defaults when it holds little")
    func measured() throws {
        let deck = DeckID(UUID())
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let reviews = (0..<200).map { index in
            ReviewLogEntry(
                id: ReviewID(UUID()), cardId: CardID(UUID()), deckId: deck, rating: 3,
                reviewedAt: start + Double(index) * 86_400, stateBefore: .review, stateAfter: .review,
                elapsedDays: 3, durationMs: 6_000)
        }
        var settings = SimulationSettings()
        settings.measure(from: reviews, timeZone: TimeZone(identifier: "UTC")!)
        #expect(settings.secondsPerAnswer[1][2] == 6)
        #expect(settings.secondsPerAnswer[0] == SimulationSettings().secondsPerAnswer[0])
        // 200 goods of 200: weight 200/250 toward (0, 1, 0).
        #expect(abs(settings.reviewRatingOdds[1] - (0.8 + 0.2 * 0.631)) < 1e-9)
        #expect(settings.firstRatingOdds == SimulationSettings().firstRatingOdds)
    }

    @Test("Brent's method finds a minimum inside the range, and stops at an edge when the minimum is past it")
    func brent() throws {
        let minimizer = BrentMinimizer(range: 0.7...0.95, tolerance: 0.01)
        var calls = 0
        let inside = try minimizer.minimum { x in
            calls += 1
            return (x - 0.83) * (x - 0.83)
        }
        #expect(abs(inside - 0.83) < 0.01 && calls < 30)
        #expect(try minimizer.minimum { $0 } < 0.71)
    }

    @Test("the recommended retention is within 0.70 to 0.95, and bad settings are refused")
    func recommended() throws {
        let simulator = try Self.simulator {
            $0.deckSize = 100
            $0.days = 400
        }
        #expect(WorkloadSimulator.retentionRange.contains(try simulator.optimalRetention()))
        #expect(WorkloadSimulator.runsPerEstimate(days: 20) == 180)
        #expect(WorkloadSimulator.runsPerEstimate(days: 400) == 16)
        #expect(throws: SchedulingError.self) { try Self.simulator { $0.deckSize = 0 } }
    }
}
