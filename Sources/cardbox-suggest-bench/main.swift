import ArgumentParser
import CardboxCore
import CardboxImaging
import CardboxStore
import CardboxSuggest
import Foundation

/// Measures issue 10's figures: suggestions made per second for a deck of 1,000 cards, and image
/// ingest (decode, check, shrink, thumbnail) per second with its peak memory for 12-megapixel photos.
@main
struct SuggestBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardbox-suggest-bench",
        abstract: "Benchmark suggestions and image ingest.",
        discussion: """
            Run it through scripts/suggest_bench.sh, which builds it in release mode.

            Example:
              .build/release/cardbox-suggest-bench --cards 1000 --photos 10
            """)

    @Option(help: "Cards in the deck that suggestions are made for.") var cards = 1_000
    @Option(help: "Suggestions the deck's queue asks for.") var queue = 200
    @Option(help: "12-megapixel photos ingested per format.") var photos = 10
    @Option(help: "Repetitions of the suggestion step (the median is reported).") var runs = 5

    func run() async throws {
        try await suggestions()
        try images()
    }

    /// A Spanish–English deck of `cards` real word pairs (from FreeDict), then the maintenance step
    /// filling a queue of `queue`, from an empty queue each run.
    func suggestions() async throws {
        let lexicon = try BilingualLexicon(language: "es", folder: DictionarySuggestionProvider.defaultDictionaryFolder)
        let dictionary = try DictdDictionary(
            index: DictionarySuggestionProvider.defaultDictionaryFolder.appendingPathComponent(
                "freedict-spa-eng.index"),
            text: DictionarySuggestionProvider.defaultDictionaryFolder.appendingPathComponent(
                "freedict-spa-eng.dict.dz"))
        var pairs: [(String, String)] = []
        for headword in dictionary.headwords.sorted() where pairs.count < cards {
            if let english = lexicon.english(for: headword).first { pairs.append((headword, english)) }
        }
        print("suggestions: a Spanish–English deck of \(pairs.count) cards (FreeDict pairs), a queue of \(queue)")
        var times: [Double] = []
        var made = 0
        for run in 1...runs {
            let store = try CardboxStore.inMemory()
            _ = try store.setPlan(.premium)
            let deck = try store.createDeck(
                name: "Spanish", frontLanguage: "es", backLanguage: "en", queuedSuggestions: queue)
            _ = try store.addCards(to: deck.id, pairs.map { CardDraft(front: $0.0, back: $0.1) })
            let start = ContinuousClock.now
            let report = try await SuggestionMaintenance.refill(
                deck.id, in: store, provider: DictionarySuggestionProvider())
            let seconds = (ContinuousClock.now - start).seconds
            times.append(seconds)
            made = report.added.count
            print("  run \(run)/\(runs): \(made) suggestions in \(Self.ms(seconds))")
        }
        let median = times.sorted()[times.count / 2]
        print(
            "  median: \(made) suggestions in \(Self.ms(median)): \(Int(Double(made) / median)) suggestions/s")
    }

    /// `photos` 4032 × 3024 photos per format, each decoded, checked, shrunk to 2048 px and
    /// thumbnailed; peak memory is the process's high-water mark, reset after the photos are made.
    func images() throws {
        for format in [ImageFormat.jpeg, .heic] {
            print("image ingest: \(photos) photos of 4032 × 3024 (12.2 megapixels), \(format.rawValue)")
            var inputs: [Data] = []
            for index in 0..<photos {
                inputs.append(try ImageIngest.sample(width: 4032, height: 3024, seed: index + 1, format: format))
                Self.progress("making photo \(index + 1)/\(photos)")
            }
            let bytes = inputs.map(\.count).reduce(0, +) / inputs.count
            Self.progress(nil)
            print("  photos made: \(bytes / 1000) kB each on average")
            Memory.resetPeak()
            let before = Memory.peakKilobytes()
            let start = ContinuousClock.now
            for (index, photo) in inputs.enumerated() {
                let image = try ImageIngest.ingest(photo)
                precondition(image.width == 2048 && image.thumbnail.width == 256)
                Self.progress("ingested \(index + 1)/\(photos)")
            }
            let seconds = (ContinuousClock.now - start).seconds
            let peak = Memory.peakKilobytes()
            Self.progress(nil)
            print(
                "  \(photos) in \(Self.ms(seconds)): \(String(format: "%.1f", Double(photos) / seconds)) photos/s, "
                    + "\(Self.ms(seconds / Double(photos))) each; peak memory \(peak / 1024) MB "
                    + "(\(max(0, peak - before) / 1024) MB above the photos held in memory)")
        }
    }

    /// A progress line on stderr, rewritten in place; nil clears it.
    static func progress(_ text: String?) {
        FileHandle.standardError.write(Data((text.map { "\r  \($0)" } ?? "\r\u{1B}[K").utf8))
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
}

/// The process's peak resident memory (Linux: `VmHWM`, reset by writing 5 to `clear_refs`).
enum Memory {
    static func resetPeak() { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }

    static func peakKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
