import CardboxCore
import CardboxScheduling
import Foundation
import Testing

@testable import CardboxHTTP

/// The browser's scheduler against the native one: the py-fsrs reference histories the scheduling
/// tests replay, and histories drawn at random (fuzz on, all four ratings, days and minutes apart),
/// each review run by Node through `scheduler.js` over the module `cardbox serve` sends.
@Suite("The FSRS step in WebAssembly gives the native scheduler's every bit")
struct FSRSWasmTests {
    struct Settings: Codable {
        var weights: [Double]
        var desiredRetention: Double
        var maximumInterval: Int
        var learningSteps: [Double]
        var relearningSteps: [Double]
    }

    struct Review: Encodable {
        var card: String
        var rating: Int
        var now: Double
        var fuzz: Bool
        var reps: Int
    }

    struct History: Encodable {
        var settings: Settings
        var reviews: [Review]
    }

    /// A next state, its numbers as the bits of their doubles.
    struct Outcome: Decodable, Equatable, CustomStringConvertible {
        var phase: String
        var step: Int?
        var stability: String?
        var difficulty: String?
        var due: String

        var description: String {
            "\(phase) \(step.map(String.init) ?? "-") s=\(stability ?? "-") d=\(difficulty ?? "-") due=\(due)"
        }
    }

    static func bits(_ value: Double) -> String {
        let hex = String(value.bitPattern, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The native scheduler's outcome of each review of `history`.
    static func native(_ history: History) throws -> [Outcome] {
        let settings = history.settings
        let scheduler = try Scheduler(
            parameters: FSRSParameters(settings.weights), desiredRetention: settings.desiredRetention,
            learningSteps: settings.learningSteps, relearningSteps: settings.relearningSteps,
            maximumInterval: settings.maximumInterval)
        var cards: [String: MemoryState] = [:]
        return history.reviews.map { review in
            let now = Date(timeIntervalSince1970: review.now)
            let card = cards[review.card] ?? .new(at: now)
            let fuzz = review.fuzz ? IntervalFuzz.picker(cardId: CardID(review.card)!, reps: review.reps) : nil
            let next = scheduler.review(card, rating: Rating(rawValue: review.rating)!, at: now, fuzz: fuzz)
            cards[review.card] = next
            return Outcome(
                phase: next.phase.rawValue, step: next.step, stability: next.stability.map(bits),
                difficulty: next.difficulty.map(bits), due: bits(next.due.timeIntervalSince1970))
        }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The reference histories of `Tests/CardboxSchedulingTests/Fixtures`, made by py-fsrs.
    static func referenceHistories() throws -> [History] {
        struct Fixture: Decodable {
            struct Options: Decodable {
                var parameters: [Double]
                var desiredRetention: Double
                var learningSteps: String
                var relearningSteps: String
                var maximumInterval: Int
            }
            struct Input: Decodable {
                var card: String
                var rating: Int
                var time: String
            }
            var options: Options
            var input: [Input]
        }
        let folder = root.appendingPathComponent("Tests/CardboxSchedulingTests/Fixtures")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted()
            .map { name in
                let fixture = try JSONDecoder().decode(
                    Fixture.self, from: Data(contentsOf: folder.appendingPathComponent(name)))
                let options = fixture.options
                // Each named card of the fixture gets an id of its own (the fuzz would draw from it).
                var ids: [String: String] = [:]
                return History(
                    settings: Settings(
                        weights: options.parameters, desiredRetention: options.desiredRetention,
                        maximumInterval: options.maximumInterval,
                        learningSteps: try StepList.parse(options.learningSteps, field: "learning steps"),
                        relearningSteps: try StepList.parse(options.relearningSteps, field: "relearning steps")),
                    reviews: try fixture.input.map { input in
                        let id = ids[input.card] ?? UUID().uuidString.lowercased()
                        ids[input.card] = id
                        guard let time = ISOTime.parse(input.time) else {
                            throw CardboxError.invalid(field: "time", reason: input.time)
                        }
                        return Review(
                            card: id, rating: input.rating, now: time.timeIntervalSince1970, fuzz: false, reps: 0)
                    })
            }
    }

    /// Histories drawn with a fixed seed: several decks' settings, cards answered with every rating,
    /// minutes to months apart, fuzz on.
    static func randomHistories() -> [History] {
        var random = SeededRandom(seed: 2026)
        let stepLists: [[Double]] = [[60, 600], [], [600], [60, 300, 1_800, 86_400]]
        return (0..<12).map { index in
            let settings = Settings(
                weights: FSRSParameters.defaultValues, desiredRetention: [0.9, 0.8, 0.95, 0.7][index % 4],
                maximumInterval: [36_500, 180, 36_500][index % 3], learningSteps: stepLists[index % 4],
                relearningSteps: stepLists[(index + 2) % 4])
            var reviews: [Review] = []
            var now = 1_767_225_600.0 + Double(index) * 86_400
            for card in (0..<20).map({ _ in UUID().uuidString.lowercased() }) {
                var reps = 0
                for _ in 0..<Int.random(in: 1...14, using: &random) {
                    now += [30, 600, 3_600, 86_400, 864_000, 8_640_000][Int.random(in: 0...5, using: &random)]
                    reviews.append(
                        Review(
                            card: card, rating: Int.random(in: 1...4, using: &random), now: now, fuzz: true, reps: reps)
                    )
                    reps += 1
                }
            }
            return History(settings: settings, reviews: reviews)
        }
    }

    @Test("every review of every history: phase, step, stability, difficulty and due time, bit for bit")
    func sameBits() throws {
        let histories = try Self.referenceHistories() + Self.randomHistories()
        #expect(histories.count >= 19 && histories.map(\.reviews.count).reduce(0, +) > 1_000)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-wasm-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (module, script, cases) = (
            folder.appendingPathComponent("fsrs.wasm"), folder.appendingPathComponent("scheduler.js"),
            folder.appendingPathComponent("cases.json")
        )
        try WebAssets.schedulerModule.write(to: module)
        try Data(WebAssets.schedulerScript.utf8).write(to: script)
        try JSONEncoder().encode(histories).write(to: cases)
        let node = Process()
        node.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        node.arguments = [
            "node", Self.root.appendingPathComponent("Tests/Wasm/run_cases.cjs").path, script.path, module.path,
            cases.path,
        ]
        let output = Pipe()
        node.standardOutput = output
        try node.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        node.waitUntilExit()
        try #require(node.terminationStatus == 0, "node could not run the module")
        let browser = try JSONDecoder().decode([[Outcome]].self, from: printed)
        try #require(browser.count == histories.count)
        for (history, outcomes) in zip(histories, browser) {
            let native = try Self.native(history)
            #expect(outcomes.count == native.count)
            for (index, (got, expected)) in zip(outcomes, native).enumerated() where got != expected {
                Issue.record("review \(index) of a history: the browser's \(got), the device's \(expected)")
                break
            }
        }
    }

    @Test("the module asks the page for nothing: no import section (no allocator, no libc), a few kilobytes")
    func selfContained() throws {
        let bytes = [UInt8](WebAssets.schedulerModule)
        #expect(bytes.starts(with: [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]))
        #expect(bytes.count < 32_000)
        // Sections: an id byte, a LEB128 size, the content. Imports are section 2.
        var sections: [UInt8] = []
        var offset = 8
        while offset < bytes.count {
            let id = bytes[offset]
            var (size, shift) = (0, 0)
            offset += 1
            while true {
                let byte = bytes[offset]
                size |= Int(byte & 0x7f) << shift
                offset += 1
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            sections.append(id)
            offset += size
        }
        #expect(offset == bytes.count && sections.contains(7) && !sections.contains(2))
    }
}
