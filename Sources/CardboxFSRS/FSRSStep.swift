/// The FSRS-6 step: a card's memory and schedule after one rating, in Swift that imports nothing,
/// so the very same code runs on every device (inside `CardboxScheduling.Scheduler`) and in the
/// browser (compiled to WebAssembly: `Wasm/FSRSExports.swift`). Times are seconds since 1970;
/// the math is `PortableMath`'s, so both compute the same bits.
public struct FSRSStep: Sendable {
    /// Where a card is in its life.
    public enum Phase: Int32, Sendable {
        case learning = 0, review = 1, relearning = 2
    }

    /// A card as the step reads and writes it. A card never reviewed is `learning` at step 0 with
    /// no stability.
    public struct Card: Equatable, Sendable {
        public var phase: Phase
        /// The learning or relearning step; nil in `review`.
        public var step: Int?
        public var stability: Double?
        public var difficulty: Double?
        public var due: Double
        public var lastReview: Double?

        public init(
            phase: Phase = .learning, step: Int? = 0, stability: Double? = nil, difficulty: Double? = nil,
            due: Double, lastReview: Double? = nil
        ) {
            self.phase = phase
            self.step = step
            self.stability = stability
            self.difficulty = difficulty
            self.due = due
            self.lastReview = lastReview
        }
    }

    /// w0…w20.
    public let weights: InlineArray<21, Double>
    public let desiredRetention: Double
    public let maximumInterval: Int
    private let decay: Double
    private let factor: Double

    public static let stabilityMinimum = 0.001
    /// The ceiling on stability, in days: ten million, past any span a stored time can hold (the
    /// hybrid logical clock's 48 bits of milliseconds are 3.3 million days), so every value stays
    /// finite. py-fsrs sets none (its fixtures reach 254,000 days), and agreeing with it below the
    /// ceiling matters more than fsrs-rs's `S_MAX` of 36,500.
    public static let stabilityMaximum = 10_000_000.0
    /// The longest interval, in days: a hundred years, Anki's and FSRS's ceiling.
    public static let longestInterval = 36_500

    /// `maximumInterval` is held to 1…`longestInterval` days, so no interval, however large the
    /// stability, leaves the range of an `Int` (32 bits in WebAssembly).
    public init(weights: InlineArray<21, Double>, desiredRetention: Double, maximumInterval: Int) {
        self.weights = weights
        self.desiredRetention = desiredRetention
        self.maximumInterval = min(max(maximumInterval, 1), Self.longestInterval)
        decay = -weights[20]
        factor = PortableMath.pow(0.9, 1 / decay) - 1
    }

    /// The card after a review with `rating` (1 Again … 4 Easy) at `now`. The steps are durations in
    /// seconds. With `fuzz`, a day interval of 2.5 days or more moves within its band, to the day
    /// `pick(lower, upper)` chooses.
    ///
    /// As in Anki, the passing ratings' day intervals are kept in order: Good's is at least a day
    /// longer than Hard's and Easy's a day longer than Good's (up to the longest interval), so two
    /// buttons never offer the same day. FSRS alone can give Hard and Good one interval when
    /// stability is small; py-fsrs leaves them equal.
    public func review(
        _ card: Card, rating: Int, at now: Double, learningSteps: UnsafeBufferPointer<Double>,
        relearningSteps: UnsafeBufferPointer<Double>, fuzz: Bool, pick: (_ lower: Int, _ upper: Int) -> Int
    ) -> Card {
        let rating = min(max(rating, 1), 4)
        let card = Self.withinBounds(card, stepCount: max(learningSteps.count, relearningSteps.count))
        func outcome(_ rating: Int) -> Outcome {
            self.outcome(card, rating: rating, at: now, learningSteps: learningSteps, relearningSteps: relearningSteps)
        }
        var result = outcome(rating)
        if let days = result.days {
            // The shortest interval this rating may offer: a day past the passing rating below it
            // (Hard for Good; Good, itself kept past Hard, for Easy) when that one leaves the
            // steps too.
            var shortest = 1
            if rating > 2 {
                for lower in 2..<rating {
                    shortest = outcome(lower).days.map { min(max($0, shortest) + 1, maximumInterval) } ?? 1
                }
            }
            let ordered = max(days, shortest)
            result.days = fuzz ? fuzzed(ordered, shortest: shortest, pick: pick) : ordered
        }
        var next = result.card
        var seconds = result.seconds
        if let interval = result.days {
            // A day-scale interval means the card has left its steps.
            next.phase = .review
            next.step = nil
            seconds = Double(interval) * 86_400
        }
        next.due = now + seconds
        next.lastReview = now
        return next
    }

    /// What one rating alone does to a card: its new memory and step, and either a wait in seconds
    /// (a step) or an interval in days, before the passing ratings are put in order and fuzzed.
    private struct Outcome {
        var card: Card
        var seconds: Double
        var days: Int?
    }

    private func outcome(
        _ card: Card, rating: Int, at now: Double, learningSteps: UnsafeBufferPointer<Double>,
        relearningSteps: UnsafeBufferPointer<Double>
    ) -> Outcome {
        var next = card
        let sameDay = card.lastReview.map { Self.wholeDays(from: $0, to: now) < 1 } ?? false
        var seconds: Double = 0
        var days: Int?

        switch card.phase {
        case .learning, .relearning:
            let steps = card.phase == .learning ? learningSteps : relearningSteps
            if let stability = card.stability, let difficulty = card.difficulty {
                next.stability =
                    sameDay
                    ? shortTermStability(stability, rating)
                    : nextStability(difficulty, stability, retrievability(of: card, at: now), rating)
                next.difficulty = nextDifficulty(difficulty, rating)
            } else {
                next.stability = initialStability(rating)
                next.difficulty = clampDifficulty(initialDifficulty(rating))
            }
            let stability = next.stability ?? Self.stabilityMinimum
            let step = card.step ?? 0
            if steps.isEmpty || (step >= steps.count && rating != 1) {
                days = nextInterval(stability)
            } else if rating == 1 {
                next.step = 0
                seconds = steps[0]
            } else if rating == 2 {
                seconds = step == 0 ? (steps.count == 1 ? steps[0] * 1.5 : (steps[0] + steps[1]) / 2) : steps[step]
            } else if rating == 3 && step + 1 < steps.count {
                next.step = step + 1
                seconds = steps[step + 1]
            } else {
                days = nextInterval(stability)
            }
        case .review:
            let stability = card.stability ?? initialStability(rating)
            let difficulty = card.difficulty ?? clampDifficulty(initialDifficulty(rating))
            next.stability =
                sameDay
                ? shortTermStability(stability, rating)
                : nextStability(difficulty, stability, retrievability(of: card, at: now), rating)
            next.difficulty = nextDifficulty(difficulty, rating)
            if rating == 1 && !relearningSteps.isEmpty {
                next.phase = .relearning
                next.step = 0
                seconds = relearningSteps[0]
            } else {
                days = nextInterval(next.stability ?? Self.stabilityMinimum)
            }
        }
        return Outcome(card: next, seconds: seconds, days: days)
    }

    /// The card with every value a stored card may hold out of bounds (an older store's, another
    /// device's) moved into them: stability and difficulty into FSRS's bounds (a value that is not
    /// a number is no memory at all), the step into the steps. The formulas and the indexing below
    /// then never meet a value they were not made for.
    static func withinBounds(_ card: Card, stepCount: Int) -> Card {
        var card = card
        func bounded(_ value: Double?, _ lower: Double, _ upper: Double) -> Double? {
            guard let value, !value.isNaN else { return nil }
            return min(max(value, lower), upper)
        }
        card.stability = bounded(card.stability, stabilityMinimum, stabilityMaximum)
        card.difficulty = bounded(card.difficulty, 1, 10)
        card.step = card.step.map { min(max($0, 0), stepCount) }
        return card
    }

    /// The probability of recalling the card at `now`: 0 for a card never reviewed. Elapsed time is
    /// counted in whole days since the last review, as py-fsrs counts it.
    public func retrievability(of card: Card, at now: Double) -> Double {
        guard let lastReview = card.lastReview,
            let stability = Self.withinBounds(card, stepCount: 0).stability
        else { return 0 }
        let elapsedDays = max(0, Self.wholeDays(from: lastReview, to: now))
        return retrievability(days: Double(elapsedDays), stability)
    }

    /// The probability of recall `days` (any fraction) after a review that left `stability`.
    public func retrievability(days: Double, _ stability: Double) -> Double {
        PortableMath.pow(1 + factor * days / stability, decay)
    }

    /// Whole 24-hour periods from `start` to `end` (negative when `end` is earlier), like Python's
    /// `timedelta.days`.
    public static func wholeDays(from start: Double, to end: Double) -> Int {
        let days = ((end - start) / 86_400).rounded(.down)
        guard !days.isNaN else { return 0 }
        return Int(max(min(days, 1e9), -1e9))
    }

    // MARK: The FSRS-6 formulas

    private func clampDifficulty(_ difficulty: Double) -> Double { min(max(difficulty, 1), 10) }

    private func clampStability(_ stability: Double) -> Double {
        min(max(stability, Self.stabilityMinimum), Self.stabilityMaximum)
    }

    public func initialStability(_ rating: Int) -> Double { clampStability(weights[rating - 1]) }

    public func initialDifficulty(_ rating: Int) -> Double {
        weights[4] - PortableMath.exp(weights[5] * Double(rating - 1)) + 1
    }

    /// The interval in whole days for the desired retention (Python's `round`: half to even).
    public func nextInterval(_ stability: Double) -> Int {
        let days = (stability / factor) * (PortableMath.pow(desiredRetention, 1 / decay) - 1)
        // Bounded before it becomes an Int: an Int has 32 bits in WebAssembly. A stability that is
        // not a number gives the shortest interval.
        guard !days.isNaN else { return 1 }
        return Int(min(max(days.rounded(.toNearestOrEven), 1), Double(maximumInterval)))
    }

    public func shortTermStability(_ stability: Double, _ rating: Int) -> Double {
        var increase =
            PortableMath.exp(weights[17] * (Double(rating) - 3 + weights[18]))
            * PortableMath.pow(stability, -weights[19])
        if rating != 1 { increase = max(increase, 1) }
        return clampStability(stability * increase)
    }

    public func nextDifficulty(_ difficulty: Double, _ rating: Int) -> Double {
        let easyDifficulty = initialDifficulty(4)
        let delta = -(weights[6] * (Double(rating) - 3))
        let damped = difficulty + (10 - difficulty) * delta / 9
        return clampDifficulty(weights[7] * easyDifficulty + (1 - weights[7]) * damped)
    }

    public func nextStability(_ difficulty: Double, _ stability: Double, _ retrievability: Double, _ rating: Int)
        -> Double
    {
        if rating == 1 {
            let longTerm =
                weights[11] * PortableMath.pow(difficulty, -weights[12])
                * (PortableMath.pow(stability + 1, weights[13]) - 1)
                * PortableMath.exp((1 - retrievability) * weights[14])
            let shortTerm = stability / PortableMath.exp(weights[17] * weights[18])
            return clampStability(min(longTerm, shortTerm))
        }
        let hardPenalty = rating == 2 ? weights[15] : 1
        let easyBonus = rating == 4 ? weights[16] : 1
        return clampStability(
            stability
                * (1 + PortableMath.exp(weights[8]) * (11 - difficulty) * PortableMath.pow(stability, -weights[9])
                    * (PortableMath.exp((1 - retrievability) * weights[10]) - 1) * hardPenalty * easyBonus))
    }

    /// py-fsrs's fuzz: intervals of 2.5 days or more move within a band that widens by 15 % of the
    /// days between 2.5 and 7, 10 % between 7 and 20, and 5 % beyond; never below `shortest`, the
    /// day the rating below keeps this one past.
    private func fuzzed(_ days: Int, shortest: Int, pick: (Int, Int) -> Int) -> Int {
        let length = Double(days)
        guard length >= 2.5 else { return days }
        let delta =
            1 + 0.15 * max(min(length, 7) - 2.5, 0) + 0.1 * max(min(length, 20) - 7, 0) + 0.05 * max(length - 20, 0)
        let upper = min(Int((length + delta).rounded(.toNearestOrEven)), maximumInterval)
        let lower = min(max(2, shortest, Int((length - delta).rounded(.toNearestOrEven))), upper)
        return min(max(pick(lower, upper), shortest), maximumInterval)
    }
}
