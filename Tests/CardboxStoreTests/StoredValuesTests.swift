import CardboxCore
import CardboxScheduling
import Foundation
import GRDB
import Testing

@testable import CardboxStore

/// A store written before the engine's ranges (`StudyRanges`) were held on the wire may hold any value
/// its schema's checks let through. Every one of them is studied, answered, counted and simulated:
/// refused or clamped, never a trap.
@Suite("Values an older store holds never stop a command")
struct StoredValuesTests {
    static let largest = Int64.max

    @Test("a deck and cards holding every value that trapped are studied, answered, counted and simulated")
    func hostileStore() throws {
        let path = TestStore.temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        let clock = TestClock()
        let deck: DeckID
        do {
            let store = try CardboxStore.open(path: path, environment: TestStore.environment(clock))
            deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en").id
            for front in ["uno", "dos", "tres", "cuatro", "cinco"] {
                let card = try store.addCard(to: deck, CardDraft(front: front, back: "x")).id
                _ = try store.answer(card, rating: 4)
            }
        }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            // The cards in the order they were added (their keys rise).
            func card(_ index: Int, _ assignments: String) throws {
                try db.execute(
                    sql:
                        "UPDATE card SET \(assignments) WHERE key = (SELECT key FROM card ORDER BY key LIMIT 1 OFFSET ?)",
                    arguments: [index])
            }
            try card(0, "reps = \(Self.largest), dueAt = 0")
            try card(1, "lapses = \(Self.largest), state = 'review', dueAt = 0")
            try card(2, "state = 'learning', step = \(Self.largest), dueAt = \(Self.largest)")
            try card(3, "stability = 1e308, state = 'review', dueAt = 0, lastReviewAt = 0")
            try card(4, "state = 'relearning', step = 7, difficulty = 1, lastReviewAt = \(Self.largest), dueAt = 0")
            try db.execute(
                sql: """
                    UPDATE deck SET learningSteps = '1e308d', relearningSteps = 'nanm', maximumInterval = ?,
                    desiredRetention = 1e-300, fsrsParameters = '[]', newCardsPerDay = ?, reviewsPerDay = ?
                    """, arguments: [Self.largest, Self.largest, Self.largest])
            try db.execute(
                sql: "UPDATE setting SET value = '99999999999' WHERE key = 'dayStartHour'")
        }
        try queue.close()

        let store = try CardboxStore.open(path: path, environment: TestStore.environment(clock))
        clock.advance(days: 1)
        var answered = 0
        var answeredCards: Set<String> = []
        while let next = try store.nextStudyCard(in: deck), answered < 20 {
            answeredCards.insert(next.card.id.storage)
            #expect(next.nextDue.count == 4)
            let answer = try store.answer(next.card.id, rating: answered % 4 + 1)
            let after = answer.card
            #expect(
                after.reps <= StudyRanges.answerCount.upperBound && after.lapses <= StudyRanges.answerCount.upperBound)
            #expect(after.stability.map(StudyRanges.stability.contains) ?? true)
            #expect(after.dueAt.map { StoredTime.milliseconds.contains($0.storageMillis) } ?? false)
            answered += 1
        }
        // The learning card due at the end of time is not in today's queue; answering it is no trap either.
        let farOff = try #require(try store.cards(in: deck).first { $0.state == .learning && $0.dueAt! > clock.now })
        _ = try store.answer(farOff.id, rating: 1)
        answeredCards.insert(farOff.id.storage)
        // The answers are what the store's next sync sends of them: each within the registry's ranges.
        var answers = try store.changes().changes
        answers.rows.removeAll { $0.entity != .card || !answeredCards.contains($0.id) }
        #expect(answers.rows.count == answeredCards.count && answeredCards.count == 5)
        #expect(throws: Never.self) { try answers.validate() }
        _ = try store.undoLastAnswer(in: deck)
        let stats = try store.stats(in: deck)
        #expect(stats.cardCounts.values.reduce(0, +) >= 5)
        let (_, simulation) = try store.simulation(of: deck, days: 30)
        let result = try simulation.simulator.simulate(desiredRetention: 0.9, existing: simulation.existing)
        #expect(result.reviews.count == 30)
        #expect(try store.offlineStudy(in: deck).deck.id == deck)
    }

    @Test("a setter refuses a study setting outside the engine's range, naming it")
    func settersHoldTheRanges() throws {
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en").id
        let refusals: [(change: (inout StudySettings) -> Void, message: String)] = [
            ({ $0.desiredRetention = 0.5 }, "desired retention: must be from 0.7 to 0.99, got 0.5"),
            ({ $0.maximumInterval = 36_501 }, "maximum interval: must be from 1 to 36500 days, got 36501"),
            ({ $0.learningSteps = "1m,400d" }, "learning steps: '400d' is longer than a year (365d)"),
            ({ $0.relearningSteps = "nanm" }, "relearning steps: 'nanm' is not a step like 1m, 10m, 1h, 30s or 2d"),
            ({ $0.newCardsPerDay = 100_000 }, "new cards a day: must be from 0 to 99999, got 100000"),
            ({ $0.fsrsParameters = [] }, "FSRS parameters: FSRS-6 takes 21 parameters (w0…w20), got 0"),
        ]
        for refusal in refusals {
            var settings = StudySettings()
            refusal.change(&settings)
            do {
                _ = try store.setStudySettings(deck, settings)
                Issue.record("\(refusal.message) was not refused")
            } catch {
                #expect(error.localizedDescription == refusal.message)
            }
        }
        #expect(try store.deck(deck).study == StudySettings())
    }
}
