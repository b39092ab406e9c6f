import Foundation

/// How a person rated a review (FSRS's four buttons).
public enum Rating: Int, Sendable, Codable, CaseIterable {
    case again = 1
    case hard = 2
    case good = 3
    case easy = 4
}

/// Where a card is in its life: still learning, reviewed at day-scale intervals, or relearning after a lapse.
public enum SchedulingPhase: String, Sendable, Codable, CaseIterable {
    case learning
    case review
    case relearning
}

/// A card's memory and schedule. A card never reviewed is `learning` at step 0 with no stability.
public struct MemoryState: Sendable, Equatable, Codable {
    public var phase: SchedulingPhase
    /// The learning or relearning step; nil in `review`.
    public var step: Int?
    public var stability: Double?
    public var difficulty: Double?
    public var due: Date
    public var lastReview: Date?

    public init(
        phase: SchedulingPhase = .learning, step: Int? = 0, stability: Double? = nil, difficulty: Double? = nil,
        due: Date, lastReview: Date? = nil
    ) {
        self.phase = phase
        self.step = step
        self.stability = stability
        self.difficulty = difficulty
        self.due = due
        self.lastReview = lastReview
    }

    /// A card that has never been reviewed, due at `now`.
    public static func new(at now: Date) -> MemoryState { MemoryState(due: now) }
}

/// FSRS-6's 21 parameters (w0…w20), checked against the bounds FSRS itself enforces.
public struct FSRSParameters: Sendable, Equatable, Codable {
    public let values: [Double]

    public static let defaultValues: [Double] = [
        0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614,
        0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542,
    ]

    static let stabilityMinimum = 0.001
    static let lowerBounds: [Double] = [
        0.001, 0.001, 0.001, 0.001, 1.0, 0.001, 0.001, 0.001, 0.0, 0.0, 0.001, 0.001, 0.001, 0.001, 0.0, 0.0, 1.0,
        0.0, 0.0, 0.0, 0.1,
    ]
    static let upperBounds: [Double] = [
        100, 100, 100, 100, 10.0, 4.0, 4.0, 0.75, 4.5, 0.8, 3.5, 5.0, 0.25, 0.9, 4.0, 1.0, 6.0, 2.0, 2.0, 0.8, 0.8,
    ]

    public static let defaults = try! FSRSParameters(defaultValues)

    /// Parameters as the command line and the web's forms give them: 21 numbers, comma-separated.
    public init(parsing text: String) throws {
        let values = try text.split(separator: ",").enumerated().map { index, text in
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)) else {
                throw SchedulingError.invalidParameters("parameter w\(index) '\(text)' is not a number")
            }
            return value
        }
        try self.init(values)
    }

    /// Refuses a list of the wrong length, or a value outside its bounds, naming the parameter.
    public init(_ values: [Double]) throws {
        guard values.count == Self.lowerBounds.count else {
            throw SchedulingError.invalidParameters("FSRS-6 takes 21 parameters (w0…w20), got \(values.count)")
        }
        for (index, value) in values.enumerated()
        where !(Self.lowerBounds[index]...Self.upperBounds[index]).contains(value) {
            throw SchedulingError.invalidParameters(
                "parameter w\(index) = \(value) is outside FSRS's bounds \(Self.lowerBounds[index])…\(Self.upperBounds[index])"
            )
        }
        self.values = values
    }

    subscript(_ index: Int) -> Double { values[index] }
}

public enum SchedulingError: Error, Equatable, Sendable, LocalizedError {
    case invalidParameters(String)
    case invalidOption(String)

    public var errorDescription: String? {
        switch self {
        case .invalidParameters(let message), .invalidOption(let message): message
        }
    }
}

/// The FSRS-6 scheduler, a port of py-fsrs 6 rule for rule (so the two agree number for number):
/// memory stability and difficulty after each rating, learning and relearning steps, day-scale
/// intervals for the desired retention, optional interval fuzz.
public struct Scheduler: Sendable, Equatable {
    public let parameters: FSRSParameters
    public let desiredRetention: Double
    public let learningSteps: [TimeInterval]
    public let relearningSteps: [TimeInterval]
    public let maximumInterval: Int
    private let decay: Double
    private let factor: Double

    public init(
        parameters: FSRSParameters = .defaults, desiredRetention: Double = 0.9,
        learningSteps: [TimeInterval] = [60, 600], relearningSteps: [TimeInterval] = [600],
        maximumInterval: Int = 36_500
    ) throws {
        guard desiredRetention > 0 && desiredRetention < 1 else {
            throw SchedulingError.invalidOption("desired retention must be between 0 and 1, got \(desiredRetention)")
        }
        guard maximumInterval >= 1 else {
            throw SchedulingError.invalidOption("maximum interval must be 1 day or more, got \(maximumInterval)")
        }
        guard (learningSteps + relearningSteps).allSatisfy({ $0 > 0 }) else {
            throw SchedulingError.invalidOption("steps must be positive durations")
        }
        self.parameters = parameters
        self.desiredRetention = desiredRetention
        self.learningSteps = learningSteps
        self.relearningSteps = relearningSteps
        self.maximumInterval = maximumInterval
        decay = -parameters[20]
        factor = pow(0.9, 1 / decay) - 1
    }

    /// The probability of recalling the card at `date`: 0 for a card never reviewed. Elapsed time is
    /// counted in whole days since the last review, as py-fsrs counts it.
    public func retrievability(of card: MemoryState, at date: Date) -> Double {
        guard let lastReview = card.lastReview, let stability = card.stability else { return 0 }
        let elapsedDays = max(0, Self.wholeDays(from: lastReview, to: date))
        return pow(1 + factor * Double(elapsedDays) / stability, decay)
    }

    /// The probability of recall `days` (any fraction) after a review that left `stability`.
    func retrievability(days: Double, _ stability: Double) -> Double {
        pow(1 + factor * days / stability, decay)
    }

    /// The card after a review with `rating` at `date`. `fuzz`, when given, spreads day intervals
    /// (±15/10/5 % bands) so cards learned together do not stay due together.
    public func review(
        _ card: MemoryState, rating: Rating, at date: Date, fuzz: ((ClosedRange<Int>) -> Int)? = nil
    ) -> MemoryState {
        var next = card
        let daysSinceLastReview = card.lastReview.map { Self.wholeDays(from: $0, to: date) }
        let sameDay = daysSinceLastReview.map { $0 < 1 } ?? false
        var interval: Interval

        switch card.phase {
        case .learning, .relearning:
            let steps = card.phase == .learning ? learningSteps : relearningSteps
            if let stability = card.stability, let difficulty = card.difficulty {
                next.stability =
                    sameDay
                    ? shortTermStability(stability, rating)
                    : nextStability(difficulty, stability, retrievability(of: card, at: date), rating)
                next.difficulty = nextDifficulty(difficulty, rating)
            } else {
                next.stability = initialStability(rating)
                next.difficulty = clampDifficulty(initialDifficulty(rating))
            }
            let step = card.step ?? 0
            if steps.isEmpty || (step >= steps.count && rating != .again) {
                interval = .days(nextInterval(next.stability!))
            } else {
                switch rating {
                case .again:
                    next.step = 0
                    interval = .seconds(steps[0])
                case .hard:
                    if step == 0 && steps.count == 1 {
                        interval = .seconds(steps[0] * 1.5)
                    } else if step == 0 {
                        interval = .seconds((steps[0] + steps[1]) / 2)
                    } else {
                        interval = .seconds(steps[step])
                    }
                case .good:
                    if step + 1 == steps.count {
                        interval = .days(nextInterval(next.stability!))
                    } else {
                        next.step = step + 1
                        interval = .seconds(steps[step + 1])
                    }
                case .easy:
                    interval = .days(nextInterval(next.stability!))
                }
            }
        case .review:
            let stability = card.stability ?? initialStability(rating)
            let difficulty = card.difficulty ?? clampDifficulty(initialDifficulty(rating))
            next.stability =
                sameDay
                ? shortTermStability(stability, rating)
                : nextStability(difficulty, stability, retrievability(of: card, at: date), rating)
            next.difficulty = nextDifficulty(difficulty, rating)
            if rating == .again && !relearningSteps.isEmpty {
                next.phase = .relearning
                next.step = 0
                interval = .seconds(relearningSteps[0])
            } else {
                interval = .days(nextInterval(next.stability!))
            }
        }

        if case .days(let days) = interval {
            // A day-scale interval means the card has left its steps.
            next.phase = .review
            next.step = nil
            interval = .days(fuzz.map { fuzzed(days, using: $0) } ?? days)
        }
        next.due = date.addingTimeInterval(interval.seconds)
        next.lastReview = date
        return next
    }

    private enum Interval {
        case seconds(TimeInterval)
        case days(Int)

        var seconds: TimeInterval {
            switch self {
            case .seconds(let seconds): seconds
            case .days(let days): Double(days) * 86_400
            }
        }
    }

    // MARK: The FSRS-6 formulas

    private func clampDifficulty(_ difficulty: Double) -> Double { min(max(difficulty, 1), 10) }

    private func clampStability(_ stability: Double) -> Double { max(stability, FSRSParameters.stabilityMinimum) }

    func initialStability(_ rating: Rating) -> Double { clampStability(parameters[rating.rawValue - 1]) }

    func initialDifficulty(_ rating: Rating) -> Double {
        parameters[4] - pow(M_E, parameters[5] * Double(rating.rawValue - 1)) + 1
    }

    /// The interval in whole days for the desired retention (Python's `round`: half to even).
    func nextInterval(_ stability: Double) -> Int {
        let days = (stability / factor) * (pow(desiredRetention, 1 / decay) - 1)
        return min(max(Int(days.rounded(.toNearestOrEven)), 1), maximumInterval)
    }

    func shortTermStability(_ stability: Double, _ rating: Rating) -> Double {
        var increase =
            pow(M_E, parameters[17] * (Double(rating.rawValue) - 3 + parameters[18])) * pow(stability, -parameters[19])
        if rating != .again { increase = max(increase, 1) }
        return clampStability(stability * increase)
    }

    func nextDifficulty(_ difficulty: Double, _ rating: Rating) -> Double {
        let easyDifficulty = initialDifficulty(.easy)
        let delta = -(parameters[6] * (Double(rating.rawValue) - 3))
        let damped = difficulty + (10 - difficulty) * delta / 9
        return clampDifficulty(parameters[7] * easyDifficulty + (1 - parameters[7]) * damped)
    }

    func nextStability(_ difficulty: Double, _ stability: Double, _ retrievability: Double, _ rating: Rating)
        -> Double
    {
        if rating == .again {
            let longTerm =
                parameters[11] * pow(difficulty, -parameters[12]) * (pow(stability + 1, parameters[13]) - 1)
                * pow(M_E, (1 - retrievability) * parameters[14])
            let shortTerm = stability / pow(M_E, parameters[17] * parameters[18])
            return clampStability(min(longTerm, shortTerm))
        }
        let hardPenalty = rating == .hard ? parameters[15] : 1
        let easyBonus = rating == .easy ? parameters[16] : 1
        return clampStability(
            stability
                * (1 + pow(M_E, parameters[8]) * (11 - difficulty) * pow(stability, -parameters[9])
                    * (pow(M_E, (1 - retrievability) * parameters[10]) - 1) * hardPenalty * easyBonus))
    }

    /// py-fsrs's fuzz: intervals of 2.5 days or more move within a band that widens by 15 % of the
    /// days between 2.5 and 7, 10 % between 7 and 20, and 5 % beyond.
    private func fuzzed(_ days: Int, using pick: (ClosedRange<Int>) -> Int) -> Int {
        guard Double(days) >= 2.5 else { return days }
        var delta = 1.0
        for (start, end, share) in [(2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, Double.infinity, 0.05)] {
            delta += share * max(min(Double(days), end) - start, 0)
        }
        let upper = min(Int((Double(days) + delta).rounded(.toNearestOrEven)), maximumInterval)
        let lower = min(max(2, Int((Double(days) - delta).rounded(.toNearestOrEven))), upper)
        return min(pick(lower...upper), maximumInterval)
    }

    /// Whole 24-hour periods from `start` to `end` (negative when `end` is earlier), like Python's
    /// `timedelta.days`.
    public static func wholeDays(from start: Date, to end: Date) -> Int {
        Int((end.timeIntervalSince(start) / 86_400).rounded(.down))
    }
}
