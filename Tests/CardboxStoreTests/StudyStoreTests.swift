import CardboxCore
import CardboxScheduling
import Foundation
import GRDB
import Testing

@testable import CardboxStore

@Suite("Studying: queue, answers, undo, limits")
struct StudyStoreTests {
    /// A deck with fuzz off, so due times are exact.
    func deck(_ clock: TestClock, cards: Int = 3) throws -> CardboxStore {
        let store = try TestStore.make(clock: clock)
        _ = try store.setPlan(.premium)
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        var settings = deck.study
        settings.enableFuzz = false
        _ = try store.setStudySettings(try store.resolve("D"), settings)
        for index in 0..<cards {
            _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "w\(index)", back: "-"))
            clock.advance(seconds: 1)
        }
        return store
    }

    @Test("a review's schedule snapshot is the JSON object of the card's scheduling fields, keys sorted")
    func scheduleSnapshot() throws {
        let clock = TestClock()
        let store = try deck(clock, cards: 4)
        var cards = try store.cards(in: try store.resolve("D"))
        for (index, card) in cards.enumerated() {
            for rating in [1, 3, 4, 2].prefix(index) {
                _ = try store.answer(card.id, rating: rating)
                clock.advance(seconds: 90_000)
            }
        }
        cards = try store.cards(in: try store.resolve("D"))
        #expect(Set(cards.map(\.state)).count >= 2)
        for card in cards {
            let reference = JSONValue.object([
                "state": .string(card.state.rawValue), "step": card.step.map { .int(Int64($0)) } ?? .null,
                "stability": card.stability.map(JSONValue.double) ?? .null,
                "difficulty": card.difficulty.map(JSONValue.double) ?? .null,
                "dueAt": card.dueAt.map { .int($0.storageMillis) } ?? .null,
                "lastReviewAt": card.lastReviewAt.map { .int($0.storageMillis) } ?? .null,
                "reps": .int(Int64(card.reps)), "lapses": .int(Int64(card.lapses)),
            ])
            #expect(WriteContext.schedulingSnapshot(card) == reference.jsonText)
        }
    }

    @Test("a deck's workload run counts study days: before the day's start hour, today is yesterday's study day")
    func simulationStudyDays() throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_750_039_200))  // 2025-06-16 02:00 UTC
        let store = try deck(clock, cards: 1)
        let id = try #require(try store.cards(in: try store.resolve("D")).first).id
        _ = try store.answer(id, rating: 3)
        // Due at 05:00, after the study day under way ends (at 04:00): tomorrow's study day.
        _ = try store.editCard(id, CardChanges(dueAt: .some(Date(timeIntervalSince1970: 1_750_050_000))))
        let (_, simulation) = try store.simulation(of: try store.resolve("D"), days: 7)
        #expect(simulation.firstDay == Date(timeIntervalSince1970: 1_749_960_000))  // 2025-06-15 04:00 UTC
        #expect(simulation.existing.map(\.dueDay) == [1])
    }

    @Test("an answer stores the scheduler's state and a review log entry together")
    func answer() throws {
        let clock = TestClock()
        let store = try deck(clock)
        let card = try #require(try store.dueQueue(in: try store.resolve("D")).first)
        #expect(card.state == .new && card.front == "w0")
        let answered = try store.answer(card.id, rating: 3, durationMs: 4_200)
        let expected = try Scheduler().review(.new(at: clock.now), rating: .good, at: clock.now)
        #expect(answered.card.state == .learning && answered.card.step == expected.step)
        #expect(answered.card.stability == expected.stability && answered.card.difficulty == expected.difficulty)
        #expect(answered.card.dueAt == expected.due && answered.card.lastReviewAt == clock.now)
        #expect(answered.card.reps == 1 && answered.card.lapses == 0)
        #expect(answered.log.rating == 3 && answered.log.stateBefore == .new && answered.log.stateAfter == .learning)
        #expect(answered.log.elapsedDays == 0 && answered.log.durationMs == 4_200)
        #expect(try store.reviewLog(in: try store.resolve("D")) == [answered.log])
    }

    @Test("an answer in a deck checks the card is one of the deck's, in the answer's own transaction")
    func answerInDeck() throws {
        let clock = TestClock()
        let store = try deck(clock)
        let deck: DeckID = try store.resolve("D")
        let other = try store.createDeck(name: "E", frontLanguage: "es", backLanguage: "en")
        let stranger = try store.addCard(to: other.id, CardDraft(front: "x", back: "-"))
        let card = try #require(try store.dueQueue(in: deck).first)
        let before = try store.changes().changes
        for wrong: CardID in [stranger.id, CardID(UUID())] {
            #expect(throws: CardboxError.invalid(field: "card", reason: "\(wrong) is not a card of this deck")) {
                try store.answer(wrong, inDeck: deck, rating: 3)
            }
        }
        let missing = DeckID(UUID())
        #expect(throws: CardboxError.notFound(kind: "deck", reference: missing.storage)) {
            try store.answer(card.id, inDeck: missing, rating: 3)
        }
        #expect(throws: CardboxError.self) { try store.answer(card.id, inDeck: deck, rating: 0) }
        #expect(try store.changes().changes == before && store.reviewLog(in: deck).isEmpty)
        let answered = try store.answer(card.id, inDeck: deck, rating: 3)
        #expect(answered.card.reps == 1 && answered.log.deckId == deck)
        #expect(try store.reviewLog(in: deck) == [answered.log])
    }

    @Test("the queue: due learning cards first, then reviews due today, then new cards")
    func queueOrder() throws {
        let clock = TestClock()
        let store = try deck(clock, cards: 4)
        let cards = try store.dueQueue(in: try store.resolve("D"))
        #expect(cards.map(\.front) == ["w0", "w1", "w2", "w3"])
        _ = try store.answer(cards[0].id, rating: 4)  // easy: a review card, due in days
        _ = try store.answer(cards[1].id, rating: 1)  // again: learning, due in a minute
        _ = try store.editCard(cards[2].id, CardChanges(dueAt: .some(clock.now)))  // a review due now
        clock.advance(seconds: 120)
        let queue = try store.dueQueue(in: try store.resolve("D"))
        #expect(queue.map(\.front) == ["w1", "w2", "w3"])
        #expect(try store.studyCounts(in: try store.resolve("D")) == StudyCounts(learning: 1, review: 1, new: 1))
        _ = try store.setArchived(cards[3].id, true)
        #expect(try store.dueQueue(in: try store.resolve("D")).map(\.front) == ["w1", "w2"])
        // A learning card due soon comes after everything else (Anki's learn-ahead limit).
        _ = try store.answer(queue[0].id, rating: 3)
        #expect(try store.dueQueue(in: try store.resolve("D")).map(\.front) == ["w2", "w1"])
        clock.advance(seconds: 30 * 60)
        #expect(try store.dueQueue(in: try store.resolve("D")).map(\.front) == ["w1", "w2"])
        #expect(throws: CardboxError.self) { try store.answer(cards[3].id, rating: 3) }
    }

    @Test("cards made or due at one moment come by id, not by the order this file stored them in")
    func tiesById() throws {
        let clock = TestClock()
        // Ids handed out falling, as cards a sync or a backup brings arrive in any order of id.
        let lock = NSLock()
        nonisolated(unsafe) var falling = (0..<8).map { UUID(uuidString: "00000000-0000-7000-8000-00000000000\($0)")! }
        var environment = TestStore.environment(clock)
        environment.newID = { lock.withLock { falling.removeLast() } }
        let store = try CardboxStore.inMemory(account: nil, environment: environment)
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en").id
        let made = try store.addCards(to: deck, (0..<4).map { CardDraft(front: "w\($0)", back: "-") })
        #expect(Set(made.map(\.createdAt)).count == 1)
        let byId = made.sorted { $0.id.description < $1.id.description }.map(\.front)
        #expect(byId == ["w3", "w2", "w1", "w0"])
        #expect(try store.dueQueue(in: deck).map(\.front) == byId)
        #expect(try store.cards(in: deck).map(\.front) == byId)
        for card in made { _ = try store.editCard(card.id, CardChanges(dueAt: .some(clock.now))) }
        #expect(try store.dueQueue(in: deck).map(\.front) == byId)
        for card in made { _ = try store.setArchived(card.id, true) }
        #expect(try store.cards(in: deck, filter: CardFilter(archived: true)).map(\.front) == byId)
    }

    @Test("daily limits for new cards and reviews, counted per study day")
    func dailyLimits() throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_750_000_000))
        let store = try deck(clock, cards: 5)
        var settings = try store.deck(try store.resolve("D")).study
        settings.newCardsPerDay = 2
        settings.learningSteps = ""
        _ = try store.setStudySettings(try store.resolve("D"), settings)
        for _ in 0..<2 {
            let next = try #require(try store.nextStudyCard(in: try store.resolve("D")))
            _ = try store.answer(next.card.id, rating: 3)
        }
        #expect(try store.studyCounts(in: try store.resolve("D")).new == 0)
        #expect(try store.nextStudyCard(in: try store.resolve("D")) == nil)
        clock.advance(days: 1)
        #expect(try store.studyCounts(in: try store.resolve("D")).new == 2)
    }

    /// The day's answers of deck "D" as `deckDayAnswers` keeps them (nil: not for today's window),
    /// and as counted from the review log.
    static func dayAnswers(_ store: CardboxStore, now: Date) throws -> (kept: [Int]?, counted: [Int]) {
        let deck: DeckID = try store.resolve("D")
        return try store.read { context in
            let id = deck.storage
            let day = try context.studyDay(now: now)
            let kept = try Row.fetchOne(
                context.db,
                sql: """
                    SELECT newAnswered, reviewsAnswered FROM deckDayAnswers
                    WHERE deckKey = (SELECT key FROM deck WHERE id = ?) AND dayStart = ? AND dayEnd = ?
                    """, arguments: [id, day.start.storageMillis, day.end.storageMillis]
            ).map { [$0[0] as Int, $0[1] as Int] }
            let counted = try context.countAnswers(id, on: day)
            return (kept, [counted.new, counted.review])
        }
    }

    @Test("the day's answers the limits count are kept as logged: by answers, a sync, an undo, an edit, a new day")
    func dayAnswersKept() throws {
        var replicas = try Replicas()
        let (a, b) = (replicas.a, replicas.b)
        _ = try a.setPlan(.premium)
        var settings = try a.createDeck(name: "D", frontLanguage: "es", backLanguage: "en").study
        settings.newCardsPerDay = 3
        settings.learningSteps = ""
        _ = try a.setStudySettings(try a.resolve("D"), settings)
        for index in 0..<8 { _ = try a.addCard(to: try a.resolve("D"), CardDraft(front: "w\(index)", back: "-")) }
        try replicas.exchange()
        func answerNext(_ store: CardboxStore) throws {
            let next = try #require(try store.nextStudyCard(in: try store.resolve("D")))
            _ = try store.answer(next.card.id, rating: 3)
        }

        try answerNext(a)
        #expect(
            try Self.dayAnswers(a, now: replicas.clock.now).kept == [1, 0]
                && Self.dayAnswers(a, now: replicas.clock.now).counted == [1, 0])
        // Two answers arriving by sync count as the device's own: the day's limit of 3 is reached.
        try answerNext(b)
        try answerNext(b)
        try replicas.exchange()
        #expect(
            try Self.dayAnswers(a, now: replicas.clock.now).kept == [3, 0]
                && Self.dayAnswers(a, now: replicas.clock.now).counted == [3, 0])
        #expect(try a.studyCounts(in: try a.resolve("D")).new == 0)
        _ = try a.undoLastAnswer()
        #expect(
            try Self.dayAnswers(a, now: replicas.clock.now).kept == [2, 0]
                && Self.dayAnswers(a, now: replicas.clock.now).counted == [2, 0])
        #expect(try a.studyCounts(in: try a.resolve("D")).new == 1)
        // A logged answer moved out of the day drops the kept counts; the log is counted instead.
        try a.write { tx in
            try tx.db.execute(
                sql:
                    "UPDATE reviewLog SET reviewedAt = reviewedAt - 86400000 WHERE rowid = (SELECT MIN(rowid) FROM reviewLog)"
            )
        }
        #expect(
            try Self.dayAnswers(a, now: replicas.clock.now).kept == nil
                && Self.dayAnswers(a, now: replicas.clock.now).counted == [1, 0])
        #expect(try a.studyCounts(in: try a.resolve("D")).new == 2)
        // A new day: counted from its own window, and kept again from its first answer.
        replicas.clock.advance(days: 1)
        #expect(try a.studyCounts(in: try a.resolve("D")).new == 3)
        try answerNext(a)
        #expect(
            try Self.dayAnswers(a, now: replicas.clock.now).kept == [1, 0]
                && Self.dayAnswers(a, now: replicas.clock.now).counted == [1, 0])
    }

    @Test("undo restores the card exactly and removes the answer")
    func undo() throws {
        let clock = TestClock()
        let store = try deck(clock)
        let card = try #require(try store.dueQueue(in: try store.resolve("D")).first)
        _ = try store.answer(card.id, rating: 3)
        clock.advance(seconds: 700)
        let before = try store.card(card.id)
        _ = try store.answer(card.id, rating: 1)
        clock.advance(seconds: 5)
        var restored = try store.undoLastAnswer(in: try store.resolve("D"))
        restored.modifiedAt = before.modifiedAt
        #expect(restored == before)
        #expect(try store.reviewLog(in: try store.resolve("D")).count == 1)
        _ = try store.undoLastAnswer()
        var fresh = try store.card(card.id)
        fresh.modifiedAt = card.modifiedAt
        #expect(fresh == card)
        #expect(throws: CardboxError.invalid(field: "undo", reason: "there is no answer to undo")) {
            try store.undoLastAnswer()
        }
    }

    @Test("a review card answered Again lapses into relearning")
    func lapse() throws {
        let clock = TestClock()
        let store = try deck(clock, cards: 1)
        let card = try #require(try store.dueQueue(in: try store.resolve("D")).first)
        _ = try store.answer(card.id, rating: 4)
        clock.advance(days: 30)
        let lapsed = try store.answer(card.id, rating: 1)
        #expect(lapsed.card.state == .relearning && lapsed.card.lapses == 1 && lapsed.card.reps == 2)
        #expect(lapsed.log.stateBefore == .review && lapsed.log.elapsedDays == 30)
        #expect(lapsed.card.dueAt == clock.now.addingTimeInterval(600))
    }

    @Test("each rating's next due time is shown before answering")
    func preview() throws {
        let clock = TestClock()
        let store = try deck(clock, cards: 1)
        let next = try #require(try store.nextStudyCard(in: try store.resolve("D")))
        #expect(next.queue == "new" && next.remaining == StudyCounts(new: 1))
        #expect(next.nextDue["1"] == clock.now.addingTimeInterval(60))
        #expect(next.nextDue["2"] == clock.now.addingTimeInterval(330))
        #expect(next.nextDue["3"] == clock.now.addingTimeInterval(600))
        #expect(try #require(next.nextDue["4"]) > clock.now.addingTimeInterval(86_400))
        let answered = try store.answer(next.card.id, rating: 3)
        #expect(answered.card.dueAt == next.nextDue["3"])
    }

    @Test("study settings are checked like the scheduler checks them")
    func settings() throws {
        let store = try deck(TestClock(), cards: 0)
        var settings = try store.deck(try store.resolve("D")).study
        settings.learningSteps = "1m,soon"
        #expect(throws: CardboxError.self) { try store.setStudySettings(try store.resolve("D"), settings) }
        settings.learningSteps = "1m"
        settings.fsrsParameters = Array(repeating: 0.5, count: 21)
        #expect(throws: CardboxError.self) { try store.setStudySettings(try store.resolve("D"), settings) }
        settings.fsrsParameters = FSRSParameters.defaultValues
        settings.desiredRetention = 0.85
        let deck = try store.setStudySettings(try store.resolve("D"), settings)
        #expect(deck.study.desiredRetention == 0.85 && deck.study.fsrsParameters == FSRSParameters.defaultValues)
    }

    @Test("the study day starts at the set hour of local time")
    func studyDay() {
        let utc = TimeZone(identifier: "UTC")!
        let threeAM = Date(timeIntervalSince1970: 1_750_042_800)  // 2025-06-16 03:00 UTC
        let day = StudyDay(containing: threeAM, startHour: 4, timeZone: utc)
        #expect(day.start == Date(timeIntervalSince1970: 1_749_960_000))  // 2025-06-15 04:00
        #expect(day.end == Date(timeIntervalSince1970: 1_750_046_400))  // 2025-06-16 04:00
        let fiveAM = StudyDay(containing: threeAM.addingTimeInterval(7_200), startHour: 4, timeZone: utc)
        #expect(fiveAM.start == day.end)
    }

    @Test("version 1 stores gain the study columns; cards that had a due time become review cards")
    func migration() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { CardboxStore.addFunctions(to: $0) }
        let queue = try DatabaseQueue(configuration: configuration)
        try Schema.migrator.migrate(queue, upTo: "v1: accounts, decks, cards, lists, boards, history")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO account (id, createdAt) VALUES ('a', 0);
                    INSERT INTO deck (id, accountId, name, nameKey, frontLanguage, backLanguage, createdAt, modifiedAt)
                      VALUES ('d', 'a', 'D', 'd', 'es', 'en', 0, 0);
                    INSERT INTO card (id, accountId, deckId, front, frontKey, back, cardType, frontLanguage, backLanguage,
                      dueAt, createdAt, modifiedAt) VALUES ('00000000-0000-4000-8000-000000000001', 'a', 'd', 'x', 'x', 'y', 'basic', 'es', 'en', 5, 0, 0);
                    INSERT INTO card (id, accountId, deckId, front, frontKey, back, cardType, frontLanguage, backLanguage,
                      createdAt, modifiedAt) VALUES ('00000000-0000-4000-8000-000000000002', 'a', 'd', 'z', 'z', 'y', 'basic', 'es', 'en', 0, 0);
                    """)
        }
        try Schema.migrator.migrate(queue)
        let states = try queue.read { try String.fetchAll($0, sql: "SELECT state FROM card ORDER BY uid") }
        #expect(states == ["review", "new"])
        let retention = try queue.read { try Double.fetchOne($0, sql: "SELECT desiredRetention FROM deck") }
        #expect(retention == 0.9)
    }
}

@Suite("Interval fuzz")
struct IntervalFuzzTests {
    @Test("the interval a rating button shows is exactly what answering with it does, fuzz on")
    func buttonsTellTheTruth() throws {
        let clock = TestClock()
        let store = try TestStore.make(clock: clock)
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        var settings = try store.deck(try store.resolve("D")).study
        settings.learningSteps = ""
        settings.enableFuzz = true
        _ = try store.setStudySettings(try store.resolve("D"), settings)
        _ = try store.addCards(to: try store.resolve("D"), (0..<20).map { CardDraft(front: "w\($0)", back: "-") })
        var shown: [Date] = []
        for round in 0..<3 {
            for rating in [4, 3] {
                while let next = try store.nextStudyCard(in: try store.resolve("D")) {
                    let promised = try #require(next.nextDue[String(rating)])
                    let answered = try store.answer(next.card.id, rating: rating)
                    #expect(answered.card.dueAt == promised, "round \(round), rating \(rating)")
                    shown.append(promised)
                }
                clock.advance(days: 40)
            }
        }
        // Fuzz did spread the cards: twenty cards answered alike did not all land on one day.
        let firstDays = Set(shown.prefix(20).map { Int($0.timeIntervalSince1970 / 86_400) })
        #expect(firstDays.count > 1)
    }

    @Test("the fuzz of a card depends on its id and review count only")
    func deterministic() {
        let id = CardID(UUID())
        let picks = (0..<5).map { IntervalFuzz.picker(cardId: id, reps: $0)(0...1_000) }
        #expect(picks == (0..<5).map { IntervalFuzz.picker(cardId: id, reps: $0)(0...1_000) })
        #expect(Set(picks).count > 1)
        #expect(
            (0..<50).allSatisfy { (10...20).contains(IntervalFuzz.picker(cardId: CardID(UUID()), reps: $0)(10...20)) })
    }
}

@Suite("Study days in the person's time zone")
struct StudyTimeZoneTests {
    /// A deck allowing one new card a day, its one new card answered at 12:00 UTC, asked again
    /// 13 hours later: 01:00 UTC is a new day in UTC, while in Kiritimati (UTC+14) it is 15:00 of the
    /// same day.
    static func newCardsLeft(followsAccount: Bool, accountZone: String?) throws -> Int {
        let clock = TestClock(Date(timeIntervalSince1970: 1_750_075_200))  // 2025-06-16 12:00 UTC
        var environment = TestStore.environment(clock)
        environment.followsAccountTimeZone = followsAccount
        let store = try CardboxStore.inMemory(environment: environment)
        _ = try store.setSetting("dayStartHour", to: "0")
        if let accountZone { _ = try store.setSetting("timeZone", to: accountZone) }
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        var settings = deck.study
        settings.newCardsPerDay = 1
        _ = try store.setStudySettings(deck.id, settings)
        let first = try store.addCard(to: deck.id, CardDraft(front: "uno", back: "one"))
        _ = try store.addCard(to: deck.id, CardDraft(front: "dos", back: "two"))
        _ = try store.answer(first.id, rating: 3)
        clock.advance(seconds: 13 * 3_600)
        return try store.studyCounts(in: deck.id).new
    }

    @Test("a server's copy counts study days in the account's time zone; a device, in its own")
    func accountZone() throws {
        #expect(try Self.newCardsLeft(followsAccount: true, accountZone: "Pacific/Kiritimati") == 0)
        #expect(try Self.newCardsLeft(followsAccount: true, accountZone: nil) == 1)
        #expect(try Self.newCardsLeft(followsAccount: false, accountZone: "Pacific/Kiritimati") == 1)
    }

    @Test("the time zone setting takes zone names only, and setting a value it holds writes nothing")
    func setting() throws {
        let store = try TestStore.make()
        #expect(throws: CardboxError.self) { try store.setSetting("timeZone", to: "Mars/Olympus") }
        #expect(try store.setSetting("timeZone", to: "Europe/Madrid").timeZone == "Europe/Madrid")
        let (_, cursor) = try store.changes(since: .zero)
        _ = try store.setSetting("timeZone", to: "Europe/Madrid")
        #expect(try store.changes(since: cursor).changes.isEmpty)
        #expect(try store.settings().timeZone == "Europe/Madrid")
    }
}

@Suite("Study statistics")
struct StatsTests {
    @Test("reviews per day, true retention, due forecast and card counts")
    func stats() throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_750_075_200))  // 2025-06-16 12:00 UTC
        let store = try TestStore.make(clock: clock)
        _ = try store.setSetting("dayStartHour", to: "0")
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        var settings = deck.study
        settings.enableFuzz = false
        settings.learningSteps = ""
        _ = try store.setStudySettings(try store.resolve("D"), settings)
        let cards = try (0..<4).map {
            try store.addCard(to: try store.resolve("D"), CardDraft(front: "w\($0)", back: "-"))
        }
        for card in cards.prefix(3) { _ = try store.answer(card.id, rating: 3) }  // three reviews today
        clock.advance(days: 5)
        _ = try store.answer(cards[0].id, rating: 3)  // a review of a review card: passed
        _ = try store.answer(cards[1].id, rating: 1)  // forgotten
        _ = try store.setArchived(cards[2].id, true)
        let stats = try store.stats(in: try store.resolve("D"))
        #expect(stats.reviewsPerDay.count == 30 && stats.dueForecast.count == 30)
        #expect(stats.reviewsPerDay.map(\.count).reduce(0, +) == 5)
        #expect(stats.reviewsPerDay.last?.count == 2 && stats.reviewsPerDay[24].count == 3)
        #expect(stats.retentionRecent == Retention(reviews: 2, passed: 1))
        #expect(stats.retentionRecent.rate == 0.5)
        #expect(stats.cardCounts == ["new": 1, "learning": 0, "review": 1, "relearning": 1, "archived": 1])
        let relearningDue = try #require(try store.card(cards[1].id).dueAt)
        #expect(relearningDue < clock.now.addingTimeInterval(86_400))
        #expect(stats.dueForecast[0].count >= 1 && stats.dueForecast.map(\.count).reduce(0, +) == 2)
    }

    @Test("recent figures cover the days asked for")
    func days() throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_750_075_200))  // 2025-06-16 12:00 UTC
        let store = try TestStore.make(clock: clock)
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        var settings = try store.deck(try store.resolve("D")).study
        settings.learningSteps = ""
        _ = try store.setStudySettings(try store.resolve("D"), settings)
        let card = try store.addCard(to: try store.resolve("D"), CardDraft(front: "w", back: "-"))
        _ = try store.answer(card.id, rating: 3)
        clock.advance(days: 10)
        _ = try store.answer(card.id, rating: 1)  // a review of a review card, forgotten
        let week = try store.stats(in: try store.resolve("D"), days: 7)
        #expect(week.days == 7 && week.reviewsPerDay.count == 7 && week.dueForecast.count == 7)
        #expect(week.reviewsPerDay.map(\.count).reduce(0, +) == 1)
        #expect(week.retentionRecent == Retention(reviews: 1, passed: 0))
        #expect(try store.stats(in: try store.resolve("D"), days: 30).reviewsPerDay.map(\.count).reduce(0, +) == 2)
        #expect(throws: CardboxError.self) { try store.stats(in: try store.resolve("D"), days: 0) }
    }

    @Test("study days follow the calendar across a daylight-saving change (23- and 25-hour days)")
    func daylightSaving() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        // 2025-03-29 03:30 CET: before 4 a.m., so in the study day that began on 28 March.
        let clock = TestClock(Date(timeIntervalSince1970: 1_743_215_400))
        let ids = UUIDv7Generator()
        let store = try CardboxStore.inMemory(
            environment: StoreEnvironment(
                now: { clock.now }, newID: { ids.next(now: clock.now) },
                makeRandom: { SystemRandomNumberGenerator() }, timeZone: berlin))
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.answer(
            try store.addCard(to: try store.resolve("D"), CardDraft(front: "w", back: "-")).id, rating: 3)
        // Clocks went forward on 30 March; now it is 31 March, 12:00 CEST.
        clock.advance(seconds: 1_743_415_200 - 1_743_215_400)
        let stats = try store.stats(in: try store.resolve("D"), days: 7)
        #expect(stats.reviewsPerDay.allSatisfy { calendar.component(.hour, from: $0.day) == 4 })
        #expect(stats.dueForecast.allSatisfy { calendar.component(.hour, from: $0.day) == 4 })
        let reviewed = try #require(stats.reviewsPerDay.first { $0.count == 1 }?.day)
        #expect(calendar.dateComponents([.month, .day], from: reviewed) == DateComponents(month: 3, day: 28))
        #expect(stats.reviewsPerDay.map(\.count).reduce(0, +) == 1)
    }
}

@Suite("Study days across daylight-saving changes")
struct StudyDayTests {
    /// Every moment of `hours` hours from `from` lies in the study day made for it, and each day
    /// starts where the one before ended, at the start hour of local time.
    static func checkDays(from: Date, hours: Int, startHour: Int, zone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var previous: StudyDay?
        for minutes in stride(from: 0, to: hours * 60, by: 10) {
            let moment = from.addingTimeInterval(Double(minutes) * 60)
            let day = StudyDay(containing: moment, startHour: startHour, timeZone: zone)
            #expect(day.start <= moment && moment < day.end, "\(moment) outside \(day)")
            if let previous, previous != day { #expect(previous.end == day.start, "\(previous) then \(day)") }
            previous = day
        }
    }

    @Test("the days meet end to end and hold every moment, across a 2 a.m. change forward and back")
    func endToEnd() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        // 2025-03-08 12:00 EST to 03-11: clocks went forward at 2 a.m. on 9 March; start hours 4 and 2.
        for startHour in [4, 2, 0] {
            Self.checkDays(
                from: Date(timeIntervalSince1970: 1_741_453_200), hours: 72, startHour: startHour, zone: newYork)
            // 2025-11-01 12:00 EDT to 11-04: clocks went back at 2 a.m. on 2 November.
            Self.checkDays(
                from: Date(timeIntervalSince1970: 1_762_012_800), hours: 72, startHour: startHour, zone: newYork)
        }
        // The day after the change forward starts at 4 a.m. local time, 23 hours after the one before.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = newYork
        let day = StudyDay(containing: Date(timeIntervalSince1970: 1_741_510_800), startHour: 4, timeZone: newYork)
        #expect(calendar.component(.hour, from: day.start) == 4 && calendar.component(.day, from: day.start) == 9)
        #expect(day.start.timeIntervalSince(day.start(offsetBy: -1, timeZone: newYork)) == 23 * 3_600)
    }
}

@Suite("Storing fitted FSRS parameters")
struct FittedParameterTests {
    func fit(improving: Bool) -> FitResult {
        let before = ModelMetrics(logLoss: 0.40, rmseBins: 0.05, reviews: 500)
        var after = before
        after.logLoss = improving ? 0.35 : 0.41
        var parameters = FSRSParameters.defaultValues
        parameters[0] = 1.234
        return FitResult(parameters: parameters, before: before, after: after)
    }

    @Test("fitted parameters are stored only when they predict the reviews better, on the decks named or all")
    func storedWhenBetter() throws {
        let store = try TestStore.make()
        let spanish = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        let french = try store.createDeck(name: "French", frontLanguage: "fr", backLanguage: "en")
        let changes = try store.changeCount()
        #expect(fit(improving: false).adopted(by: StudySettings()) == nil)
        #expect(try !store.storeFittedParameters(fit(improving: false), in: nil))
        #expect(try store.changeCount() == changes)
        #expect(try store.storeFittedParameters(fit(improving: true), in: [spanish.id]))
        #expect(try store.deck(spanish.id).study.fsrsParameters?[0] == 1.234)
        #expect(try store.deck(french.id).study.fsrsParameters == nil)
        #expect(try store.storeFittedParameters(fit(improving: true), in: nil))
        #expect(try store.deck(french.id).study.fsrsParameters?[0] == 1.234)
        #expect(try store.deck(french.id).study.desiredRetention == StudySettings().desiredRetention)
    }
}
