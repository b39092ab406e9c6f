import CardboxCore
import Foundation

/// Learning and relearning steps as people write them: "1m,10m", "1h", "30s", "2d"; "" means none
/// (`StudySteps`' rules, with the scheduler's error).
public enum StepList {
    public static func parse(_ text: String, field: String) throws -> [TimeInterval] {
        switch StudySteps.parse(text) {
        case .success(let steps): return steps
        case .failure(let problem): throw SchedulingError.invalidOption("\(field): \(problem.reason)")
        }
    }
}

/// One review as review files write it: `{"card":"c1","rating":3,"time":"2025-01-01T09:00:00Z"}`
/// (what `fsrs replay` reads and `fsrs optimize --input` fits).
public struct ReviewLine: Sendable, Equatable {
    public var card: String
    public var rating: Rating
    public var time: Date
    /// The time as written.
    public var text: String

    /// Parses one line; errors say what is wrong and name the line (`lineNumber` counts from 1).
    public static func parse(_ line: some StringProtocol, lineNumber: Int) throws -> ReviewLine {
        func fail(_ reason: String) -> SchedulingError { .invalidOption("line \(lineNumber): \(reason)") }
        // JSONParser, not a JSONDecoder made for each line: a fit reads tens of thousands of lines.
        guard case .object(let fields)? = try? JSONParser.parse(String(line)), case .string(let card)? = fields["card"],
            case .int(let number)? = fields["rating"], case .string(let timeText)? = fields["time"]
        else {
            throw fail("expected {\"card\": \"…\", \"rating\": 1-4, \"time\": \"ISO 8601\"}, got \(line.prefix(80))")
        }
        guard let rating = Int(exactly: number).flatMap(Rating.init(rawValue:)) else {
            throw fail("rating must be 1 (again), 2 (hard), 3 (good) or 4 (easy), got \(number)")
        }
        guard let time = ISOTime.parse(timeText) else {
            throw fail("time '\(timeText)' is not an ISO 8601 time like 2025-01-01T09:00:00Z")
        }
        return ReviewLine(card: card, rating: rating, time: time, text: timeText)
    }
}

extension ReviewLine {
    /// A review file's histories (lines in `ReviewLine`'s form; blank lines skipped): what
    /// `fsrs optimize --input` fits and `cardbox-bench --only fit` times. A bad line is an error
    /// naming the file and the line.
    public static func histories(fromFile path: String) throws -> [ReviewHistory] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CardboxError.invalid(field: "input", reason: "cannot read '\(path)'")
        }
        // Lines split as bytes of an array: splitting the text by Characters was a fifth of a fit's
        // time, and reading lines as slices of `Data` (byte by byte, through its generic
        // collection) most of the rest.
        let lines = [UInt8](data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // Read on every core at once, in consecutive parts: reading was still half the command.
        let parts = FSRSOptimizer.inParts(Array(lines.enumerated())) { piece in
            Result { () throws(CardboxError) in try reviews(piece, path) }
        }
        // The earliest part's failure names the file's first bad line.
        return ReviewHistory.from(try parts.flatMap { try $0.get() })
    }

    typealias Review = (card: String, rating: Rating, time: Date)

    /// The reviews of `lines`, each with its offset in the file (from 0).
    private static func reviews(_ lines: [(offset: Int, element: ArraySlice<UInt8>)], _ path: String)
        throws(CardboxError) -> [Review]
    {
        var reviews: [Review] = []
        reviews.reserveCapacity(lines.count)
        for (offset, bytes) in lines {
            if bytes.allSatisfy(isBlank) { continue }
            let number = offset + 1
            guard let review = try? ReviewLine.parse(String(decoding: bytes, as: UTF8.self), lineNumber: number)
            else {
                throw CardboxError.invalid(
                    field: "input", reason: "\(path) line \(number) is not {\"card\", \"rating\": 1-4, \"time\"}")
            }
            reviews.append((review.card, review.rating, review.time))
        }
        return reviews
    }

    /// Blank lines are skipped, judged by bytes: by Characters, this check was a fifth of the
    /// whole command's time.
    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }
}

/// Replays review histories through the scheduler, one JSON line in, one JSON line out:
/// in `{"card":"c1","rating":3,"time":"2025-01-01T09:00:00Z"}` (each card's lines in time order),
/// out `{"card","state","step","stability","difficulty","due","retrievability"}` — the card after the
/// review, and its retrievability just before it.
public struct ReviewReplayer {
    public let scheduler: Scheduler
    private var cards: [String: MemoryState] = [:]

    public init(scheduler: Scheduler) { self.scheduler = scheduler }

    /// Replays one input line; `lineNumber` (from 1) names the line in errors.
    public mutating func replay(line: String, lineNumber: Int) throws -> String {
        let review = try ReviewLine.parse(line, lineNumber: lineNumber)
        let (rating, time) = (review.rating, review.time)
        let card = cards[review.card] ?? .new(at: time)
        if let last = card.lastReview, time < last {
            throw SchedulingError.invalidOption(
                "line \(lineNumber): card \(review.card)'s reviews must come in time order "
                    + "(\(review.text) is before its last)")
        }
        let before = scheduler.retrievability(of: card, at: time)
        let after = scheduler.review(card, rating: rating, at: time)
        cards[review.card] = after
        return Self.output(card: review.card, after, retrievability: before)
    }

    static func output(card: String, _ state: MemoryState, retrievability: Double) -> String {
        let due = Date(timeIntervalSince1970: state.due.timeIntervalSince1970.rounded(.down))
        var fields = [
            "\"card\":" + quoted(card), "\"state\":\"\(state.phase.rawValue)\"",
            "\"step\":" + (state.step.map(String.init) ?? "null"),
            "\"stability\":" + (state.stability.map { "\($0)" } ?? "null"),
            "\"difficulty\":" + (state.difficulty.map { "\($0)" } ?? "null"),
        ]
        fields.append("\"due\":\"" + ISO8601DateFormatter().string(from: due) + "\"")
        fields.append("\"retrievability\":\(retrievability)")
        return "{" + fields.joined(separator: ",") + "}"
    }

    private static func quoted(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
