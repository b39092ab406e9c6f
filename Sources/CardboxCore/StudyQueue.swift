import Foundation

extension StudyQueuePart: Codable {}

/// What is left of a deck's daily limits today.
public struct DailyAllowance: Sendable, Equatable {
    public var new: Int
    public var review: Int

    public init(new: Int, review: Int) {
        self.new = new
        self.review = review
    }
}

/// Anki's study queue for a device's store: `StudyQueueOrder` (the browser's replica decides with
/// it too) with a deck's settings and dates.
public enum StudyQueuePolicy {
    /// Anki's learn-ahead limit: when nothing else is left, learning cards due this soon are shown
    /// rather than ending the session.
    public static let learnAhead = TimeInterval(StudyQueueOrder.learnAheadSeconds)

    /// What a deck may still show today: its daily limits less the new cards and reviews answered
    /// since the study day began (learning steps do not count against either).
    public static func allowance(_ settings: StudySettings, answeredToday: (new: Int, review: Int)) -> DailyAllowance {
        let left = StudyQueueOrder.allowance(
            newCardsPerDay: settings.newCardsPerDay, reviewsPerDay: settings.reviewsPerDay,
            answeredToday: answeredToday)
        return DailyAllowance(new: left.new, review: left.review)
    }

    /// Learning and relearning cards are candidates when due by this time.
    public static func learningHorizon(now: Date) -> Date { now.addingTimeInterval(learnAhead) }

    /// Review cards are candidates when due before the study day ends.
    public static func reviewHorizon(_ day: StudyDay) -> Date { day.end }

    /// `StudyQueueOrder.queue` over dates.
    public static func queue<Candidate, Failure: Error>(
        limit: Int, now: Date, due: (Candidate) -> Date?, learning: () throws(Failure) -> [Candidate],
        reviews: (_ room: Int) throws(Failure) -> [Candidate], new: (_ room: Int) throws(Failure) -> [Candidate]
    ) throws(Failure) -> [(card: Candidate, part: StudyQueuePart)] {
        try StudyQueueOrder.queue(limit: limit, now: now, due: due, learning: learning, reviews: reviews, new: new)
    }
}

extension Card {
    /// Anki's "forget": the card is new again, its memory and counts cleared (its review log stays).
    public func forgotten() -> Card {
        var card = self
        card.state = .new
        card.dueAt = nil
        card.step = nil
        card.stability = nil
        card.difficulty = nil
        card.lastReviewAt = nil
        card.reps = 0
        card.lapses = 0
        return card
    }

    /// Anki's "set due date": the card comes up on `date`. A new card becomes a review card, so it is
    /// studied as due rather than waiting in the new queue (its memory starts at its first answer).
    public func rescheduled(dueAt date: Date) -> Card {
        var card = self
        card.dueAt = date
        if card.state == .new { card.state = .review }
        return card
    }
}
