#if canImport(CardboxFSRS)
    import CardboxFSRS
#endif

/// Why a study value is refused: the sentence an error gives after the field's name.
public struct StudyValueProblem: Error, Equatable, Sendable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// The bounds studying holds its values to, for every replica: a device's store (`StudyRanges`
/// names them there) and the browser's.
public enum StudyBounds {
    /// How sure a person wants to be to remember a card when it comes due (the deck page's 0.7 to 0.99).
    public static let desiredRetention = 0.70...0.99
    /// The longest interval, in days: a hundred years, Anki's and FSRS's ceiling.
    public static let maximumInterval = 1...36_500
    /// New cards and reviews a day (Anki's own limit is 9,999; a little room above it).
    public static let dailyLimit = 0...99_999
    /// A card's reviews and lapses: far more than a lifetime of daily study gives.
    public static let answerCount = 0...100_000
    /// The latest time a record may hold, in milliseconds since 1970: what a hybrid logical clock
    /// can stamp (48 bits of milliseconds, to the year 10889).
    public static let latestMilliseconds: Int64 = (1 << 48) - 1
    /// Whole days between two reviews: at most the span of the times a record may hold.
    public static let elapsedDays = 0...Int(latestMilliseconds / 86_400_000)

    /// FSRS-6's bounds on its 21 parameters (w0…w20), as its optimizer clamps them.
    public static let parameterLowerBounds: [Double] = [
        0.001, 0.001, 0.001, 0.001, 1.0, 0.001, 0.001, 0.001, 0.0, 0.0, 0.001, 0.001, 0.001, 0.001, 0.0, 0.0, 1.0,
        0.0, 0.0, 0.0, 0.1,
    ]
    public static let parameterUpperBounds: [Double] = [
        100, 100, 100, 100, 10.0, 4.0, 4.0, 0.75, 4.5, 0.8, 3.5, 5.0, 0.25, 0.9, 4.0, 1.0, 6.0, 2.0, 2.0, 0.8, 0.8,
    ]

    /// Whether `values` are FSRS-6's 21 parameters, each within its bounds.
    public static func areParameters(_ values: [Double]) -> Bool {
        guard values.count == parameterLowerBounds.count else { return false }
        for index in values.indices
        where !(parameterLowerBounds[index] <= values[index] && values[index] <= parameterUpperBounds[index]) {
            return false
        }
        return true
    }

    /// A count of reviews or lapses after `more`, held to `answerCount` (a stored count past it stays
    /// at its end instead of overflowing).
    public static func counted(_ count: Int, adding more: Int) -> Int {
        min(max(count, answerCount.lowerBound), answerCount.upperBound - more) + more
    }

    /// Whole days from a card's previous review to this one (0 for its first), as the review log
    /// keeps them. Times are seconds since 1970.
    public static func elapsedDays(since previous: Double?, at now: Double) -> Int {
        guard let previous else { return 0 }
        return min(max(FSRSStep.wholeDays(from: previous, to: now), elapsedDays.lowerBound), elapsedDays.upperBound)
    }

    /// How long one answer took, in milliseconds: at most a day (an answer left open overnight).
    public static let answerDuration = 0...86_400_000

    /// Refuses a rating other than 1…4, or a duration outside `answerDuration`, naming it: what
    /// every replica checks before it answers a card.
    public static func checkAnswer(rating: Int, durationMs: Int?) throws(CardboxError) {
        guard (1...4).contains(rating) else {
            throw CardboxError.invalid(
                field: "rating", reason: "must be 1 (again), 2 (hard), 3 (good) or 4 (easy), got \(rating)")
        }
        if let durationMs, !answerDuration.contains(durationMs) {
            throw CardboxError.invalid(
                field: "duration", reason: "must be from 0 to 86400000 milliseconds (a day), got \(durationMs)")
        }
    }

    /// Anki counts a lapse when a review card is forgotten, not a card still being learned.
    public static func isLapse(rating: Int, stateBefore: String) -> Bool { rating == 1 && stateBefore == "review" }
}

/// Learning and relearning steps as a deck's settings write them: "1m,10m", each a positive number
/// and a unit (s, m, h or d), at most a year each, at most `mostSteps` of them.
public enum StudySteps {
    /// The longest step, in seconds: a year. A longer wait is a day interval's job.
    public static let longestSeconds: Double = 365 * 86_400
    /// As many as the browser's scheduler holds (`Wasm/FSRSExports.swift`'s `maximumSteps`).
    public static let mostSteps = 32

    /// The steps' durations in seconds, or why the text is not a list of steps.
    public static func parse(_ text: String) -> Result<[Double], StudyValueProblem> {
        var steps: [Double] = []
        for raw in text.split(separator: ",") {
            let step = trimmedOfSpaces(raw)
            guard let unit = step.last.flatMap(seconds(perUnit:)), let count = Double(step.dropLast()), count > 0
            else {
                return .failure(StudyValueProblem("'\(step.prefix(80))' is not a step like 1m, 10m, 1h, 30s or 2d"))
            }
            guard count * unit <= longestSeconds else {
                return .failure(StudyValueProblem("'\(step.prefix(80))' is longer than a year (365d)"))
            }
            steps.append(count * unit)
            guard steps.count <= mostSteps else {
                return .failure(StudyValueProblem("holds more than \(mostSteps) steps"))
            }
        }
        return .success(steps)
    }

    private static func seconds(perUnit unit: Character) -> Double? {
        switch unit {
        case "s": 1
        case "m": 60
        case "h": 3_600
        case "d": 86_400
        default: nil
        }
    }

    /// `text` without spaces and tabs at either end: `CharacterSet.whitespaces`, white space that
    /// is not a line break.
    private static func trimmedOfSpaces(_ text: Substring) -> Substring {
        let isSpace = { (character: Character) in character.isWhitespace && !character.isNewline }
        var text = text.drop(while: isSpace)
        while let last = text.last, isSpace(last) { text = text.dropLast() }
        return text
    }
}

/// Which part of today's queue a card comes from.
public enum StudyQueuePart: String, Sendable, Equatable {
    case learning, review, new
}

/// Anki's study queue as a decision that reads nothing and writes nothing: which cards come up today
/// and in what order, for a device's store (times as `Date`) and the browser's replica (milliseconds)
/// alike. The caller fetches only the candidates it is asked for.
public enum StudyQueueOrder {
    /// Anki's learn-ahead limit, in seconds: when nothing else is left, learning cards due this soon
    /// are shown rather than ending the session.
    public static let learnAheadSeconds = 20 * 60

    /// The first `limit` cards of the queue: learning cards due now (earliest first), then reviews due
    /// today (earliest first), then new cards (in the order given), then learning cards due within
    /// the learn-ahead limit. Each part is asked for only while the parts before it leave room, and
    /// only for as many as fit, so a large collection is never read whole. A candidate with no due
    /// time counts as due at once.
    ///
    /// - Parameters:
    ///   - learning: learning and relearning cards due within the learn-ahead limit, at most `limit`.
    ///   - reviews: review cards due before the study day ends, at most the room given (and each
    ///     deck's allowance), earliest first.
    ///   - new: new cards, at most the room given (and each deck's allowance), oldest first.
    public static func queue<Candidate, Time: Comparable, Failure: Error>(
        limit: Int, now: Time, due: (Candidate) -> Time?, learning: () throws(Failure) -> [Candidate],
        reviews: (_ room: Int) throws(Failure) -> [Candidate], new: (_ room: Int) throws(Failure) -> [Candidate]
    ) throws(Failure) -> [(card: Candidate, part: StudyQueuePart)] {
        guard limit > 0 else { return [] }
        func byDue(_ left: Candidate, _ right: Candidate) -> Bool {
            guard let right = due(right) else { return false }
            guard let left = due(left) else { return true }
            return left < right
        }
        func isDueNow(_ card: Candidate) -> Bool { due(card).map { $0 <= now } ?? true }
        let learningCards = try learning().sorted(by: byDue)
        let dueNow = learningCards.filter { isDueNow($0) }
        let dueSoon = learningCards.filter { !isDueNow($0) }
        var room = limit - dueNow.count
        let reviewCards = room > 0 ? Array(try reviews(room).sorted(by: byDue).prefix(room)) : []
        room -= reviewCards.count
        let newCards = room > 0 ? Array(try new(room).prefix(room)) : []
        var ordered: [(card: Candidate, part: StudyQueuePart)] = []
        for card in dueNow { ordered.append((card, .learning)) }
        for card in reviewCards { ordered.append((card, .review)) }
        for card in newCards { ordered.append((card, .new)) }
        for card in dueSoon { ordered.append((card, .learning)) }
        return Array(ordered.prefix(limit))
    }

    /// What a deck may still show today: its daily limits less the new cards and reviews answered
    /// since the study day began (learning steps do not count against either).
    public static func allowance(
        newCardsPerDay: Int, reviewsPerDay: Int, answeredToday: (new: Int, review: Int)
    ) -> (new: Int, review: Int) {
        (max(0, newCardsPerDay - answeredToday.new), max(0, reviewsPerDay - answeredToday.review))
    }
}

/// How far away a next due time is, as a study button shows it: 45s, 10m, 3h, 12d, 2.5mo, 1.2y.
public enum IntervalLabel {
    /// The label for `milliseconds` from now (a wait below zero reads 0s).
    public static func text(milliseconds: Int64) -> String { text(seconds: Double(milliseconds) / 1000) }

    /// The label for `seconds` from now, measured to the millisecond: a due time one step away can
    /// come out a hair short of it in floating point (59.9999999 s), which would read "60s" for a
    /// minute and "5m" for 5.5 minutes.
    public static func text(seconds: Double) -> String {
        let seconds = max(0, (seconds * 1000).rounded() / 1000)
        switch seconds {
        case ..<60: return "\(Int(seconds.rounded()))s"
        case ..<3_600: return "\(Int((seconds / 60).rounded()))m"
        case ..<86_400: return "\(Int((seconds / 3_600).rounded()))h"
        case ..<(30 * 86_400): return "\(Int((seconds / 86_400).rounded()))d"
        case ..<(365 * 86_400): return oneDecimal(seconds / (30 * 86_400)) + "mo"
        default: return oneDecimal(seconds / (365 * 86_400)) + "y"
        }
    }

    /// `value` (positive) to one decimal place, half away from zero; past a billion years it reads
    /// as a billion.
    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int(min((value * 10).rounded(), 1e10))
        return "\(tenths / 10).\(tenths % 10)"
    }
}
