import CardboxCore
import Foundation
import Testing

@Suite("The study queue policy, forget and set due")
struct StudyQueueTests {
    let now = Date(timeIntervalSince1970: 1_750_000_000)

    /// A candidate as the policy sees it: a name and when it is due.
    struct Candidate: Equatable {
        var name: String
        var due: Date?
    }

    func at(_ seconds: Double, _ name: String) -> Candidate {
        Candidate(name: name, due: now.addingTimeInterval(seconds))
    }

    func order(
        limit: Int, learning: [Candidate], reviews: [Candidate], new: [Candidate]
    ) -> [String] {
        StudyQueuePolicy.queue(
            limit: limit, now: now, due: \.due, learning: { learning },
            // As the store fetches them: earliest first, at most the room given.
            reviews: { Array(reviews.sorted { $0.due! < $1.due! }.prefix($0)) },
            new: { Array(new.prefix($0)) }
        ).map { "\($0.part.rawValue):\($0.card.name)" }
    }

    @Test("learning due now, then reviews due today, then new cards, then learning due within the learn-ahead limit")
    func partsInOrder() {
        let queue = order(
            limit: 10, learning: [at(300, "soon"), at(-60, "late"), at(-600, "later")],
            reviews: [at(3_600, "r2"), at(-86_400, "r1")], new: [Candidate(name: "n1"), Candidate(name: "n2")])
        #expect(
            queue == [
                "learning:later", "learning:late", "review:r1", "review:r2", "new:n1", "new:n2", "learning:soon",
            ])
    }

    @Test("an interval's label is measured to the millisecond: a hair short of a step reads as the step")
    func intervalLabels() {
        let start = Date(timeIntervalSince1970: 1_795_000_000.123_456)
        #expect(StudyInterval.label(from: start, to: start.addingTimeInterval(60 - 1e-7)) == "1m")
        #expect(StudyInterval.label(from: start, to: start.addingTimeInterval(330 - 1e-7)) == "6m")
        #expect(StudyInterval.label(from: start, to: start.addingTimeInterval(45)) == "45s")
        #expect(StudyInterval.label(from: start, to: start.addingTimeInterval(8 * 86_400)) == "8d")
        #expect(StudyInterval.label(from: start, to: start.addingTimeInterval(-5)) == "0s")
    }

    @Test("a part is asked for only while the parts before it leave room, and only for what fits")
    func lazy() {
        var asked: [String] = []
        let learning = (0..<3).map { at(Double(-$0), "l\($0)") }
        let queue = StudyQueuePolicy.queue(
            limit: 3, now: now, due: \.due, learning: { learning },
            reviews: { room in
                asked.append("reviews \(room)")
                return []
            },
            new: { room in
                asked.append("new \(room)")
                return []
            })
        #expect(queue.count == 3 && asked.isEmpty)
        _ = StudyQueuePolicy.queue(
            limit: 5, now: now, due: \.due, learning: { [learning[0]] },
            reviews: { room in
                asked.append("reviews \(room)")
                return [self.at(-5, "r")]
            },
            new: { room in
                asked.append("new \(room)")
                return []
            })
        #expect(asked == ["reviews 4", "new 3"])
        #expect(
            StudyQueuePolicy.queue(
                limit: 0, now: now, due: \.due, learning: { learning }, reviews: { _ in [] }, new: { _ in [] }
            ).isEmpty)
    }

    @Test("more candidates than the limit: the queue is cut at the limit, earliest first")
    func cutAtLimit() {
        let queue = order(
            limit: 3, learning: [], reviews: [at(20, "b"), at(10, "a"), at(30, "c"), at(5, "first")],
            new: [Candidate(name: "n")])
        #expect(queue == ["review:first", "review:a", "review:b"])
    }

    @Test("the daily allowance is the limit less today's answers to new and review cards, never below zero")
    func allowance() {
        var settings = StudySettings()
        settings.newCardsPerDay = 20
        settings.reviewsPerDay = 200
        #expect(StudyQueuePolicy.allowance(settings, answeredToday: (5, 150)) == DailyAllowance(new: 15, review: 50))
        #expect(StudyQueuePolicy.allowance(settings, answeredToday: (25, 201)) == DailyAllowance(new: 0, review: 0))
        #expect(StudyQueuePolicy.learningHorizon(now: now) == now.addingTimeInterval(20 * 60))
    }

    func reviewed() -> Card {
        var card = Card(
            id: CardID(UUID()), deckId: DeckID(UUID()), front: "hola", back: "hello", frontLanguage: "es",
            backLanguage: "en", createdAt: now, modifiedAt: now)
        card.state = .relearning
        card.step = 0
        card.stability = 2.5
        card.difficulty = 6
        card.lastReviewAt = now
        card.dueAt = now.addingTimeInterval(600)
        card.reps = 7
        card.lapses = 2
        return card
    }

    @Test("forget makes a card new again: no due date, memory or counts; the rest of the card stays")
    func forget() {
        let card = reviewed()
        let forgotten = card.forgotten()
        #expect(forgotten.state == .new && forgotten.dueAt == nil && forgotten.step == nil)
        #expect(forgotten.stability == nil && forgotten.difficulty == nil && forgotten.lastReviewAt == nil)
        #expect(forgotten.reps == 0 && forgotten.lapses == 0)
        #expect(forgotten.front == card.front && forgotten.id == card.id)
    }

    @Test("set due moves the due date and keeps the memory; a new card becomes a review card")
    func setDue() {
        let date = now.addingTimeInterval(86_400 * 3)
        let card = reviewed()
        let moved = card.rescheduled(dueAt: date)
        #expect(moved.dueAt == date && moved.state == .relearning && moved.stability == 2.5 && moved.reps == 7)
        let fresh = card.forgotten().rescheduled(dueAt: date)
        #expect(fresh.state == .review && fresh.dueAt == date)
    }
}
