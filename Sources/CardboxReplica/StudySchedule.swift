#if canImport(CardboxFSRS)
    import CardboxFSRS
#endif

/// A deck's study settings before anything is set: Anki's and FSRS-6's defaults.
public enum StudyDefaults {
    public static let desiredRetention = 0.9
    public static let learningSteps = "1m,10m"
    public static let relearningSteps = "10m"
    public static let maximumInterval = 36_500
    public static let newCardsPerDay = 20
    public static let reviewsPerDay = 200
    public static let enableFuzz = true
    /// FSRS-6's 21 default parameters (w0…w20).
    public static let parameters: [Double] = [
        0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614,
        0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542,
    ]
}

/// A card's scheduling state as a record holds it (the synced `schedule` field): times in
/// milliseconds since 1970.
public struct CardSchedule: Equatable, Sendable {
    public var state: String
    public var step: Int?
    public var stability: Double?
    public var difficulty: Double?
    public var dueAt: Int64?
    public var lastReviewAt: Int64?
    public var reps: Int
    public var lapses: Int

    public init(
        state: String, step: Int?, stability: Double?, difficulty: Double?, dueAt: Int64?, lastReviewAt: Int64?,
        reps: Int, lapses: Int
    ) {
        self.state = state
        self.step = step
        self.stability = stability
        self.difficulty = difficulty
        self.dueAt = dueAt
        self.lastReviewAt = lastReviewAt
        self.reps = reps
        self.lapses = lapses
    }

    /// The state as a review log entry's `previous` keeps it (what undo restores): a JSON object with
    /// its keys in sorted order. Written straight into the text: building a dictionary for it and
    /// sorting its keys was a third of logging a review on a device.
    public var snapshotText: String {
        var writer = JSONWriter(capacity: 192)
        func write(_ value: Int64?) { if let value { writer.integer(value) } else { writer.raw("null") } }
        func write(_ value: Double?) { if let value { writer.double(value) } else { writer.raw("null") } }
        writer.raw("{\"difficulty\":")
        write(difficulty)
        writer.raw(",\"dueAt\":")
        write(dueAt)
        writer.raw(",\"lapses\":")
        write(Int64(lapses))
        writer.raw(",\"lastReviewAt\":")
        write(lastReviewAt)
        writer.raw(",\"reps\":")
        write(Int64(reps))
        writer.raw(",\"stability\":")
        write(stability)
        writer.raw(",\"state\":")
        writer.string(state)
        writer.raw(",\"step\":")
        write(step.map(Int64.init))
        writer.raw("}")
        return writer.text
    }

    /// The synced `schedule` field's value.
    var fieldValue: JSONValue {
        func number(_ value: Int64?) -> JSONValue { value.map(JSONValue.int) ?? .null }
        func real(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
        return .object([
            "state": .string(state), "step": number(step.map(Int64.init)), "stability": real(stability),
            "difficulty": real(difficulty), "dueAt": number(dueAt), "lastReviewAt": number(lastReviewAt),
            "reps": .int(Int64(reps)), "lapses": .int(Int64(lapses)),
        ])
    }

    /// Reads the `schedule` field's value, or a `previous` snapshot: missing or mistyped members are
    /// null (a new card's).
    init(_ value: JSONValue?) {
        var members: [String: JSONValue] = [:]
        if case .object(let found)? = value { members = found }
        func whole(_ name: String) -> Int64? {
            switch members[name] {
            case .int(let value)?: value
            case .double(let value)?
            where value.isFinite && value.rounded(.towardZero) == value
                && abs(value) < 9e15:
                Int64(value)
            default: nil
            }
        }
        func real(_ name: String) -> Double? {
            switch members[name] {
            case .double(let value)?: value
            case .int(let value)?: Double(value)
            default: nil
            }
        }
        var state = "new"
        if case .string(let text)? = members["state"] { state = text }
        self.init(
            state: state, step: whole("step").map { Int(clamping: $0) }, stability: real("stability"),
            difficulty: real("difficulty"), dueAt: whole("dueAt"), lastReviewAt: whole("lastReviewAt"),
            reps: Int(clamping: whole("reps") ?? 0), lapses: Int(clamping: whole("lapses") ?? 0))
    }

    /// The card as the FSRS step reads it at `now` (seconds since 1970): a new card is learning at
    /// step 0, due now.
    func stepCard(now: Double) -> FSRSStep.Card {
        let phase: FSRSStep.Phase
        switch state {
        case "learning": phase = .learning
        case "relearning": phase = .relearning
        case "review": phase = .review
        default: return FSRSStep.Card(due: now)
        }
        return FSRSStep.Card(
            phase: phase, step: step, stability: stability, difficulty: difficulty,
            due: dueAt.map { Double($0) / 1000 } ?? now, lastReview: lastReviewAt.map { Double($0) / 1000 })
    }
}

/// A deck's study settings as the scheduler uses them: each stored value outside its range moved
/// to the nearest inside, steps or parameters it cannot read replaced by the defaults (as a
/// device's `StudySettings.clampedForStudy`), so a deck from an older store or another device is
/// studied, never refused.
struct DeckStudy {
    var learningSteps: [Double]
    var relearningSteps: [Double]
    var newCardsPerDay: Int
    var reviewsPerDay: Int
    var enableFuzz: Bool
    var step: FSRSStep

    init(_ deck: ReplicaRow<NamedEntity>) {
        func value(_ name: String) -> JSONValue? { deck.fields[name]?.value }
        func whole(_ name: String, _ fallback: Int, _ range: ClosedRange<Int>) -> Int {
            guard case .int(let number)? = value(name) else { return fallback }
            return Int(min(max(number, Int64(range.lowerBound)), Int64(range.upperBound)))
        }
        func steps(_ name: String, _ fallback: String) -> [Double] {
            guard case .string(let text)? = value(name), case .success(let steps) = StudySteps.parse(text) else {
                guard case .success(let steps) = StudySteps.parse(fallback) else { return [] }
                return steps
            }
            return steps
        }
        var retention = StudyDefaults.desiredRetention
        switch value("desiredRetention") {
        case .double(let number)? where !number.isNaN:
            retention = min(
                max(number, StudyBounds.desiredRetention.lowerBound), StudyBounds.desiredRetention.upperBound)
        case .int(let number)?:
            retention = min(
                max(Double(number), StudyBounds.desiredRetention.lowerBound), StudyBounds.desiredRetention.upperBound)
        default: break
        }
        var parameters = StudyDefaults.parameters
        if case .string(let text)? = value("fsrsParameters"), let stored = Self.parameters(text) { parameters = stored }
        learningSteps = steps("learningSteps", StudyDefaults.learningSteps)
        relearningSteps = steps("relearningSteps", StudyDefaults.relearningSteps)
        newCardsPerDay = whole("newCardsPerDay", StudyDefaults.newCardsPerDay, StudyBounds.dailyLimit)
        reviewsPerDay = whole("reviewsPerDay", StudyDefaults.reviewsPerDay, StudyBounds.dailyLimit)
        enableFuzz = value("enableFuzz").map { $0 == .bool(true) } ?? StudyDefaults.enableFuzz
        step = FSRSStep(
            weights: InlineArray { parameters[$0] }, desiredRetention: retention,
            maximumInterval: whole("maximumInterval", StudyDefaults.maximumInterval, StudyBounds.maximumInterval))
    }

    /// A deck's `fsrsParameters` (a JSON array of 21 numbers within FSRS's bounds), or nil.
    static func parameters(_ text: String) -> [Double]? {
        guard case .array(let items)? = try? JSONParser.parse(text) else { return nil }
        var values: [Double] = []
        for item in items {
            switch item {
            case .int(let whole): values.append(Double(whole))
            case .double(let real): values.append(real)
            default: return nil
            }
        }
        return StudyBounds.areParameters(values) ? values : nil
    }

    /// A card's schedule after `rating` at `milliseconds`, with the card's own fuzz (drawn from its
    /// id and review count) when the deck uses fuzz: what a device's `Card.answered` gives.
    func answered(_ before: CardSchedule, cardId: String, rating: Int, at milliseconds: Int64) -> CardSchedule {
        let now = Double(milliseconds) / 1000
        let pick = FuzzPick(cardId: cardId, reps: before.reps)
        let next = learningSteps.withUnsafeBufferPointer { learning in
            relearningSteps.withUnsafeBufferPointer { relearning in
                step.review(
                    before.stepCard(now: now), rating: rating, at: now, learningSteps: learning,
                    relearningSteps: relearning, fuzz: enableFuzz
                ) { lower, upper in pick.pick(lower, upper) }
            }
        }
        let state: String =
            switch next.phase {
            case .learning: "learning"
            case .review: "review"
            case .relearning: "relearning"
            }
        return CardSchedule(
            state: state, step: next.step, stability: next.stability, difficulty: next.difficulty,
            dueAt: Self.milliseconds(next.due), lastReviewAt: milliseconds,
            reps: StudyBounds.counted(before.reps, adding: 1),
            lapses: StudyBounds.counted(
                before.lapses, adding: StudyBounds.isLapse(rating: rating, stateBefore: before.state) ? 1 : 0))
    }

    /// Seconds since 1970 in whole milliseconds, rounded down and held to the times a record may hold
    /// (as a device stores a due date).
    static func milliseconds(_ seconds: Double) -> Int64 {
        let milliseconds = (seconds * 1000).rounded(.down)
        guard milliseconds.isFinite else { return milliseconds > 0 ? StudyBounds.latestMilliseconds : 0 }
        return Int64(min(max(milliseconds, 0), Double(StudyBounds.latestMilliseconds)))
    }
}

extension FuzzPick {
    /// The draw for a card's next answer, from its id as records write it ("0190a…-…", its 16
    /// bytes in order) and how many reviews it has had: a device draws the same from its UUID.
    init(cardId: String, reps: Int) {
        var words: (high: UInt64, low: UInt64) = (0, 0)
        var count = 0
        for byte in cardId.utf8 {
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: continue
            }
            if count < 16 { words.high = words.high << 4 | digit } else { words.low = words.low << 4 | digit }
            count += 1
        }
        self.init(idHigh: words.high, idLow: words.low, reps: Int64(reps))
    }
}
