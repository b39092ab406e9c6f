import Foundation

/// The ranges of the values studying reads: what a deck's settings may be set to, and what a card's
/// schedule and a review may hold, as the engine produces them. Declared here once: the setters
/// refuse values outside them, the sync registry refuses a pushed value outside them, and the
/// scheduler clamps a stored value into them, so a value from an older store or a hostile device is
/// refused or clamped, never a trap.
public enum StudyRanges {
    /// How sure a person wants to be to remember a card when it comes due (the deck page's 0.7 to 0.99).
    public static let desiredRetention = 0.70...0.99
    /// The longest interval, in days: a hundred years, Anki's and FSRS's ceiling.
    public static let maximumInterval = 1...36_500
    /// New cards and reviews a day (Anki's own limit is 9,999; a little room above it).
    public static let dailyLimit = 0...99_999
    /// A card's reviews and lapses: far more than a lifetime of daily study gives.
    public static let answerCount = 0...100_000
    /// A memory's stability, in days: FSRS's floor, and a ceiling past any span a stored time can
    /// hold (`FSRSStep.stabilityMaximum`, which keeps every value finite).
    public static let stability = 0.001...10_000_000.0
    /// FSRS's bounds on a card's difficulty.
    public static let difficulty = 1.0...10.0
    /// The place of a card in its learning or relearning steps.
    public static let stepIndex = 0...(StudySteps.mostSteps)
    /// How long one answer took, in milliseconds: at most a day (an answer left open overnight).
    public static let answerDuration = 0...86_400_000
    /// Whole days between two reviews: at most the span of the times a record may hold.
    public static let elapsedDays = 0...Int(StoredTime.latestMilliseconds / 86_400_000)

    /// FSRS-6's bounds on its 21 parameters (w0…w20), as its optimizer clamps them.
    public static let parameterLowerBounds: [Double] = [
        0.001, 0.001, 0.001, 0.001, 1.0, 0.001, 0.001, 0.001, 0.0, 0.0, 0.001, 0.001, 0.001, 0.001, 0.0, 0.0, 1.0,
        0.0, 0.0, 0.0, 0.1,
    ]
    public static let parameterUpperBounds: [Double] = [
        100, 100, 100, 100, 10.0, 4.0, 4.0, 0.75, 4.5, 0.8, 3.5, 5.0, 0.25, 0.9, 4.0, 1.0, 6.0, 2.0, 2.0, 0.8, 0.8,
    ]

    /// Why a list of FSRS parameters is not 21 numbers within their bounds, or nil.
    public static func parametersProblem(_ values: [Double]) -> String? {
        guard values.count == parameterLowerBounds.count else {
            return "FSRS-6 takes 21 parameters (w0…w20), got \(values.count)"
        }
        for (index, value) in values.enumerated()
        where !(parameterLowerBounds[index]...parameterUpperBounds[index]).contains(value) {
            return
                "parameter w\(index) = \(value) is outside FSRS's bounds \(parameterLowerBounds[index])…\(parameterUpperBounds[index])"
        }
        return nil
    }

    /// The parameters a deck's `fsrsParameters` column holds (a JSON array of numbers), or why it
    /// holds none that FSRS can use.
    public static func storedParameters(_ text: String) -> Result<[Double], StudyValueProblem> {
        guard case .array(let items)? = try? JSONValue.parse(text, field: "fsrsParameters") else {
            return .failure(StudyValueProblem("must be a JSON array of 21 numbers"))
        }
        var values: [Double] = []
        for item in items {
            switch item {
            case .int(let whole): values.append(Double(whole))
            case .double(let real): values.append(real)
            default: return .failure(StudyValueProblem("must be a JSON array of 21 numbers"))
            }
        }
        if let problem = parametersProblem(values) { return .failure(StudyValueProblem(problem)) }
        return .success(values)
    }
}

/// Why a study value is refused: the sentence an error gives after the field's name.
public struct StudyValueProblem: Error, Equatable, Sendable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// The times a record may hold: milliseconds since 1970, within what a hybrid logical clock can
/// stamp (48 bits of milliseconds, to the year 10889). A time outside is refused on the wire and
/// clamped where a stored one is read into arithmetic.
public enum StoredTime {
    public static let latestMilliseconds: Int64 = (1 << 48) - 1
    public static let milliseconds = 0...latestMilliseconds

    /// `date` in whole milliseconds, clamped into the window (a date past it is the window's end).
    public static func clampedMilliseconds(_ date: Date, rounding: FloatingPointRoundingRule = .down) -> Int64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(rounding)
        guard milliseconds.isFinite else { return milliseconds > 0 ? latestMilliseconds : 0 }
        return Int64(min(max(milliseconds, 0), Double(latestMilliseconds)))
    }
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

extension StudySettings {
    /// Refuses settings outside `StudyRanges`, naming the setting: what every setter checks.
    public func validate() throws {
        func refuse(_ field: String, _ reason: String) -> CardboxError { .invalid(field: field, reason: reason) }
        func range<Bound>(_ range: ClosedRange<Bound>) -> String { "from \(range.lowerBound) to \(range.upperBound)" }
        guard StudyRanges.desiredRetention.contains(desiredRetention) else {
            throw refuse("desired retention", "must be \(range(StudyRanges.desiredRetention)), got \(desiredRetention)")
        }
        guard StudyRanges.maximumInterval.contains(maximumInterval) else {
            throw refuse(
                "maximum interval", "must be \(range(StudyRanges.maximumInterval)) days, got \(maximumInterval)")
        }
        for (field, text) in [("learning steps", learningSteps), ("relearning steps", relearningSteps)] {
            if case .failure(let problem) = StudySteps.parse(text) { throw refuse(field, problem.reason) }
        }
        for (field, value) in [("new cards a day", newCardsPerDay), ("reviews a day", reviewsPerDay)]
        where !StudyRanges.dailyLimit.contains(value) {
            throw refuse(field, "must be \(range(StudyRanges.dailyLimit)), got \(value)")
        }
        if let fsrsParameters, let problem = StudyRanges.parametersProblem(fsrsParameters) {
            throw refuse("FSRS parameters", problem)
        }
    }

    /// The settings as the scheduler can use them: each value outside its range moved to the
    /// nearest one inside, steps or parameters it cannot read replaced by the defaults. What a
    /// deck an older store or another device holds is studied with, never refused.
    public var clampedForStudy: StudySettings {
        var settings = self
        let defaults = StudySettings()
        settings.desiredRetention =
            desiredRetention.isNaN
            ? defaults.desiredRetention : desiredRetention.clamped(to: StudyRanges.desiredRetention)
        settings.maximumInterval = maximumInterval.clamped(to: StudyRanges.maximumInterval)
        settings.newCardsPerDay = newCardsPerDay.clamped(to: StudyRanges.dailyLimit)
        settings.reviewsPerDay = reviewsPerDay.clamped(to: StudyRanges.dailyLimit)
        if case .failure = StudySteps.parse(learningSteps) { settings.learningSteps = defaults.learningSteps }
        if case .failure = StudySteps.parse(relearningSteps) { settings.relearningSteps = defaults.relearningSteps }
        if let fsrsParameters, StudyRanges.parametersProblem(fsrsParameters) != nil { settings.fsrsParameters = nil }
        return settings
    }
}

extension Comparable {
    /// The value, or the nearest end of `range` when it lies outside.
    public func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
