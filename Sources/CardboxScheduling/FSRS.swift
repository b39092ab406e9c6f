import CardboxCore
import CardboxFSRS
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

    public static let defaultValues = StudyDefaults.parameters

    static let stabilityMinimum = FSRSStep.stabilityMinimum
    static let lowerBounds = StudyRanges.parameterLowerBounds
    static let upperBounds = StudyRanges.parameterUpperBounds

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
        if let problem = StudyRanges.parametersProblem(values) { throw SchedulingError.invalidParameters(problem) }
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
/// intervals for the desired retention, optional interval fuzz. The rules themselves are
/// `CardboxFSRS.FSRSStep`, the code the browser runs too; this gives them dates and checked settings.
public struct Scheduler: Sendable, Equatable {
    public let parameters: FSRSParameters
    public let desiredRetention: Double
    public let learningSteps: [TimeInterval]
    public let relearningSteps: [TimeInterval]
    public let maximumInterval: Int
    private let step: FSRSStep

    public init(
        parameters: FSRSParameters = .defaults, desiredRetention: Double = 0.9,
        learningSteps: [TimeInterval] = [60, 600], relearningSteps: [TimeInterval] = [600],
        maximumInterval: Int = 36_500
    ) throws {
        guard desiredRetention > 0 && desiredRetention < 1 else {
            throw SchedulingError.invalidOption("desired retention must be between 0 and 1, got \(desiredRetention)")
        }
        guard (1...FSRSStep.longestInterval).contains(maximumInterval) else {
            throw SchedulingError.invalidOption(
                "maximum interval must be from 1 to \(FSRSStep.longestInterval) days, got \(maximumInterval)")
        }
        guard (learningSteps + relearningSteps).allSatisfy({ $0 > 0 }) else {
            throw SchedulingError.invalidOption("steps must be positive durations")
        }
        self.parameters = parameters
        self.desiredRetention = desiredRetention
        self.learningSteps = learningSteps
        self.relearningSteps = relearningSteps
        self.maximumInterval = maximumInterval
        step = FSRSStep(
            weights: InlineArray { parameters[$0] }, desiredRetention: desiredRetention,
            maximumInterval: maximumInterval)
    }

    public static func == (left: Scheduler, right: Scheduler) -> Bool {
        (left.parameters, left.desiredRetention, left.maximumInterval) == (
            right.parameters, right.desiredRetention, right.maximumInterval
        ) && left.learningSteps == right.learningSteps && left.relearningSteps == right.relearningSteps
    }

    /// The probability of recalling the card at `date`: 0 for a card never reviewed. Elapsed time is
    /// counted in whole days since the last review, as py-fsrs counts it.
    public func retrievability(of card: MemoryState, at date: Date) -> Double {
        step.retrievability(of: FSRSStep.Card(card), at: date.timeIntervalSince1970)
    }

    /// The probability of recall `days` (any fraction) after a review that left `stability`.
    func retrievability(days: Double, _ stability: Double) -> Double { step.retrievability(days: days, stability) }

    /// The card after a review with `rating` at `date`. `fuzz`, when given, spreads day intervals
    /// (±15/10/5 % bands) so cards learned together do not stay due together.
    public func review(
        _ card: MemoryState, rating: Rating, at date: Date, fuzz: ((ClosedRange<Int>) -> Int)? = nil
    ) -> MemoryState {
        let next = learningSteps.withUnsafeBufferPointer { learning in
            relearningSteps.withUnsafeBufferPointer { relearning in
                step.review(
                    FSRSStep.Card(card), rating: rating.rawValue, at: date.timeIntervalSince1970,
                    learningSteps: learning, relearningSteps: relearning, fuzz: fuzz != nil
                ) { lower, upper in fuzz?(lower...upper) ?? lower }
            }
        }
        return MemoryState(next)
    }

    // MARK: The FSRS-6 formulas, for the simulator

    func initialStability(_ rating: Rating) -> Double { step.initialStability(rating.rawValue) }

    func initialDifficulty(_ rating: Rating) -> Double { step.initialDifficulty(rating.rawValue) }

    func nextInterval(_ stability: Double) -> Int { step.nextInterval(stability) }

    func shortTermStability(_ stability: Double, _ rating: Rating) -> Double {
        step.shortTermStability(stability, rating.rawValue)
    }

    func nextDifficulty(_ difficulty: Double, _ rating: Rating) -> Double {
        step.nextDifficulty(difficulty, rating.rawValue)
    }

    func nextStability(_ difficulty: Double, _ stability: Double, _ retrievability: Double, _ rating: Rating)
        -> Double
    {
        step.nextStability(difficulty, stability, retrievability, rating.rawValue)
    }

    /// Whole 24-hour periods from `start` to `end` (negative when `end` is earlier), like Python's
    /// `timedelta.days`.
    public static func wholeDays(from start: Date, to end: Date) -> Int {
        FSRSStep.wholeDays(from: start.timeIntervalSince1970, to: end.timeIntervalSince1970)
    }
}

extension FSRSStep.Card {
    init(_ state: MemoryState) {
        self.init(
            phase: FSRSStep.Phase(state.phase), step: state.step, stability: state.stability,
            difficulty: state.difficulty, due: state.due.timeIntervalSince1970,
            lastReview: state.lastReview?.timeIntervalSince1970)
    }
}

extension FSRSStep.Phase {
    init(_ phase: SchedulingPhase) {
        switch phase {
        case .learning: self = .learning
        case .review: self = .review
        case .relearning: self = .relearning
        }
    }
}

extension MemoryState {
    init(_ card: FSRSStep.Card) {
        let phase: SchedulingPhase =
            switch card.phase {
            case .learning: .learning
            case .review: .review
            case .relearning: .relearning
            }
        self.init(
            phase: phase, step: card.step, stability: card.stability,
            difficulty: card.difficulty, due: Date(timeIntervalSince1970: card.due),
            lastReview: card.lastReview.map { Date(timeIntervalSince1970: $0) })
    }
}
