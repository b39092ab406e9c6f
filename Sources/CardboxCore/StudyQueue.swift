import Foundation

/// Which part of today's queue a card comes from.
public enum StudyQueuePart: String, Codable, Sendable, Equatable {
    case learning, review, new
}

/// What is left of a deck's daily limits today.
public struct DailyAllowance: Sendable, Equatable {
    public var new: Int
    public var review: Int

    public init(new: Int, review: Int) {
        self.new = new
        self.review = review
    }
}

/// Anki's study queue as a decision that reads nothing and writes nothing: which cards come up today
/// and in what order. The store only fetches the candidates it asks for and loads the cards chosen.
public enum StudyQueuePolicy {
    /// Anki's learn-ahead limit: when nothing else is left, learning cards due this soon are shown
    /// rather than ending the session.
    public static let learnAhead: TimeInterval = 20 * 60

    /// What a deck may still show today: its daily limits less the new cards and reviews answered
    /// since the study day began (learning steps do not count against either).
    public static func allowance(_ settings: StudySettings, answeredToday: (new: Int, review: Int)) -> DailyAllowance {
        DailyAllowance(
            new: max(0, settings.newCardsPerDay - answeredToday.new),
            review: max(0, settings.reviewsPerDay - answeredToday.review))
    }

    /// Learning and relearning cards are candidates when due by this time.
    public static func learningHorizon(now: Date) -> Date { now.addingTimeInterval(learnAhead) }

    /// Review cards are candidates when due before the study day ends.
    public static func reviewHorizon(_ day: StudyDay) -> Date { day.end }

    /// The first `limit` cards of the queue: learning cards due now (earliest first), then reviews due
    /// today (earliest first), then new cards (in the order they were added), then learning cards
    /// due within the learn-ahead limit. Each part is asked for only while the parts before it leave
    /// room, and only for as many as fit, so a large collection is never read whole.
    ///
    /// - Parameters:
    ///   - learning: learning and relearning cards due by `learningHorizon(now:)`, at most `limit`.
    ///   - reviews: review cards due before `reviewHorizon`, at most the room given (and each deck's
    ///     allowance), earliest first.
    ///   - new: new cards, at most the room given (and each deck's allowance), oldest first.
    public static func queue<Candidate>(
        limit: Int, now: Date, due: (Candidate) -> Date?, learning: () throws -> [Candidate],
        reviews: (_ room: Int) throws -> [Candidate], new: (_ room: Int) throws -> [Candidate]
    ) rethrows -> [(card: Candidate, part: StudyQueuePart)] {
        guard limit > 0 else { return [] }
        let byDue = { (left: Candidate, right: Candidate) in
            (due(left) ?? .distantPast) < (due(right) ?? .distantPast)
        }
        let learningCards = try learning().sorted(by: byDue)
        let dueNow = learningCards.filter { (due($0) ?? .distantPast) <= now }
        let dueSoon = learningCards.filter { (due($0) ?? .distantPast) > now }
        var room = limit - dueNow.count
        let reviewCards = room > 0 ? try Array(reviews(room).sorted(by: byDue).prefix(room)) : []
        room -= reviewCards.count
        let newCards = room > 0 ? try Array(new(room).prefix(room)) : []
        let ordered =
            dueNow.map { ($0, StudyQueuePart.learning) } + reviewCards.map { ($0, .review) }
            + newCards.map { ($0, .new) } + dueSoon.map { ($0, .learning) }
        return Array(ordered.prefix(limit)).map { (card: $0.0, part: $0.1) }
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
