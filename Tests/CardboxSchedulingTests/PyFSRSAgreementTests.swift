import Foundation
import Testing

@testable import CardboxScheduling

/// Cases made by py-fsrs 6 (scripts/fsrs_cases.py): the replay must agree number for number.
struct ReferenceCase: Decodable, CustomTestStringConvertible {
    struct Options: Decodable {
        var parameters: [Double]
        var desiredRetention: Double
        var learningSteps: String
        var relearningSteps: String
        var maximumInterval: Int
    }

    struct Review: Decodable {
        var card: String
        var rating: Int
        var time: String
    }

    struct Expected: Decodable {
        var card: String
        var state: String
        var step: Int?
        var stability: Double
        var difficulty: Double
        var due: String
        var retrievability: Double
    }

    var name: String
    var options: Options
    var input: [Review]
    var expected: [Expected]

    var testDescription: String { name }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static var all: [ReferenceCase] {
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }.compactMap {
            try? JSONDecoder().decode(ReferenceCase.self, from: Data(contentsOf: $0))
        }
    }

    func scheduler() throws -> Scheduler {
        try Scheduler(
            parameters: FSRSParameters(options.parameters), desiredRetention: options.desiredRetention,
            learningSteps: StepList.parse(options.learningSteps, field: "learning steps"),
            relearningSteps: StepList.parse(options.relearningSteps, field: "relearning steps"),
            maximumInterval: options.maximumInterval)
    }
}

@Suite("Agreement with py-fsrs 6")
struct PyFSRSAgreementTests {
    @Test("the committed reference cases are all there")
    func casesPresent() {
        let cases = ReferenceCase.all
        #expect(cases.count == 7)
        #expect(cases.map(\.input.count).reduce(0, +) > 1_000)
    }

    @Test(
        "replay agrees: state, step, stability, difficulty (1e-6), due (to the second), retrievability",
        arguments: ReferenceCase.all)
    func agreement(_ reference: ReferenceCase) throws {
        var replayer = ReviewReplayer(scheduler: try reference.scheduler())
        for (index, (review, expected)) in zip(reference.input, reference.expected).enumerated() {
            let line = String(
                decoding: try JSONEncoder().encode(["card": review.card, "time": review.time]), as: UTF8.self
            )
            .replacingOccurrences(of: "}", with: ",\"rating\":\(review.rating)}")
            let output = try replayer.replay(line: line, lineNumber: index + 1)
            let got = try JSONDecoder().decode(ReferenceCase.Expected.self, from: Data(output.utf8))
            let place = "\(reference.name) review \(index + 1) (\(review.card))"
            #expect(got.card == expected.card && got.state == expected.state && got.step == expected.step, "\(place)")
            #expect(relativeError(got.stability, expected.stability) <= 1e-6, "\(place): stability")
            #expect(relativeError(got.difficulty, expected.difficulty) <= 1e-6, "\(place): difficulty")
            #expect(got.due == expected.due, "\(place): due")
            #expect(relativeError(got.retrievability, expected.retrievability) <= 1e-6, "\(place): retrievability")
        }
    }

    func relativeError(_ a: Double, _ b: Double) -> Double {
        a == b ? 0 : abs(a - b) / max(abs(b), 1e-12)
    }
}

@Suite("Scheduler rules")
struct SchedulerRuleTests {
    let start = Date(timeIntervalSince1970: 1_735_722_000)

    @Test("parameters outside FSRS's bounds are refused, naming the parameter")
    func bounds() {
        var values = FSRSParameters.defaultValues
        values[7] = 0.9
        #expect(throws: SchedulingError.invalidParameters("parameter w7 = 0.9 is outside FSRS's bounds 0.001…0.75")) {
            try FSRSParameters(values)
        }
        #expect(throws: SchedulingError.invalidParameters("FSRS-6 takes 21 parameters (w0…w20), got 3")) {
            try FSRSParameters([1, 2, 3])
        }
        #expect(throws: SchedulingError.self) { try Scheduler(desiredRetention: 1.0) }
    }

    @Test("steps are written 1m,10m; an empty string means none; nonsense is refused")
    func steps() throws {
        #expect(try StepList.parse("1m,10m", field: "x") == [60, 600])
        #expect(try StepList.parse("1h, 30s,2d", field: "x") == [3_600, 30, 172_800])
        #expect(try StepList.parse("", field: "x").isEmpty)
        #expect(throws: SchedulingError.self) { try StepList.parse("10x", field: "learning steps") }
        // Spaces and tabs around a step are allowed, a no-break space too; a line break is not.
        #expect(try StepList.parse(" 1m\t,\u{00A0}10m\u{3000}", field: "x") == [60, 600])
        #expect(throws: SchedulingError.self) { try StepList.parse("1m\n", field: "x") }
        #expect(throws: SchedulingError.self) { try StepList.parse("0m", field: "x") }
    }

    @Test("a new card's retrievability is 0; it falls with whole elapsed days")
    func retrievability() throws {
        let scheduler = try Scheduler()
        let new = MemoryState.new(at: start)
        #expect(scheduler.retrievability(of: new, at: start) == 0)
        let reviewed = scheduler.review(new, rating: .good, at: start)
        #expect(scheduler.retrievability(of: reviewed, at: start.addingTimeInterval(86_399)) == 1)
        let dayLater = scheduler.retrievability(of: reviewed, at: start.addingTimeInterval(86_400))
        let weekLater = scheduler.retrievability(of: reviewed, at: start.addingTimeInterval(7 * 86_400))
        #expect(dayLater < 1 && weekLater < dayLater)
    }

    @Test("intervals never pass the maximum")
    func maximum() throws {
        let scheduler = try Scheduler(learningSteps: [], maximumInterval: 5)
        var card = MemoryState.new(at: start)
        var now = start
        for _ in 0..<10 {
            card = scheduler.review(card, rating: .easy, at: now)
            #expect(card.due.timeIntervalSince(now) <= 5 * 86_400)
            now = card.due
        }
    }

    @Test("fuzz keeps day intervals inside py-fsrs's band and leaves short ones alone")
    func fuzz() throws {
        let scheduler = try Scheduler(learningSteps: [])
        var card = MemoryState.new(at: start)
        card = scheduler.review(card, rating: .easy, at: start)
        let later = start.addingTimeInterval(card.due.timeIntervalSince(start))
        let plain = scheduler.review(card, rating: .good, at: later)
        let days = Int(plain.due.timeIntervalSince(later) / 86_400)
        var seen: Set<Int> = []
        for pick in [{ (range: ClosedRange<Int>) in range.lowerBound }, { $0.upperBound }] {
            let fuzzed = scheduler.review(card, rating: .good, at: later, fuzz: pick)
            seen.insert(Int(fuzzed.due.timeIntervalSince(later) / 86_400))
        }
        #expect(days > 7)
        #expect(seen.count == 2 && seen.allSatisfy { abs($0 - days) <= Int(Double(days) * 0.15) + 1 })
        let first = scheduler.review(MemoryState.new(at: start), rating: .again, at: start, fuzz: { $0.upperBound })
        #expect(first.due == scheduler.review(MemoryState.new(at: start), rating: .again, at: start).due)
    }

    @Test("replay names the line at fault")
    func badLines() throws {
        var replayer = ReviewReplayer(scheduler: try Scheduler())
        #expect(
            throws: SchedulingError.invalidOption(
                "line 1: rating must be 1 (again), 2 (hard), 3 (good) or 4 (easy), got 5")
        ) {
            try replayer.replay(line: #"{"card":"c","rating":5,"time":"2025-01-01T09:00:00Z"}"#, lineNumber: 1)
        }
        #expect(throws: SchedulingError.self) { try replayer.replay(line: "nope", lineNumber: 2) }
        _ = try replayer.replay(line: #"{"card":"c","rating":3,"time":"2025-01-02T09:00:00Z"}"#, lineNumber: 3)
        #expect(throws: SchedulingError.self) {
            try replayer.replay(line: #"{"card":"c","rating":3,"time":"2025-01-01T09:00:00Z"}"#, lineNumber: 4)
        }
    }
}

@Suite("ISO 8601 times")
struct ISOTimeTests {
    @Test("the hand parser agrees with Foundation's formatter")
    func agreement() {
        let formatter = ISO8601DateFormatter()
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let date = Date(
                timeIntervalSince1970: Double(Int.random(in: -2_000_000_000...4_000_000_000, using: &random)))
            let text = formatter.string(from: date)
            #expect(ISOTime.parse(text) == date, "\(text)")
        }
        #expect(ISOTime.parse("2025-01-01T09:00:00.250Z") == Date(timeIntervalSince1970: 1_735_722_000.25))
        #expect(ISOTime.parse("2025-01-01T10:00:00+01:00") == Date(timeIntervalSince1970: 1_735_722_000))
        #expect(ISOTime.parse("2025-13-01T09:00:00Z") == nil)
        #expect(ISOTime.parse("yesterday") == nil)
    }

    @Test("many fractional digits are read, not overflowed: the first nine count")
    func longFractions() {
        let base = 1_735_722_000.0
        let parsed = ISOTime.parse("2025-01-01T09:00:00.9999999999999999999Z")
        #expect(parsed.map { abs($0.timeIntervalSince1970 - (base + 0.999_999_999)) < 1e-6 } == true)
        #expect(ISOTime.parse("2025-01-01T09:00:00." + String(repeating: "5", count: 500) + "Z") != nil)
        #expect(ISOTime.parse("2025-01-01T09:00:00.Z") == nil)
        #expect(ISOTime.parse("2025-01-01T09:00:00.12x4Z") == nil)
        #expect(ISOTime.parse("2025-01-01T09:00:00.1234567890x2Z") == nil)
        // Found by fuzzing: a long fraction without Z used to reach Foundation's formatter and crash it.
        #expect(ISOTime.parse("2025-01-01T09:00:00." + String(repeating: "0", count: 40) + "0y9b") == nil)
        #expect(ISOTime.parse("2025-01-01T10:00:00.123456789+01:00") != nil)
    }

    @Test("impossible dates and times are refused, not rolled over into the next month or day")
    func impossibleFields() {
        for text in [
            "2025-02-31T09:00:00Z", "2025-02-29T09:00:00Z", "2025-04-31T09:00:00Z", "2100-02-29T00:00:00Z",
            "2025-01-01T24:00:00Z", "2025-01-01T09:60:00Z", "2025-01-01T09:00:60Z", "2025-00-10T09:00:00Z",
            "2025-02-31T10:00:00+01:00", "2025-01-32T10:00:00+01:00",
        ] {
            #expect(ISOTime.parse(text) == nil, "\(text)")
        }
        #expect(ISOTime.parse("2024-02-29T09:00:00Z") != nil)
        #expect(ISOTime.parse("2000-02-29T09:00:00Z") != nil)
    }

    @Test("a review line with an impossible time names the line and the field")
    func reviewLineErrors() {
        #expect(
            throws: SchedulingError.invalidOption(
                "line 7: time '2025-02-31T09:00:00Z' is not an ISO 8601 time like 2025-01-01T09:00:00Z")
        ) {
            try ReviewLine.parse(#"{"card":"c1","rating":3,"time":"2025-02-31T09:00:00Z"}"#, lineNumber: 7)
        }
    }
}
