import Foundation

/// The ranges of the values studying reads: what a deck's settings may be set to, and what a card's
/// schedule and a review may hold, as the engine produces them. Declared here once: the setters
/// refuse values outside them, the sync registry refuses a pushed value outside them, and the
/// scheduler clamps a stored value into them, so a value from an older store or a hostile device is
/// refused or clamped, never a trap.
public enum StudyRanges {
    /// How sure a person wants to be to remember a card when it comes due (the deck page's 0.7 to 0.99).
    public static let desiredRetention = StudyBounds.desiredRetention
    /// The longest interval, in days: a hundred years, Anki's and FSRS's ceiling.
    public static let maximumInterval = StudyBounds.maximumInterval
    /// New cards and reviews a day (Anki's own limit is 9,999; a little room above it).
    public static let dailyLimit = StudyBounds.dailyLimit
    /// A card's reviews and lapses: far more than a lifetime of daily study gives.
    public static let answerCount = StudyBounds.answerCount
    /// A memory's stability, in days: FSRS's floor, and a ceiling past any span a stored time can
    /// hold (`FSRSStep.stabilityMaximum`, which keeps every value finite).
    public static let stability = 0.001...10_000_000.0
    /// FSRS's bounds on a card's difficulty.
    public static let difficulty = 1.0...10.0
    /// The place of a card in its learning or relearning steps.
    public static let stepIndex = 0...(StudySteps.mostSteps)
    /// How long one answer took, in milliseconds: at most a day (an answer left open overnight).
    public static let answerDuration = StudyBounds.answerDuration
    /// Whole days between two reviews: at most the span of the times a record may hold.
    public static let elapsedDays = StudyBounds.elapsedDays

    /// FSRS-6's bounds on its 21 parameters (w0…w20), as its optimizer clamps them.
    public static let parameterLowerBounds = StudyBounds.parameterLowerBounds
    public static let parameterUpperBounds = StudyBounds.parameterUpperBounds

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

/// The times a record may hold: milliseconds since 1970, within what a hybrid logical clock can
/// stamp (48 bits of milliseconds, to the year 10889). A time outside is refused on the wire and
/// clamped where a stored one is read into arithmetic.
public enum StoredTime {
    public static let latestMilliseconds = StudyBounds.latestMilliseconds
    public static let milliseconds = 0...latestMilliseconds

    /// `date` in whole milliseconds, clamped into the window (a date past it is the window's end).
    public static func clampedMilliseconds(_ date: Date, rounding: FloatingPointRoundingRule = .down) -> Int64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(rounding)
        guard milliseconds.isFinite else { return milliseconds > 0 ? latestMilliseconds : 0 }
        return Int64(min(max(milliseconds, 0), Double(latestMilliseconds)))
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
