import CardboxConvergence
import CardboxCore
import CardboxStore
import CardboxSync
import Foundation
import Testing

/// Studying on the browser's replica (`ReplicaRecords`' `StudyWrites`), natively and in the
/// WebAssembly module under Node, against the store's: the same answers and undos, at the same
/// times, leave the same records (schedules, review log entries with the state they replaced,
/// clocks), the queue offers the same card with the same intervals, and the same things are refused.
@Suite("Study: the browser's replica answers as the store answers")
struct StudyWritesParityTests {
    enum Step: Sendable {
        /// Answers the card the queue offers (both sides must offer the same one).
        case answerNext(rating: Int)
        /// Answers card `card` of the setup (`archived` and `elsewhere` name the two others).
        case answer(card: Int, rating: Int, duration: Int? = nil)
        case undo
        case wait(seconds: Int)
    }

    /// Cards 0…5 are the deck's; 6 is archived; 7 is another deck's.
    static let archived = 6
    static let elsewhere = 7

    static let steps: [Step] = [
        .undo, .answerNext(rating: 3), .answerNext(rating: 1), .answerNext(rating: 4), .answerNext(rating: 2),
        .undo, .answerNext(rating: 2), .answer(card: archived, rating: 3), .answer(card: elsewhere, rating: 3),
        .answer(card: 0, rating: 5), .answer(card: 0, rating: 0), .answer(card: 1, rating: 3, duration: 86_400_001),
        .answer(card: 1, rating: 3, duration: 4_200), .wait(seconds: 11 * 60), .answerNext(rating: 3),
        .answerNext(rating: 3), .answerNext(rating: 3), .answerNext(rating: 1), .wait(seconds: 2 * 86_400),
        .answerNext(rating: 1), .answerNext(rating: 3), .answerNext(rating: 2), .undo, .undo,
        .wait(seconds: 86_400 + 3_600), .answerNext(rating: 3), .answerNext(rating: 4), .answerNext(rating: 1),
        .wait(seconds: 40 * 86_400), .answerNext(rating: 1), .answerNext(rating: 1), .answerNext(rating: 1),
        .answerNext(rating: 1), .answerNext(rating: 4), .undo, .answerNext(rating: 3),
    ]

    struct Outcome {
        var store: String
        var replica: String
        var refusals: [String?]
        var replicaRefusals: [String?]
        /// What the queue offered at each `answerNext`: the store's and the replica's.
        var offered: [String]
        var replicaOffered: [String]
        var browserRequest: [String: Any]
        /// The replica's study screens, in the order of the browser's `study` requests.
        var views: [String]
    }

    /// A study day's bounds as the store works them out (UTC, starting at 4 a.m.).
    static func day(_ milliseconds: UInt64) -> StudyDayBounds {
        let day = StudyDay(
            containing: Date(timeIntervalSince1970: Double(milliseconds) / 1000), startHour: 4,
            timeZone: TimeZone(identifier: "UTC")!)
        return StudyDayBounds(start: Self.milliseconds(day.start), end: Self.milliseconds(day.end))
    }

    static func milliseconds(_ date: Date) -> Int64 { StoredTime.clampedMilliseconds(date) }

    static func run(_ steps: [Step], seed: UInt64, fuzz: Bool) throws -> Outcome {
        let setting = ListWritesParityTests.Setting(seed: seed)
        let store = try CardboxStore.inMemory(environment: setting.environment())
        let deck = try store.createDeck(name: "Words", frontLanguage: "en", backLanguage: "de")
        var study = StudySettings()
        study.newCardsPerDay = 4
        study.enableFuzz = fuzz
        study.learningSteps = seed.isMultiple(of: 2) ? "1m,10m" : "30s, 5m ,1h"
        _ = try store.setStudySettings(deck.id, study)
        let other = try store.createDeck(name: "Other", frontLanguage: "en", backLanguage: "de")
        var cards: [String] = []
        for index in 0..<8 {
            setting.milliseconds += 1_000
            let card = try store.addCard(
                to: index == elsewhere ? other.id : deck.id, CardDraft(front: "front \(index)", back: "back \(index)"))
            cards.append(card.id.uuid.uuidString.lowercased())
        }
        _ = try store.setArchived(try #require(CardID(cards[archived])), true)
        let deckId = deck.id.uuid.uuidString.lowercased()
        var (replica, startTexts) = try ListWritesParityTests.replica(of: store, at: setting.milliseconds)
        let receivedAt = setting.milliseconds
        var outcome = Outcome(
            store: "", replica: "", refusals: [], replicaRefusals: [], offered: [], replicaOffered: [],
            browserRequest: [:], views: [])
        var browserWrites: [[String: Any]] = []
        for step in steps {
            setting.milliseconds += 1_000
            let now = setting.milliseconds
            let day = Self.day(now)
            var answer: (card: String, rating: Int, duration: Int?)?
            switch step {
            case .wait(let seconds):
                setting.milliseconds += UInt64(seconds) * 1_000
                continue
            case .answerNext(let rating):
                let next = try store.nextStudyCard(in: deck.id)
                let queue = try replica.studyQueue(deck: deckId, now: Int64(now), day: day, limit: 1)
                outcome.offered.append(next.map { "\($0.card.id.uuid.uuidString.lowercased()) \($0.queue)" } ?? "none")
                outcome.replicaOffered.append(queue.first.map { "\($0.id) \($0.part.rawValue)" } ?? "none")
                let view = try replica.studyView(deck: deckId, now: Int64(now), day: day)
                outcome.views.append(view.jsonText)
                browserWrites.append([
                    "kind": "study", "request": ["deck": deckId, "dayStart": day.start, "dayEnd": day.end], "now": now,
                ])
                guard let next else { continue }
                let id = next.card.id.uuid.uuidString.lowercased()
                // What the buttons show: each rating's due time, to the millisecond.
                let shown = try replica.nextDue(card: id, deck: deckId, now: Int64(now))
                let expected: [Int64?] = (1...4).map { next.nextDue[String($0)].map(Self.milliseconds) }
                #expect(shown == expected)
                let counts = try replica.studyCounts(deck: deckId, now: Int64(now), day: day)
                let (left, remaining): ([Int], [Int]) = (
                    [counts.learning, counts.review, counts.new],
                    [next.remaining.learning, next.remaining.review, next.remaining.new]
                )
                #expect(left == remaining)
                answer = (id, rating, nil)
            case .answer(let card, let rating, let duration):
                answer = (cards[card], rating, duration)
            case .undo:
                var (refusal, replicaRefusal): (String?, String?) = (nil, nil)
                do { _ = try store.undoLastAnswer(in: deck.id) } catch { refusal = error.localizedDescription }
                do throws(CardboxError) { try replica.undoLastAnswer(deck: deckId, at: Int64(now)) } catch {
                    replicaRefusal = error.message
                }
                outcome.refusals.append(refusal)
                outcome.replicaRefusals.append(replicaRefusal)
                browserWrites.append(["kind": "undo", "request": ["deck": deckId], "now": now])
            }
            guard let answer else { continue }
            var (refusal, replicaRefusal): (String?, String?) = (nil, nil)
            var reviewId = UUID().uuidString.lowercased()
            do {
                let given = try store.answer(
                    try #require(CardID(answer.card)), inDeck: deck.id, rating: answer.rating,
                    durationMs: answer.duration)
                reviewId = given.log.id.uuid.uuidString.lowercased()
            } catch { refusal = error.localizedDescription }
            do throws(CardboxError) {
                try replica.answer(
                    card: answer.card, deck: deckId, rating: answer.rating, durationMs: answer.duration,
                    reviewId: reviewId, at: Int64(now))
            } catch { replicaRefusal = error.message }
            outcome.refusals.append(refusal)
            outcome.replicaRefusals.append(replicaRefusal)
            browserWrites.append([
                "kind": "answer",
                "request": [
                    "card": answer.card, "deck": deckId, "rating": answer.rating,
                    "durationMs": answer.duration.map { $0 as Any } ?? NSNull(), "reviewId": reviewId,
                ],
                "now": now,
            ])
        }
        outcome.store = try store.canonicalDump()
        outcome.replica = replica.canonicalDump()
        outcome.browserRequest = [
            "replicaId": store.replicaId, "accountId": store.accountId.uuidString.lowercased(),
            "receivedAt": receivedAt, "changes": startTexts, "writes": browserWrites,
        ]
        return outcome
    }

    @Test("answers, undos, waits, refusals, with and without fuzz: the same queue, intervals, records and messages")
    func sameRecords() throws {
        for seed in UInt64(1)...4 {
            let outcome = try Self.run(Self.steps, seed: seed, fuzz: seed > 2)
            #expect(outcome.replicaOffered == outcome.offered)
            #expect(outcome.replica == outcome.store)
            #expect(outcome.replicaRefusals == outcome.refusals)
            // Nothing to undo; archived; another deck's; ratings 5 and 0; a duration past a day.
            #expect(outcome.refusals.compactMap { $0 }.count == 6)
            // Every part of the queue came up, and the day's four new cards were all it offered.
            let parts = outcome.offered.map { $0.split(separator: " ").last.map(String.init) ?? "" }
            #expect(Set(parts).isSuperset(of: ["new", "learning", "review"]))
            // A review card forgotten (a lapse) relearns; a review log entry keeps what it replaced.
            #expect(outcome.store.contains("\"previous\"") && outcome.store.contains("\"stateAfter\":[\"relearning\""))
        }
    }

    @Test("the WebAssembly module under Node: the same records, refusals and study screens")
    func sameRecordsInTheBrowser() throws {
        let (browser, folder) = try ReplicaWasmTests.node()
        defer { try? FileManager.default.removeItem(at: folder) }
        for seed in UInt64(1)...4 {
            let outcome = try Self.run(Self.steps, seed: seed, fuzz: seed > 2)
            let answer = try browser.send(outcome.browserRequest)
            #expect(answer["dump"] == .string(outcome.store))
            guard case .array(let refusals)? = answer["refusals"], case .array(let results)? = answer["results"] else {
                Issue.record("no refusals or results in \(answer)")
                continue
            }
            let writes = try #require(outcome.browserRequest["writes"] as? [[String: Any]])
            let answersAndUndos = zip(writes, refusals).filter { $0.0["kind"] as? String != "study" }.map(\.1)
            #expect(answersAndUndos == outcome.replicaRefusals.map { $0.map(JSONValue.string) ?? .null })
            let views = zip(writes, results).filter { $0.0["kind"] as? String == "study" }.map(\.1)
            #expect(views.map(\.jsonText) == outcome.views)
            guard case .string(let pending)? = answer["pending"] else {
                Issue.record("nothing pending")
                continue
            }
            // The answers wait to be sent as this replica's: card schedules, review log entries, and
            // the entries taken back by undo as deletes.
            let sent = try ChangeSet.parse(pending)
            #expect(Set(sent.rows.map(\.entity)) == [.card, .reviewLog])
            #expect(Set(sent.tombstones.map(\.entity)) == [.reviewLog])
            try sent.validate()
        }
    }

    @Test("a tab answers only the card first in the queue: the card another tab answered is refused")
    func onlyTheFirstCard() throws {
        let (browser, folder) = try ReplicaWasmTests.node()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = try Self.run(Self.steps, seed: 1, fuzz: false)
        var request = outcome.browserRequest
        let writes = try #require(request["writes"] as? [[String: Any]])
        let study = try #require(writes.first { $0["kind"] as? String == "study" })
        let day = try #require(study["request"] as? [String: Any])
        let first = try #require(outcome.replicaOffered.first?.split(separator: " ").first.map(String.init))
        let answer = { (card: String) -> [String: Any] in
            [
                "kind": "answer", "now": study["now"] as Any,
                "request": [
                    "card": card, "deck": day["deck"] as Any, "rating": 3, "durationMs": NSNull(),
                    "reviewId": UUID().uuidString.lowercased(), "dayStart": day["dayStart"] as Any,
                    "dayEnd": day["dayEnd"] as Any,
                ],
            ]
        }
        // Two tabs showed the same card; the second answer finds another card first.
        request["writes"] = [answer(first), answer(first)]
        let reply = try browser.send(request)
        #expect(reply["refusals"] == .array([.null, .string("card: is no longer the next card to study")]))
    }
}
