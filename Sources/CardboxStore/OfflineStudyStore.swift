import CardboxCore
import CardboxScheduling
import Foundation
import GRDB

/// What a browser keeps to study a deck with no network: the deck (its study settings), the cards
/// of the study day under way as its queue would bring them up before the day ends (learning cards
/// falling due later today included), and when the day ends.
public struct OfflineStudy: Codable, Sendable, Equatable {
    public var deck: Deck
    public var cards: [Card]
    public var dayEnds: Date
}

/// An answer a page gave with no network, from its outbox.
public struct GivenAnswer: Codable, Sendable, Equatable {
    /// Chosen by the page, and kept as the review's id: an answer sent again changes nothing.
    public var id: ReviewID
    public var card: CardID
    public var rating: Int
    public var answeredAt: Date
    public var durationMs: Int?

    public init(id: ReviewID, card: CardID, rating: Int, answeredAt: Date, durationMs: Int? = nil) {
        self.id = id
        self.card = card
        self.rating = rating
        self.answeredAt = answeredAt
        self.durationMs = durationMs
    }

    /// What became of it.
    public enum Outcome: String, Codable, Sendable {
        /// Scheduled at the time it was given, as the page scheduled it.
        case applied
        /// Sent before: nothing changed.
        case alreadyApplied = "already-applied"
        /// The card was reviewed later elsewhere: the answer joins its history, the later review
        /// keeps deciding its schedule.
        case historyOnly = "history-only"
        /// The card was deleted, archived or moved to another deck meanwhile: nothing to answer.
        case cardGone = "card-gone"
    }
}

extension CardboxStore {
    /// The cards and settings a page needs to study `deckReference` offline until the study day ends.
    public func offlineStudy(in deckReference: DeckID) throws -> OfflineStudy {
        let now = environment.now()
        return try read { context in
            let deck = try context.deck(try context.existing(deckReference, .deck))
            let day = try context.studyDay(now: now)
            // The queue as it will stand at the day's last moment: everything due before then.
            let last = max(now, day.end.addingTimeInterval(-0.001))
            let cards = try context.studyQueue(deckReference, now: last, limit: 5_000).map(\.card)
            return OfflineStudy(deck: deck, cards: cards, dayEnds: day.end)
        }
    }

    /// Answers given offline, applied in the order given at the times they were given, in one
    /// transaction; each has an outcome. A malformed answer (a rating outside 1–4, a duration outside
    /// a day, a time before 1970 or ahead of this clock by more than five minutes) refuses them all
    /// and changes nothing.
    public func applyGivenAnswers(_ answers: [GivenAnswer], inDeck deckReference: DeckID) throws
        -> [GivenAnswer.Outcome]
    {
        let now = environment.now()
        let checked = try answers.map { answer in
            guard answer.answeredAt <= now.addingTimeInterval(300) else {
                throw CardboxError.invalid(
                    field: "answeredAt", reason: "\(answer.id) was given after this server's present time")
            }
            guard answer.answeredAt.timeIntervalSince1970 >= 0 else {
                throw CardboxError.invalid(field: "answeredAt", reason: "\(answer.id) was given before 1970")
            }
            return (answer, try Self.checkedRating(answer.rating, durationMs: answer.durationMs))
        }
        return try write { tx in
            _ = try tx.context.existing(deckReference, .deck)
            return try checked.map { answer, rating in try tx.apply(answer, rating: rating, deck: deckReference) }
        }
    }
}

extension WriteContext {
    func apply(_ answer: GivenAnswer, rating: Rating, deck: DeckID) throws -> GivenAnswer.Outcome {
        let known = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM reviewLog WHERE id = ?)"),
            arguments: [answer.id.storage])
        if known == true { return .alreadyApplied }
        let card: Card
        do {
            card = try context.card(answer.card.storage)
        } catch CardboxError.notFound {
            return .cardGone
        }
        guard card.deckId == deck, !card.isArchived else { return .cardGone }
        // The time to the nearest millisecond, as the page took it and the review log keeps it.
        let time = Date(storageMillis: WriteContext.millis(answer.answeredAt))
        // An answer at the very instant of the card's latest review is that review again: a person
        // does not answer one card twice in a millisecond, so a thousand such answers count once.
        if card.lastReviewAt == time { return .alreadyApplied }
        if let last = card.lastReviewAt, last > time {
            try logReview(
                answer.id, of: card, rating: rating, at: time, after: card, elapsedDays: 0,
                durationMs: answer.durationMs, historyOnly: true)
            return .historyOnly
        }
        _ = try self.answer(card, rating: rating, durationMs: answer.durationMs, at: time, id: answer.id)
        return .applied
    }
}
