import CardboxCore
import CardboxImaging
import CardboxStore
import Foundation
import Testing

@testable import CardboxSuggest

/// A clock the test moves.
final class MovableClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_760_000_000)
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// An image provider that fails until told otherwise, counting its calls.
final class FlakyImages: ImageProvider, @unchecked Sendable {
    private let lock = NSLock()
    private var working = false
    private(set) var calls = 0
    var name: String { "flaky" }

    func recover() { lock.withLock { working = true } }

    func image(for request: ImageRequest) async throws -> Data {
        let works = lock.withLock {
            calls += 1
            return working
        }
        guard works else { throw CardboxError.invalid(field: "image service", reason: "is down") }
        return try ImageIngest.renderCard(title: request.front, caption: request.back, size: 64, color: (0, 0, 0))
    }
}

@Suite("Seed 000's image pipeline")
struct ImagePipelineTests {
    func store(_ clock: MovableClock, path: String? = nil) throws -> CardboxStore {
        let environment = StoreEnvironment(
            now: { clock.now }, newID: { UUID() }, makeRandom: { SystemRandomNumberGenerator() })
        if let path { return try CardboxStore.open(path: path, environment: environment) }
        return try CardboxStore.inMemory(environment: environment)
    }

    func queue(_ store: CardboxStore, _ fronts: [String]) throws -> [Suggestion] {
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en", queuedSuggestions: 5)
        return try store.addGeneratedSuggestions(
            to: deck.id, fronts.map { SuggestionDraft(front: $0, back: "\($0) in English") })
    }

    @Test("the offline provider draws each waiting suggestion's picture; it becomes visible")
    func offline() async throws {
        let store = try store(MovableClock())
        _ = try queue(store, ["el gato", "la casa"])
        let report = try await ImagePipeline.run(in: StoreWorkspace(store), provider: RenderedImageProvider())
        #expect(Set(report.made.map(\.front)) == ["el gato", "la casa"])
        #expect(report.made.allSatisfy { $0.isVisible && $0.imageHash != nil })
        let image = try store.imageData(sha256: try #require(report.made.first?.imageHash))
        #expect(image.mimeType == "image/jpeg")
        #expect(try ImageIngest.ingest(image.data).width == 512)
        #expect(try store.dueImageJobs().isEmpty)
    }

    @Test("failures keep it invisible and wait 30 s, 1, 2, 4 minutes; the fifth removes it")
    func backoffAndRemoval() async throws {
        let clock = MovableClock()
        let store = try store(clock)
        let suggestion = try queue(store, ["el gato"])[0]
        let provider = FlakyImages()
        let workspace = StoreWorkspace(store)
        var waits: [TimeInterval] = []
        for _ in 1..<ImageRetry.maximumFailures {
            let report = try await ImagePipeline.run(in: workspace, provider: provider)
            let retry = try #require(report.retrying.first)
            #expect(retry.reason.contains("is down"))
            waits.append(try #require(retry.nextAttemptAt).timeIntervalSince(clock.now))
            // Not due before its time.
            clock.advance(waits.last! - 1)
            #expect(try await ImagePipeline.run(in: workspace, provider: provider) == ImagePipelineReport())
            #expect(try store.suggestion(suggestion.id).isVisible == false)
            clock.advance(1)
        }
        #expect(waits == [30, 60, 120, 240])
        let last = try await ImagePipeline.run(in: workspace, provider: provider)
        #expect(last.removed.map(\.front) == ["el gato"])
        #expect(try store.suggestions(in: suggestion.deckId, includeAll: true).isEmpty)
        #expect(provider.calls == ImageRetry.maximumFailures)
    }

    @Test("the attempts survive a restart: a reopened store keeps the wait and the count")
    func survivesRestart() async throws {
        let clock = MovableClock()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let provider = FlakyImages()
        do {
            let first = try store(clock, path: path)
            _ = try queue(first, ["el gato"])
            _ = try await ImagePipeline.run(in: StoreWorkspace(first), provider: provider)
            _ = try await ImagePipeline.run(in: StoreWorkspace(first), provider: provider)
            clock.advance(30)
            _ = try await ImagePipeline.run(in: StoreWorkspace(first), provider: provider)
        }
        let reopened = try store(clock, path: path)
        let waiting = try await ImagePipeline.run(in: StoreWorkspace(reopened), provider: provider)
        #expect(waiting == ImagePipelineReport())
        clock.advance(60)
        provider.recover()
        let made = try await ImagePipeline.run(in: StoreWorkspace(reopened), provider: provider)
        #expect(made.made.count == 1)
        #expect(provider.calls == 3)
    }

    @Test("a skipped or reviewed suggestion is not worked on")
    func skipped() async throws {
        let store = try store(MovableClock())
        let queued = try queue(store, ["el gato", "la casa"])
        _ = try store.markSuggestionReady(
            queued[0].id, image: try ImageIngest.sample(width: 8, height: 6, format: .png))
        #expect(try store.dueImageJobs().map(\.suggestion.front) == ["la casa"])
    }
}
