import CardboxCore
import Foundation
import Synchronization

/// What a workload simulation assumes of a deck and of the person studying it: the numbers Anki's
/// FSRS helper (fsrs-rs's `SimulatorConfig`) takes, with its defaults. Costs are seconds.
public struct SimulationSettings: Sendable, Equatable, Codable {
    /// Cards in the simulated deck: the existing ones, and new ones up to this many.
    public var deckSize = 10_000
    /// Days simulated.
    public var days = 365
    /// Study time a day, in seconds, past which the day's remaining cards wait for the next.
    public var maximumSecondsPerDay = 1800.0
    public var maximumInterval = 36_500
    /// New cards a day, and reviews a day (nil: no limit).
    public var newPerDay: Int?
    public var reviewsPerDay: Int?
    public var newCardsIgnoreReviewLimit = true
    /// How a new card's first answer falls (again, hard, good, easy), and a remembered review's
    /// (hard, good, easy).
    public var firstRatingOdds = [0.24, 0.094, 0.495, 0.171]
    public var reviewRatingOdds = [0.224, 0.631, 0.145]
    /// The next answer in a (re)learning step after each answer (rows: again, hard, good).
    public var learningStepTransitions = [
        [0.3686, 0.0628, 0.5108, 0.0577], [0.0442, 0.4553, 0.4457, 0.0549], [0.0519, 0.047, 0.8462, 0.055],
    ]
    public var relearningStepTransitions = [
        [0.2157, 0.0643, 0.6595, 0.0604], [0.05, 0.4638, 0.4475, 0.0387], [0.1057, 0.1434, 0.7266, 0.0244],
    ]
    /// Seconds an answer takes, by phase (learning, review, relearning) and rating.
    public var secondsPerAnswer = [
        [19.58, 18.79, 13.78, 10.71], [19.38, 17.59, 12.38, 8.94], [16.44, 15.25, 12.32, 8.03],
    ]
    public var learningStepCount = 2
    public var relearningStepCount = 1

    public init() {}

    /// The answers' odds and costs measured from a review log where it holds enough, leaning on the
    /// defaults in proportion to how little it holds (weight n / (n + 50), as fsrs-rs smooths them).
    /// A day's first answer to a card is what counts for the odds; answers over 20 minutes are left out.
    public mutating func measure(from reviews: [ReviewLogEntry], timeZone: TimeZone) {
        let kept = reviews.filter { ($0.durationMs ?? 0) > 0 && ($0.durationMs ?? 0) < 1_200_000 }
        guard !kept.isEmpty else { return }
        var durations = [[[Int]]](repeating: [[Int]](repeating: [], count: 4), count: 3)
        for review in kept {
            guard let phase = Self.phase(review.stateBefore), (1...4).contains(review.rating) else { continue }
            durations[phase][review.rating - 1].append(review.durationMs ?? 0)
        }
        for phase in 0..<3 {
            for rating in 0..<4 where !durations[phase][rating].isEmpty {
                let total = durations[phase][rating].reduce(0, +)
                secondsPerAnswer[phase][rating] = Double(total / durations[phase][rating].count) / 1000
            }
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        struct CardDay: Hashable {
            let card: CardID
            let day: Int
        }
        let days = Dictionary(grouping: kept) { review in
            CardDay(card: review.cardId, day: calendar.ordinality(of: .day, in: .era, for: review.reviewedAt) ?? 0)
        }
        var firstAnswers = [Int](repeating: 0, count: 4)
        var reviewAnswers = [Int](repeating: 0, count: 4)
        var learningDays: [[Int]] = []
        var relearningDays: [[Int]] = []
        for day in days.values {
            let ordered = day.sorted { $0.reviewedAt < $1.reviewedAt }
            let first = ordered[0]
            let ratings = ordered.map { $0.rating }.filter { (1...4).contains($0) }
            guard (1...4).contains(first.rating) else { continue }
            switch first.stateBefore {
            case .new, .learning:
                firstAnswers[first.rating - 1] += 1
                learningDays.append(ratings)
            case .review:
                reviewAnswers[first.rating - 1] += 1
                if first.rating == 1 { relearningDays.append(ratings) }
            case .relearning:
                break
            }
        }
        firstRatingOdds = Self.blend(Self.shares(firstAnswers), firstRatingOdds, count: firstAnswers.reduce(0, +))
        let remembered = Array(reviewAnswers[1...])
        reviewRatingOdds = Self.blend(Self.shares(remembered), reviewRatingOdds, count: remembered.reduce(0, +))
        learningStepTransitions = Self.transitions(learningDays, defaults: learningStepTransitions)
        relearningStepTransitions = Self.transitions(relearningDays, defaults: relearningStepTransitions)
    }

    private static func phase(_ state: CardState) -> Int? {
        switch state {
        case .new, .learning: 0
        case .review: 1
        case .relearning: 2
        }
    }

    private static func shares(_ counts: [Int]) -> [Double] {
        let total = counts.reduce(0, +)
        return total == 0 ? counts.map { _ in 1 / Double(counts.count) } : counts.map { Double($0) / Double(total) }
    }

    private static func blend(_ measured: [Double], _ defaults: [Double], count: Int) -> [Double] {
        let weight = Double(count) / (50 + Double(count))
        return zip(measured, defaults).map { weight * $0 + (1 - weight) * $1 }
    }

    /// The step-to-step rating odds of each day's answers, Laplace-smoothed, then blended with the defaults.
    private static func transitions(_ sequences: [[Int]], defaults: [[Double]]) -> [[Double]] {
        var counts = [[Double]](repeating: [Double](repeating: 1, count: 4), count: 4)
        for sequence in sequences where sequence.count > 1 {
            for (current, next) in zip(sequence, sequence.dropFirst()) { counts[current - 1][next - 1] += 1 }
        }
        return (0..<3).map { row in
            let total = counts[row].reduce(0, +)
            return blend(counts[row].map { $0 / total }, defaults[row], count: Int(total))
        }
    }
}

/// A card the simulation starts with: its memory, and days counted from the simulation's first (its
/// last review is on a day before it, zero or negative; it may be due before it, when overdue).
public struct SimulatedCard: Sendable, Equatable {
    public var stability: Double
    public var difficulty: Double
    public var lastDay: Double
    public var dueDay: Double

    public init(stability: Double, difficulty: Double, lastDay: Double, dueDay: Double) {
        self.stability = stability
        self.difficulty = difficulty
        self.lastDay = lastDay
        self.dueDay = dueDay
    }
}

extension SimulatedCard {
    /// The card with its memory within FSRS's bounds and its days within reach of a run of `days`
    /// (a value that is not a number taken as the nearest harmless one), so that no day becomes
    /// an index or an `Int` it cannot be: what an older store or another device holds is
    /// simulated, not a trap.
    func withinBounds(days: Int) -> SimulatedCard {
        func bounded(_ value: Double, _ range: ClosedRange<Double>, otherwise: Double) -> Double {
            value.isNaN ? otherwise : value.clamped(to: range)
        }
        // The memory of the longest interval is enough to count back from: a last review further
        // back changes nothing but the size of the numbers.
        let reach = Double(StudyRanges.maximumInterval.upperBound)
        return SimulatedCard(
            stability: bounded(stability, StudyRanges.stability, otherwise: StudyRanges.stability.lowerBound),
            difficulty: bounded(difficulty, StudyRanges.difficulty, otherwise: StudyRanges.difficulty.upperBound),
            lastDay: bounded(lastDay, -reach...0, otherwise: 0),
            dueDay: bounded(dueDay.rounded(.down), 0...Double(days), otherwise: 0))
    }
}

/// What a simulation expects, day by day.
public struct SimulationResult: Sendable, Equatable, Codable {
    public var reviews: [Int]
    public var newCards: [Int]
    public var seconds: [Double]
    /// Cards memorized: the sum of every studied card's retrievability that day.
    public var memorized: [Double]

    init(days: Int) {
        reviews = [Int](repeating: 0, count: days)
        newCards = reviews
        seconds = [Double](repeating: 0, count: days)
        memorized = seconds
    }

    /// Study seconds per card memorized at the end: what the recommended retention makes least.
    public var secondsPerMemorized: Double { seconds.reduce(0, +) / max(memorized.last ?? 0, 1e-9) }
}

/// FSRS's workload simulator and its recommended retention (fsrs-rs's `simulate` and
/// `optimal_retention`, as Anki's deck options use them), on Cardbox's own FSRS-6 formulas.
///
/// Cards are studied day by day, each day's due reviews first (easiest first), then new cards, until
/// a daily limit or the day's time runs out; the rest wait for the next day. Each answer is drawn from
/// the card's retrievability and the settings' odds; a lapse or a new card goes through its
/// (re)learning steps on the day.
public struct WorkloadSimulator: Sendable {
    public let parameters: FSRSParameters
    public let settings: SimulationSettings

    /// Retention the recommendation searches within (fsrs-rs's bounds).
    public static let retentionRange = 0.70...0.95

    public init(parameters: FSRSParameters, settings: SimulationSettings) throws {
        guard settings.deckSize > 0, settings.days > 0 else {
            throw SchedulingError.invalidOption("a simulation needs at least one card and one day")
        }
        self.parameters = parameters
        self.settings = settings
    }

    /// One simulated run at `desiredRetention`; the same seed gives the same run.
    public func simulate(
        desiredRetention: Double, existing: [SimulatedCard] = [], seed: UInt64 = 42
    ) throws -> SimulationResult {
        var run = try SimulationRun(
            parameters: parameters, settings: settings, desiredRetention: desiredRetention, seed: seed)
        return run.simulate(existing: existing)
    }

    /// The desired retention (within `retentionRange`) that costs least study time per card
    /// memorized at the end, averaged over several seeded runs (Brent's method, as fsrs-rs: to 0.01).
    /// `progress` hears each retention tried.
    public func optimalRetention(
        existing: [SimulatedCard] = [], progress: (Double) -> Void = { _ in }
    ) throws -> Double {
        let runs = Self.runsPerEstimate(days: settings.days)
        let cost = { (retention: Double) throws -> Double in
            progress(retention)
            return try averageCost(at: retention, runs: runs, existing: existing)
        }
        return try BrentMinimizer(range: Self.retentionRange, tolerance: 0.01).minimum(of: cost)
    }

    /// fsrs-rs's sample sizes: more runs for short horizons, whose single runs vary more.
    static func runsPerEstimate(days: Int) -> Int {
        switch days {
        case ...30: return 180
        case 31..<365:
            let span = Double(days)
            return Int((16 / (8.20e-7 * span * span + 2.41e-3 * span + 1.30e-2)).rounded())
        default: return 16
        }
    }

    private func averageCost(at retention: Double, runs: Int, existing: [SimulatedCard]) throws -> Double {
        let costs = Mutex<[Double]>([Double](repeating: 0, count: runs))
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: runs) { index in
            do {
                let result = try simulate(desiredRetention: retention, existing: existing, seed: 42 + UInt64(index))
                costs.withLock { $0[index] = result.secondsPerMemorized }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return costs.withLock { $0.reduce(0, +) } / Double(runs)
    }
}

/// One run's state: each card's memory and the days' tallies.
struct SimulationRun {
    let scheduler: Scheduler
    let settings: SimulationSettings
    var random: SeededRandom
    var result: SimulationResult
    var stability: [Double] = []
    var difficulty: [Double] = []
    var lastDay: [Double] = []
    /// Review cards by the day they are due.
    var due: [[Int]]

    init(parameters: FSRSParameters, settings: SimulationSettings, desiredRetention: Double, seed: UInt64) throws {
        scheduler = try Scheduler(
            parameters: parameters, desiredRetention: desiredRetention, maximumInterval: settings.maximumInterval)
        self.settings = settings
        random = SeededRandom(seed: seed)
        result = SimulationResult(days: settings.days)
        due = [[Int]](repeating: [], count: settings.days)
    }

    mutating func simulate(existing: [SimulatedCard]) -> SimulationResult {
        for card in existing.prefix(settings.deckSize) where card.stability > 1e-9 {
            let card = card.withinBounds(days: settings.days)
            let index = stability.count
            stability.append(card.stability)
            difficulty.append(card.difficulty)
            lastDay.append(card.lastDay)
            schedule(index, on: Int(card.dueDay))
        }
        var newLeft = settings.deckSize - stability.count
        for day in 0..<settings.days {
            var reviewed = 0
            var learned = 0
            // Easiest first, as fsrs-rs orders a day's reviews (difficulty × 100, whole).
            let today = due[day].sorted { Int(difficulty[$0] * 100) < Int(difficulty[$1] * 100) }
            due[day] = []
            for (position, card) in today.enumerated() {
                if reviewed + 1 > settings.reviewsPerDay ?? .max || result.seconds[day] > settings.maximumSecondsPerDay
                {
                    for waiting in today[position...] { schedule(waiting, on: day + 1) }
                    break
                }
                review(card, on: day)
                reviewed += 1
            }
            while newLeft > 0 {
                let overReviews =
                    !settings.newCardsIgnoreReviewLimit && learned + reviewed + 1 > settings.reviewsPerDay ?? .max
                if learned + 1 > settings.newPerDay ?? .max || overReviews
                    || result.seconds[day] > settings.maximumSecondsPerDay
                {
                    break
                }
                learn(on: day)
                learned += 1
                newLeft -= 1
            }
        }
        return result
    }

    /// A card due on `day`, or, past the last day, counted memorized up to it.
    private mutating func schedule(_ card: Int, on day: Int) {
        if day < settings.days {
            due[day].append(card)
        } else {
            addMemorized(card, through: settings.days)
        }
    }

    /// Adds the card's retrievability on each day from its last review up to (not including) `end`.
    private mutating func addMemorized(_ card: Int, through end: Int) {
        var day = max(Int(lastDay[card]), 0)
        while day < end {
            result.memorized[day] += scheduler.retrievability(days: Double(day) - lastDay[card], stability[card])
            day += 1
        }
    }

    private mutating func review(_ card: Int, on day: Int) {
        let retrievability = scheduler.retrievability(days: Double(day) - lastDay[card], stability[card])
        addMemorized(card, through: day)
        let remembered = Double.random(in: 0..<1, using: &random) < retrievability
        let rating = remembered ? Rating(rawValue: 2 + draw(settings.reviewRatingOdds))! : .again
        var seconds = settings.secondsPerAnswer[1][rating.rawValue - 1]
        if remembered {
            stability[card] = scheduler.nextStability(difficulty[card], stability[card], retrievability, rating)
            difficulty[card] = scheduler.nextDifficulty(difficulty[card], rating)
        } else {
            let afterLapse = scheduler.nextStability(difficulty[card], stability[card], retrievability, .again)
            let steps = steps(
                stability: afterLapse, difficulty: scheduler.nextDifficulty(difficulty[card], .again), first: nil,
                costs: settings.secondsPerAnswer[2], transitions: settings.relearningStepTransitions,
                count: settings.relearningStepCount)
            (stability[card], difficulty[card]) = (steps.stability, steps.difficulty)
            seconds += steps.seconds
        }
        result.reviews[day] += 1
        result.seconds[day] += seconds
        reschedule(card, on: day)
    }

    private mutating func learn(on day: Int) {
        let first = Rating(rawValue: 1 + draw(settings.firstRatingOdds))!
        let steps = steps(
            stability: scheduler.initialStability(first),
            difficulty: min(max(scheduler.initialDifficulty(first), 1), 10), first: first,
            costs: settings.secondsPerAnswer[0], transitions: settings.learningStepTransitions,
            count: settings.learningStepCount)
        let card = stability.count
        stability.append(steps.stability)
        difficulty.append(steps.difficulty)
        lastDay.append(Double(day))
        result.newCards[day] += 1
        result.seconds[day] += steps.seconds
        reschedule(card, on: day)
    }

    private mutating func reschedule(_ card: Int, on day: Int) {
        lastDay[card] = Double(day)
        schedule(card, on: day + scheduler.nextInterval(stability[card]))
    }

    /// A day's (re)learning steps: answers drawn from the transitions until the steps are passed
    /// (a good or easy for each step left; an again starts over) or an easy, at most five answers.
    private mutating func steps(
        stability: Double, difficulty: Double, first: Rating?, costs: [Double], transitions: [[Double]], count: Int
    ) -> (stability: Double, difficulty: Double, seconds: Double) {
        var rating = first ?? .again
        var seconds = first.map { costs[$0.rawValue - 1] } ?? 0
        var (stability, difficulty) = (stability, difficulty)
        var passed = 0
        let needed = rating.rawValue > 2 ? max(count - 1, 0) : count
        for _ in 0..<5 {
            guard passed < needed, rating != .easy else { break }
            rating = Rating(rawValue: 1 + draw(transitions[rating.rawValue - 1]))!
            stability = scheduler.shortTermStability(stability, rating)
            difficulty = scheduler.nextDifficulty(difficulty, rating)
            seconds += costs[rating.rawValue - 1]
            if rating.rawValue > 2 {
                passed += 1
            } else if rating == .again {
                passed = 0
            }
        }
        return (stability, min(max(difficulty, 1), 10), seconds)
    }

    /// An index drawn with the given odds.
    private mutating func draw(_ odds: [Double]) -> Int {
        var pick = Double.random(in: 0..<odds.reduce(0, +), using: &random)
        for (index, share) in odds.enumerated() {
            if pick < share { return index }
            pick -= share
        }
        return odds.count - 1
    }
}

/// Brent's method for a minimum within a range (scipy's `brent`, bounded as fsrs-rs bounds it):
/// golden-section steps, and parabolic ones where they help.
struct BrentMinimizer {
    let range: ClosedRange<Double>
    let tolerance: Double
    let maximumIterations = 64

    func minimum(of function: (Double) throws -> Double) throws -> Double {
        let golden = 0.381_966
        let tinyTolerance = 1e-10
        var (low, high) = (range.lowerBound, range.upperBound)
        var x = low
        var fx = try function(x)
        var (w, v, fw, fv) = (x, x, fx, fx)
        var step = 0.0
        var previousStep = 0.0
        for _ in 0..<maximumIterations {
            let tolerance1 = tolerance * abs(x) + tinyTolerance
            let tolerance2 = 2 * tolerance1
            let middle = (low + high) / 2
            if abs(x - middle) < tolerance2 - (high - low) / 2 { return x }
            if abs(previousStep) <= tolerance1 {
                previousStep = (x >= middle ? low : high) - x
                step = golden * previousStep
            } else {
                let r = (x - w) * (fx - fv)
                var q = (x - v) * (fx - fw)
                var p = (x - v) * q - (x - w) * r
                q = 2 * (q - r)
                if q > 0 { p = -p }
                q = abs(q)
                let older = previousStep
                previousStep = step
                if p > q * (low - x) && p < q * (high - x) && abs(p) < abs(0.5 * q * older) {
                    step = p / q
                    let u = x + step
                    if u - low < tolerance2 || high - u < tolerance2 {
                        step = middle - x >= 0 ? tolerance1 : -tolerance1
                    }
                } else {
                    previousStep = (x >= middle ? low : high) - x
                    step = golden * previousStep
                }
            }
            let u = x + (abs(step) < tolerance1 ? (step >= 0 ? tolerance1 : -tolerance1) : step)
            let fu = try function(u)
            if fu > fx {
                if u < x { low = u } else { high = u }
                if fu <= fw || w == x {
                    (v, w, fv, fw) = (w, u, fw, fu)
                } else if fu <= fv || v == x || v == w {
                    (v, fv) = (u, fu)
                }
            } else {
                if u >= x { low = x } else { high = x }
                (v, w, x, fv, fw, fx) = (w, x, u, fw, fx, fu)
            }
        }
        throw SchedulingError.invalidOption("no recommended retention found within \(maximumIterations) tries")
    }
}

/// A deck as a simulation starts from: its parameters and limits, its reviewed cards in flight, its
/// new cards waiting, and what its review log says of the answers' odds and costs.
public struct DeckSimulation: Sendable {
    public var simulator: WorkloadSimulator
    public var existing: [SimulatedCard]
    /// When the run's first day starts (the study day under way), for a deck's run; nil for one
    /// that starts from nothing.
    public var firstDay: Date?

    public init(simulator: WorkloadSimulator, existing: [SimulatedCard]) {
        self.simulator = simulator
        self.existing = existing
    }

    /// `extraNewCards` adds new cards beyond the deck's own; days are study days, counted from
    /// `today` (the start of the study day under way: a card due before the next one starts is due
    /// on day 0, as study would show it).
    public init(
        study: StudySettings, cards: [Card], reviews: [ReviewLogEntry], now: Date, today: Date, timeZone: TimeZone,
        days: Int, newPerDay: Int?, extraNewCards: Int = 0
    ) throws {
        firstDay = today
        let study = study.clampedForStudy
        var settings = SimulationSettings()
        settings.days = days
        settings.newPerDay = newPerDay ?? study.newCardsPerDay
        settings.reviewsPerDay = study.reviewsPerDay
        settings.maximumInterval = study.maximumInterval
        settings.learningStepCount = try StepList.parse(study.learningSteps, field: "learningSteps").count
        settings.relearningStepCount = try StepList.parse(study.relearningSteps, field: "relearningSteps").count
        settings.measure(from: reviews, timeZone: timeZone)
        let day = { (date: Date) in date.timeIntervalSince(today) / 86_400 }
        existing = cards.compactMap { card in
            guard let stability = card.stability, let difficulty = card.difficulty, let last = card.lastReviewAt
            else { return nil }
            return SimulatedCard(
                stability: stability, difficulty: difficulty, lastDay: day(last).rounded(.down),
                dueDay: max(day(card.dueAt ?? now).rounded(.down), 0))
        }
        settings.deckSize = cards.count + extraNewCards
        simulator = try WorkloadSimulator(
            parameters: try FSRSParameters(study.fsrsParameters ?? FSRSParameters.defaultValues), settings: settings)
    }
}
