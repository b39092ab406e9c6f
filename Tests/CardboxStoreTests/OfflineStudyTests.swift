import CardboxCore
import CardboxScheduling
import Foundation
import Testing

@testable import CardboxStore

@Suite("Offline study: the day a page keeps, and the answers it gave meanwhile")
struct OfflineStudyTests {
    /// A premium account's deck of `cards` new cards, fuzz `fuzz`, created a second apart.
    func deck(_ clock: TestClock, cards: Int, fuzz: Bool = true) throws -> (CardboxStore, DeckID) {
        let store = try TestStore.make(clock: clock)
        _ = try store.setPlan(.premium)
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        var settings = deck.study
        settings.enableFuzz = fuzz
        _ = try store.setStudySettings(deck.id, settings)
        for index in 0..<cards {
            _ = try store.addCard(to: deck.id, CardDraft(front: "w\(index)", back: "-"))
            clock.advance(seconds: 1)
        }
        return (store, deck.id)
    }

    @Test("the day kept: the new cards the daily limit allows and learning cards due later today, not tomorrow's")
    func dayKept() throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_750_060_800))  // 2025-06-16 08:00 UTC
        let (store, deck) = try deck(clock, cards: 25)
        let queue = try store.dueQueue(in: deck)
        // One card learned (due again in 10 minutes), one sent to tomorrow or later (Easy).
        let learning = try store.answer(queue[0].id, rating: 3).card
        let later = try store.answer(queue[1].id, rating: 4).card
        clock.advance(seconds: 60)
        let study = try store.offlineStudy(in: deck)
        let ids = Set(study.cards.map(\.id))
        #expect(ids.contains(learning.id) && !ids.contains(later.id))
        #expect(study.cards.filter { $0.state == .new }.count == 18)  // 20 a day, 2 answered
        #expect(study.dayEnds == Date(timeIntervalSince1970: 1_750_132_800))  // 04:00 the next day
        #expect(study.deck.id == deck && study.deck.study.enableFuzz)
    }

    @Test("an answer given offline is scheduled at its time, as the page did; sent again it changes nothing")
    func appliedOnce() throws {
        let clock = TestClock()
        let (store, deck) = try deck(clock, cards: 2)
        let card = try #require(try store.dueQueue(in: deck).first)
        let given = clock.now.addingTimeInterval(-600.5)
        clock.advance(seconds: 3_600)
        let answer = GivenAnswer(id: ReviewID(UUID()), card: card.id, rating: 3, answeredAt: given, durationMs: 2_500)
        #expect(try store.applyGivenAnswers([answer], inDeck: deck) == [.applied])
        let stored = try store.card(card.id)
        let time = Date(storageMillis: given.storageMillis)
        let expected = card.answered(.good, at: time, by: try Scheduler(try store.deck(deck).study), fuzz: true).after
        #expect(stored.lastReviewAt == time && stored.dueAt == expected.dueAt && stored.stability == expected.stability)
        let log = try store.reviewLog(in: deck)
        #expect(log.map(\.id) == [answer.id] && log[0].reviewedAt == time && log[0].durationMs == 2_500)
        let changes = try store.changeCount()
        #expect(try store.applyGivenAnswers([answer], inDeck: deck) == [.alreadyApplied])
        #expect(try store.card(card.id) == stored)
        #expect(try store.reviewLog(in: deck).count == 1)
        #expect(try store.changeCount() == changes)
    }

    @Test("answers are applied in the order given: Again, then Good ten minutes later")
    func inOrder() throws {
        let clock = TestClock()
        let (store, deck) = try deck(clock, cards: 1, fuzz: false)
        let card = try #require(try store.dueQueue(in: deck).first)
        let start = clock.now
        clock.advance(seconds: 7_200)
        let answers = [
            GivenAnswer(id: ReviewID(UUID()), card: card.id, rating: 1, answeredAt: start),
            GivenAnswer(id: ReviewID(UUID()), card: card.id, rating: 3, answeredAt: start.addingTimeInterval(600)),
        ]
        #expect(try store.applyGivenAnswers(answers, inDeck: deck) == [.applied, .applied])
        let scheduler = try Scheduler(try store.deck(deck).study)
        let first = card.answered(.again, at: start, by: scheduler, fuzz: false).after
        let second = first.answered(.good, at: start.addingTimeInterval(600), by: scheduler, fuzz: false).after
        let stored = try store.card(card.id)
        #expect(stored.dueAt == second.dueAt && stored.step == second.step && stored.reps == 2)
        #expect(try store.reviewLog(in: deck).map(\.rating) == [1, 3])
    }

    @Test("a card reviewed later elsewhere keeps that schedule and gains the offline answer in its history")
    func laterReviewWins() throws {
        let clock = TestClock()
        let (store, deck) = try deck(clock, cards: 1)
        let card = try #require(try store.dueQueue(in: deck).first)
        let offline = clock.now
        clock.advance(seconds: 300)
        let reviewed = try store.answer(card.id, rating: 4).card  // another device, after the offline answer
        clock.advance(seconds: 300)
        let answer = GivenAnswer(id: ReviewID(UUID()), card: card.id, rating: 1, answeredAt: offline)
        #expect(try store.applyGivenAnswers([answer], inDeck: deck) == [.historyOnly])
        let stored = try store.card(card.id)
        #expect(stored.dueAt == reviewed.dueAt && stored.state == reviewed.state && stored.reps == reviewed.reps)
        #expect(try store.reviewLog(in: deck).map(\.rating) == [1, 4])
        // Undo takes back the later review (the card is new again), then the offline answer: it
        // changed no schedule, so taking it back only takes it out of the history.
        _ = try store.undoLastAnswer(in: deck)
        #expect(try store.card(card.id).state == .new)
        _ = try store.undoLastAnswer(in: deck)
        #expect(try store.card(card.id).state == .new)
        #expect(try store.reviewLog(in: deck).isEmpty)
    }

    @Test("an answer to a card deleted meanwhile is card-gone; the others of the request are applied")
    func cardGone() throws {
        let clock = TestClock()
        let (store, deck) = try deck(clock, cards: 2)
        let queue = try store.dueQueue(in: deck)
        try store.deleteCard(queue[0].id)
        let answers = queue.map { GivenAnswer(id: ReviewID(UUID()), card: $0.id, rating: 3, answeredAt: clock.now) }
        #expect(try store.applyGivenAnswers(answers, inDeck: deck) == [.cardGone, .applied])
    }

    @Test("a malformed answer (a rating of 5, a time in the future) refuses them all, naming it; nothing changes")
    func malformed() throws {
        let clock = TestClock()
        let (store, deck) = try deck(clock, cards: 2)
        let queue = try store.dueQueue(in: deck)
        let good = GivenAnswer(id: ReviewID(UUID()), card: queue[0].id, rating: 3, answeredAt: clock.now)
        let changes = try store.changeCount()
        #expect(
            throws: CardboxError.invalid(
                field: "rating", reason: "must be 1 (again), 2 (hard), 3 (good) or 4 (easy), got 5")
        ) {
            try store.applyGivenAnswers(
                [good, GivenAnswer(id: ReviewID(UUID()), card: queue[1].id, rating: 5, answeredAt: clock.now)],
                inDeck: deck)
        }
        let future = GivenAnswer(
            id: ReviewID(UUID()), card: queue[1].id, rating: 3, answeredAt: clock.now.addingTimeInterval(3_600))
        #expect(throws: CardboxError.self) { try store.applyGivenAnswers([good, future], inDeck: deck) }
        #expect(try store.changeCount() == changes)
        #expect(try store.reviewLog(in: deck).isEmpty)
    }
}
