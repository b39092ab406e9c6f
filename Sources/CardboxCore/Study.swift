import CardboxFSRS
import Foundation
import Synchronization

/// One answer to a card, kept with the state it changed: the review history FSRS learns from and
/// that undo rolls back.
public struct ReviewLogEntry: Codable, Sendable, Equatable, Identifiable {
    public var id: ReviewID
    public var cardId: CardID
    public var deckId: DeckID
    /// 1 again, 2 hard, 3 good, 4 easy.
    public var rating: Int
    public var reviewedAt: Date
    public var stateBefore: CardState
    public var stateAfter: CardState
    /// Whole days since the card's previous review (0 for its first).
    public var elapsedDays: Int
    /// How long the answer took, in milliseconds, when known.
    public var durationMs: Int?

    public init(
        id: ReviewID, cardId: CardID, deckId: DeckID, rating: Int, reviewedAt: Date, stateBefore: CardState,
        stateAfter: CardState, elapsedDays: Int, durationMs: Int?
    ) {
        self.id = id
        self.cardId = cardId
        self.deckId = deckId
        self.rating = rating
        self.reviewedAt = reviewedAt
        self.stateBefore = stateBefore
        self.stateAfter = stateAfter
        self.elapsedDays = elapsedDays
        self.durationMs = durationMs
    }
}

/// What is left to study today: learning cards due now, reviews due today, new cards (within the
/// daily limits).
public struct StudyCounts: Codable, Sendable, Equatable {
    public var learning: Int
    public var review: Int
    public var new: Int

    public init(learning: Int = 0, review: Int = 0, new: Int = 0) {
        self.learning = learning
        self.review = review
        self.new = new
    }

    public var total: Int { learning + review + new }
}

/// The study day: it starts at a set hour of local time (Anki's "next day starts at", default 4 a.m.),
/// so a late-night session counts toward the day it belongs to.
public struct StudyDay: Sendable, Equatable {
    public var start: Date
    public var end: Date

    /// Every day starts at the hour on its own calendar date and ends where the next one starts, so
    /// the days meet end to end across a daylight-saving change (counting the hours from midnight
    /// would start the day after a 2 a.m. change at 5 a.m. while the day before ended at 4). An hour
    /// the change skips starts the day at the next hour there is.
    public init(containing date: Date, startHour: Int, timeZone: TimeZone) {
        // Days meet end to end, so the day last made holds every later moment it covers: every study
        // step asks, and the calendar's arithmetic costs more than the rest of a queue's reads.
        if let last = Self.lastMade.withLock({ $0 }), last.startHour == startHour, last.timeZone == timeZone,
            last.day.start <= date, date < last.day.end
        {
            self = last.day
            return
        }
        self.init(computing: date, startHour: startHour, timeZone: timeZone)
        let day = self
        Self.lastMade.withLock { $0 = (startHour, timeZone, day) }
    }

    private static let lastMade = Mutex<(startHour: Int, timeZone: TimeZone, day: StudyDay)?>(nil)

    private init(computing date: Date, startHour: Int, timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let onItsDate = Self.hour(startHour, on: date, calendar)
        start =
            onItsDate <= date
            ? onItsDate : Self.hour(startHour, on: calendar.date(byAdding: .day, value: -1, to: date)!, calendar)
        end = Self.hour(startHour, on: calendar.date(byAdding: .day, value: 1, to: start)!, calendar)
    }

    private static func hour(_ hour: Int, on day: Date, _ calendar: Calendar) -> Date {
        calendar.date(bySettingHour: hour, minute: 0, second: 0, of: day)!
    }

    /// The start of the study day `days` days from this one (negative: earlier), by the calendar: a
    /// day across a daylight-saving change is 23 or 25 hours long, and every day starts at the same
    /// local hour.
    public func start(offsetBy days: Int, timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(byAdding: .day, value: days, to: start) ?? start
    }
}

/// Interval fuzz drawn from the card and its review count, as Anki seeds it: the same card at the same
/// point of its history always gets the same spread, so the interval a rating button shows is the one
/// the answer gives, and replaying a history gives the same schedule.
public enum IntervalFuzz {
    /// A picker for the scheduler's fuzz band (`Scheduler.review(_:rating:at:fuzz:)`).
    public static func picker(cardId: CardID, reps: Int) -> (ClosedRange<Int>) -> Int {
        let draw = FuzzPick(cardId: cardId, reps: reps)
        return { range in draw.pick(range.lowerBound, range.upperBound) }
    }
}

extension FuzzPick {
    /// The draw for a card's next answer: from its id and how many reviews it has had.
    public init(cardId: CardID, reps: Int) {
        let bytes = withUnsafeBytes(of: cardId.uuid.uuid) { Array($0) }
        let word = { (eight: ArraySlice<UInt8>) in eight.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        self.init(idHigh: word(bytes[..<8]), idLow: word(bytes[8...]), reps: Int64(reps))
    }
}

/// How far away a next due time is, as a study button shows it: 45s, 10m, 3h, 12d, 2.5mo, 1.2y.
public enum StudyInterval {
    /// The four answer buttons, ratings 1 to 4 (Anki's names).
    public static let buttons = WebPageModels.ratingNames

    public static func label(from start: Date, to end: Date) -> String {
        IntervalLabel.text(seconds: end.timeIntervalSince(start))
    }
}
