import Foundation
import Testing

@testable import CardboxScheduling

/// Reviews of a simulated learner whose memory follows `truth`, scheduled with FSRS-6's defaults.
func simulatedHistories(cards: Int, days: Int, truth: [Double], seed: UInt64) throws -> [ReviewHistory] {
    let scheduler = try Scheduler()
    let memory = try Scheduler(parameters: FSRSParameters(truth))
    var random = SplitMix64(state: seed)
    let start = Date(timeIntervalSince1970: 1_735_722_000)
    let end = start.addingTimeInterval(Double(days) * 86_400)
    var reviews: [(card: String, rating: Rating, time: Date)] = []
    for index in 0..<cards {
        var card = MemoryState.new(at: start)
        var truthState = card
        var time = start.addingTimeInterval(Double(Int.random(in: 0..<(days / 2), using: &random)) * 86_400)
        while time < end {
            let rating: Rating
            if truthState.lastReview == nil {
                rating = [Rating.again, .hard, .good, .good, .good, .easy].randomElement(using: &random)!
            } else {
                let recall = memory.retrievability(of: truthState, at: time)
                rating = Double.random(in: 0..<1, using: &random) < recall ? .good : .again
            }
            reviews.append(("c\(index)", rating, time))
            card = scheduler.review(card, rating: rating, at: time)
            truthState = memory.review(truthState, rating: rating, at: time)
            time = card.due.addingTimeInterval(Double(Int.random(in: 0..<7_200, using: &random)))
        }
    }
    return ReviewHistory.from(reviews)
}

@Suite("FSRS parameter optimizer")
struct OptimizerTests {
    static let truth: [Double] = {
        var values = FSRSParameters.defaultValues
        values[0] = 0.5
        values[2] = 4
        values[8] = 1.4
        values[11] = 1.9
        values[20] = 0.3
        return values
    }()

    @Test("the gradient matches finite differences")
    func gradient() throws {
        let histories = try simulatedHistories(cards: 40, days: 200, truth: Self.truth, seed: 3)
        let weights = FSRSParameters.defaultValues
        let analytic = FSRSOptimizer.gradient(weights, on: histories)
        for index in 4..<21 {
            let step = 1e-6 * max(1, abs(weights[index]))
            var up = weights
            var down = weights
            up[index] += step
            down[index] -= step
            let numeric =
                (FSRSOptimizer.totalLoss(up, on: histories) - FSRSOptimizer.totalLoss(down, on: histories)) / (2 * step)
            #expect(
                abs(analytic[index] - numeric) <= 1e-4 * max(1, abs(numeric)),
                "w\(index): \(analytic[index]) vs \(numeric)")
        }
    }

    @Test("the reverse-mode gradient equals the forward mode's, at clamps and on every branch too")
    func reverseMode() throws {
        var random = SplitMix64(state: 29)
        // Random ratings and gaps: same-day steps of every rating, Hard and Easy, long gaps that
        // clamp the recall, lapses that hit the cap of exp(w17·w18).
        let gaps = [0, 0, 1, 2, 5, 30, 400, 5_000]
        let randomHistories = (0..<300).map { _ in
            ReviewHistory(
                (0..<Int.random(in: 1...14, using: &random)).map { index in
                    (
                        index == 0 ? 0 : gaps.randomElement(using: &random)!,
                        Rating(rawValue: Int.random(in: 1...4, using: &random))!
                    )
                })
        }
        let simulated = try simulatedHistories(cards: 60, days: 300, truth: Self.truth, seed: 5)
        let lower = FSRSParameters.lowerBounds
        let upper = FSRSParameters.upperBounds
        var parameterSets = [FSRSParameters.defaultValues, Self.truth, lower, upper]
        for _ in 0..<12 {
            parameterSets.append(
                (0..<21).map { lower[$0] + (upper[$0] - lower[$0]) * Double.random(in: 0...1, using: &random) })
        }
        for parameters in parameterSets {
            for histories in [randomHistories, simulated] {
                let reverse = FSRSOptimizer.gradient(parameters, on: histories)
                let forward = FSRSOptimizer.forwardModeGradient(parameters, on: histories)
                for index in 0..<21 {
                    #expect(
                        abs(reverse[index] - forward[index]) <= 1e-9 * max(1, abs(forward[index])),
                        "w\(index) with \(parameters): \(reverse[index]) vs \(forward[index])")
                }
            }
        }
    }

    @Test("fitting simulated reviews lowers the log loss and stays within FSRS's bounds")
    func fit() throws {
        let histories = try simulatedHistories(cards: 400, days: 365, truth: Self.truth, seed: 11)
        let result = try FSRSOptimizer().fit(histories)
        #expect(result.before.reviews >= FSRSOptimizer.minimumReviews)
        #expect(result.after.logLoss < result.before.logLoss)
        #expect(result.after.rmseBins < result.before.rmseBins)
        _ = try FSRSParameters(result.parameters)
        // The initial stabilities come from the data: the learner's Again (0.5) is slower to fade than FSRS's default.
        #expect(result.parameters[0] > FSRSParameters.defaultValues[0])
        #expect(result.parameters[0] <= result.parameters[1] && result.parameters[2] <= result.parameters[3])
        let again = try FSRSOptimizer().fit(histories)
        #expect(again == result)
    }

    @Test("too few reviews are refused with the numbers")
    func tooFew() throws {
        let histories = try simulatedHistories(cards: 5, days: 60, truth: Self.truth, seed: 5)
        #expect {
            try FSRSOptimizer().fit(histories)
        } throws: { error in
            (error as? SchedulingError)?.localizedDescription.contains("at least 400 are needed") == true
        }
    }

    @Test("histories count whole days between a card's reviews")
    func histories() {
        let start = Date(timeIntervalSince1970: 1_735_722_000)
        let histories = ReviewHistory.from([
            ("b", .good, start), ("a", .again, start.addingTimeInterval(60)), ("a", .good, start),
            ("a", .hard, start.addingTimeInterval(2 * 86_400 + 90)),
        ])
        #expect(histories.count == 2)
        #expect(histories[0].reviews.map(\.elapsedDays) == [0])
        #expect(histories[1].reviews.map(\.elapsedDays) == [0, 0, 2])
        #expect(histories[1].reviews.map(\.rating) == [.good, .again, .hard])
    }
}
