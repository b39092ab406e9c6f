import CardboxCore
import CardboxScheduling
import Foundation

/// The bytes of a fuzz input read as values: whole numbers and numbers by their bit patterns (so any
/// value, NaN and the infinities among them, comes up), short texts. Past the end every read is zero.
struct FuzzInput {
    private var bytes: Data.SubSequence

    init(_ data: Data) { bytes = data[...] }

    mutating func word() -> UInt64 {
        let taken = bytes.prefix(8)
        bytes = bytes.dropFirst(8)
        return taken.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    mutating func byte() -> UInt8 {
        defer { bytes = bytes.dropFirst() }
        return bytes.first ?? 0
    }

    mutating func int() -> Int { Int(truncatingIfNeeded: word()) }
    mutating func double() -> Double { Double(bitPattern: word()) }
    mutating func flag() -> Bool { byte() & 1 == 1 }
    mutating func optional<Value>(_ read: (inout FuzzInput) -> Value) -> Value? { flag() ? read(&self) : nil }

    /// A text of up to 31 bytes.
    mutating func text() -> String {
        let count = Int(byte() % 32)
        defer { bytes = bytes.dropFirst(count) }
        return String(decoding: bytes.prefix(count), as: UTF8.self)
    }
}

extension FuzzTargets {
    /// The study day of this target's inputs.
    static let studyNow = Date(timeIntervalSince1970: 1_750_000_000)

    /// Arbitrary deck settings and card states, as an older store or a hostile device may hold them,
    /// through the scheduler (every rating, with and without fuzz), the study queue and the workload
    /// simulator. None may trap, a stored deck is always studied, and each answer leaves the card
    /// within `StudyRanges`, due no earlier than it was answered.
    static func study(_ data: Data) {
        var input = FuzzInput(data)
        var settings = StudySettings()
        settings.desiredRetention = input.double()
        settings.maximumInterval = input.int()
        settings.newCardsPerDay = input.int()
        settings.reviewsPerDay = input.int()
        settings.learningSteps = input.text()
        settings.relearningSteps = input.text()
        settings.fsrsParameters = input.optional { input in (0..<Int(input.byte() % 24)).map { _ in input.double() } }
        settings.enableFuzz = input.flag()
        _ = try? settings.validate()
        guard let scheduler = try? Scheduler(settings) else {
            preconditionFailure("a deck's stored settings \(settings) could not be studied")
        }
        let deck = DeckID(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
        var cards: [Card] = []
        for index in 0..<Int(input.byte() % 4 + 1) {
            cards.append(card(&input, number: index, deck: deck))
        }
        for card in cards where !card.isArchived {
            for rating in Rating.allCases {
                for fuzz in [false, true] {
                    checkAnswer(card.answered(rating, at: studyNow, by: scheduler, fuzz: fuzz))
                }
            }
            _ = scheduler.retrievability(of: card.memoryState(now: studyNow), at: studyNow)
        }
        let queue = StudyQueuePolicy.queue(
            limit: 10, now: studyNow, due: \.dueAt,
            learning: { cards.filter { $0.state == .learning || $0.state == .relearning } },
            reviews: { room in Array(cards.filter { $0.state == .review }.prefix(room)) },
            new: { room in Array(cards.filter { $0.state == .new }.prefix(room)) })
        precondition(queue.count <= 10, "the queue holds more than its limit")
        simulate(settings, cards)
    }

    private static func card(_ input: inout FuzzInput, number: Int, deck: DeckID) -> Card {
        let time = { (input: inout FuzzInput) in Date(timeIntervalSince1970: Double(input.int()) / 1000) }
        var card = Card(
            id: CardID(UUID(uuid: (0, 0, 0, 0, 0, 0, 0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, UInt8(number)))), deckId: deck,
            front: "front", back: "back", frontLanguage: "es", backLanguage: "en", createdAt: studyNow,
            modifiedAt: studyNow)
        card.state = CardState.allCases[Int(input.byte() % 4)]
        card.step = input.optional { $0.int() }
        card.stability = input.optional { $0.double() }
        card.difficulty = input.optional { $0.double() }
        card.dueAt = input.optional(time)
        card.lastReviewAt = input.optional(time)
        card.reps = input.int()
        card.lapses = input.int()
        return card
    }

    private static func checkAnswer(_ answer: CardAnswer) {
        let card = answer.after
        precondition(
            card.stability.map(StudyRanges.stability.contains) ?? true
                && card.difficulty.map(StudyRanges.difficulty.contains) ?? true,
            "an answer left the memory out of FSRS's bounds: \(card)")
        precondition(
            StudyRanges.answerCount.contains(card.reps) && StudyRanges.answerCount.contains(card.lapses),
            "an answer left the counts out of their range: \(card)")
        precondition(card.step.map(StudyRanges.stepIndex.contains) ?? true, "an answer left the step out: \(card)")
        let due = card.dueAt?.timeIntervalSince1970 ?? .nan
        precondition(due.isFinite && due >= studyNow.timeIntervalSince1970, "an answer is due at \(due)")
        _ = StudyInterval.label(from: studyNow, to: card.dueAt ?? studyNow)
        _ = StoredTime.clampedMilliseconds(card.dueAt ?? studyNow)
    }

    /// A month of the deck's workload, from its cards as they stand.
    private static func simulate(_ settings: StudySettings, _ cards: [Card]) {
        guard
            let simulation = try? DeckSimulation(
                study: settings, cards: cards, reviews: [], now: studyNow, today: studyNow,
                timeZone: TimeZone(identifier: "UTC")!, days: 30, newPerDay: nil)
        else { preconditionFailure("a deck's stored settings \(settings) could not be simulated") }
        let retention = settings.clampedForStudy.desiredRetention
        let result = try? simulation.simulator.simulate(
            desiredRetention: retention, existing: simulation.existing, seed: 1)
        precondition(result != nil, "a simulation at \(retention) was refused")
    }
}
