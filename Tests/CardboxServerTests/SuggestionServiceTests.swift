import CardboxCore
import CardboxServer
import CardboxStore
import CardboxSuggest
import CardboxSyncClient
import Foundation
import Testing

@testable import CardboxHTTP

@Suite("The server's background suggestions and images")
struct SuggestionServiceTests {
    func options(images: (any ImageProvider)?) -> ServerOptions {
        var options = ServerOptions()
        options.replicaFolder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-\(UUID())")
        // An hour: what happens here is started by the account's changes, not by the timer.
        options.suggestions = SuggestionServiceSettings(
            suggestions: DictionarySuggestionProvider(), images: images, interval: .seconds(3600))
        return options
    }

    /// Syncs `store` until `done` holds, for up to `tries` syncs 200 ms apart (30 seconds).
    func syncUntil(_ store: CardboxStore, tries: Int = 150, _ done: () throws -> Bool) async throws -> Bool {
        for _ in 0..<tries {
            _ = try await DeviceSync(testing: store).sync()
            if try done() { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    @Test("an account's changes close together are looked at once, a delay after the first; later ones again")
    func changesCoalesce() async throws {
        let (queued, queue) = AsyncStream.makeStream(of: UUID?.self)
        let changes = ChangedAccounts(delay: .milliseconds(300), queue: queue)
        let (ana, ben) = (UUID(), UUID())
        let start = ContinuousClock.now
        for _ in 0..<5 { await changes.changed(ana) }
        await changes.changed(ben)
        var iterator = queued.makeAsyncIterator()
        let first = [await iterator.next(), await iterator.next()].compactMap { $0 }
        #expect(Set(first) == [ana, ben] && first.count == 2)
        #expect(ContinuousClock.now - start >= .milliseconds(300))
        // Once queued, a new change brings another look, and only that one.
        await changes.changed(ana)
        #expect(await iterator.next() == ana)
        queue.finish()
        #expect(await iterator.next() == nil)
    }

    @Test("a deck's changes start the queue's refill on the server; suggestions and pictures reach every device")
    func afterChanges() async throws {
        try await withServer("sqlite-memory", options: options(images: RenderedImageProvider())) { url, _, accounts in
            _ = try await accounts.addAccount(name: "ana", password: "password ana")
            let phone = try await signIn(try CardboxStore.inMemory(), to: url, user: "ana", password: "password ana")
            let laptop = try await signIn(try CardboxStore.inMemory(), to: url, user: "ana", password: "password ana")
            let deck = try phone.createDeck(
                name: "Spanish", frontLanguage: "es", backLanguage: "en", queuedSuggestions: 3)
            _ = try phone.addCard(to: deck.id, CardDraft(front: "el perro", back: "dog"))
            _ = try phone.addCard(to: deck.id, CardDraft(front: "grande", back: "big"))
            _ = try await DeviceSync(testing: phone).sync()
            let arrived = try await syncUntil(laptop) { try laptop.suggestions(in: deck.id).count == 3 }
            #expect(arrived)
            let visible = try laptop.suggestions(in: deck.id)
            // "el perro" has related words and narrower terms, "grande" opposites too (a Spanish front
            // gets no English example sentences).
            #expect(Set(visible.map(\.category)).count >= 2)
            #expect(visible.allSatisfy { !$0.context.isEmpty })
            for suggestion in visible {
                let hash = try #require(suggestion.imageHash)
                #expect(try laptop.imageData(sha256: hash).mimeType == "image/jpeg")
            }
            // Rejecting one on the phone: the server fills the gap with a new one, not the rejected front.
            _ = try await DeviceSync(testing: phone).sync()
            let rejected = try phone.rejectSuggestion(try phone.suggestions(in: deck.id)[0].id)
            _ = try await DeviceSync(testing: phone).sync()
            let refilled = try await syncUntil(phone) {
                let queued = try phone.suggestions(in: deck.id)
                return queued.count == 3 && !queued.contains { $0.front == rejected.front }
            }
            #expect(refilled)
        }
    }

    @Test("accounts with work due at a time of their own are queued when it comes, each once")
    func dueAccounts() async throws {
        let due = DueAccounts()
        let (ana, ben) = (UUID(), UUID())
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        await due.wake(ana, at: start.addingTimeInterval(60))
        await due.wake(ana, at: start.addingTimeInterval(30))  // the earlier wins
        await due.wake(ben, at: start.addingTimeInterval(90))
        #expect(await due.take(by: start).isEmpty)
        #expect(await due.take(by: start.addingTimeInterval(30)) == [ana])
        #expect(await due.take(by: start.addingTimeInterval(60)).isEmpty)
        #expect(await due.take(by: start.addingTimeInterval(100)) == [ben])
    }

    @Test("a suggestion's image that failed is tried again once its wait is over, with no change and no sweep")
    func imageRetriedWhenDue() async throws {
        let clock = MovableClock()
        let images = FailingFirst(failures: 1)
        var options = options(images: images)
        options.now = { clock.now }
        try await withServer("sqlite-memory", options: options) { url, _, accounts in
            _ = try await accounts.addAccount(name: "cy", password: "password cy")
            let phone = try await signIn(try CardboxStore.inMemory(), to: url, user: "cy", password: "password cy")
            let deck = try phone.createDeck(
                name: "Spanish", frontLanguage: "es", backLanguage: "en", queuedSuggestions: 1)
            _ = try phone.addCard(to: deck.id, CardDraft(front: "el perro", back: "dog"))
            _ = try await DeviceSync(testing: phone).sync()
            let waiting = try await syncUntil(phone) {
                try phone.suggestions(in: deck.id, includeAll: true).count == 1 && images.calls == 1
            }
            #expect(waiting)
            #expect(try phone.suggestions(in: deck.id).isEmpty)
            // The first wait after a failure is 30 seconds. The failed attempt may still be on its way
            // to the copy when the clock moves (its wait then counts from the moved clock): moved
            // again until the image is made, never past the five minutes a device's clock may lag.
            var made = false
            for _ in 0..<6 where !made {
                clock.advance(by: ImageRetry.firstDelay + 1)
                made = try await syncUntil(phone, tries: 25) { try phone.suggestions(in: deck.id).count == 1 }
            }
            #expect(made && images.calls == 2)
        }
    }

    @Test("without an image provider, new suggestions wait invisible for an image")
    func noImages() async throws {
        try await withServer("sqlite-memory", options: options(images: nil)) { url, _, accounts in
            _ = try await accounts.addAccount(name: "bo", password: "password bo")
            let phone = try await signIn(try CardboxStore.inMemory(), to: url, user: "bo", password: "password bo")
            let deck = try phone.createDeck(
                name: "Spanish", frontLanguage: "es", backLanguage: "en", queuedSuggestions: 2)
            _ = try phone.addCard(to: deck.id, CardDraft(front: "grande", back: "big"))
            _ = try await DeviceSync(testing: phone).sync()
            let arrived = try await syncUntil(phone) { try phone.suggestions(in: deck.id, includeAll: true).count == 2 }
            #expect(arrived)
            #expect(try phone.suggestions(in: deck.id).isEmpty)
        }
    }
}

/// A clock a test moves by hand.
final class MovableClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date()

    var now: Date { lock.withLock { current } }

    func advance(by seconds: TimeInterval) { lock.withLock { current = current.addingTimeInterval(seconds) } }
}

/// Drawn pictures, after failing the first `failures` attempts.
final class FailingFirst: ImageProvider, @unchecked Sendable {
    let name = "failing first"
    private let failures: Int
    private let lock = NSLock()
    private var attempts = 0

    init(failures: Int) { self.failures = failures }

    var calls: Int { lock.withLock { attempts } }

    func image(for request: ImageRequest) async throws -> Data {
        let attempt = lock.withLock {
            attempts += 1
            return attempts
        }
        guard attempt > failures else { throw CardboxError.storage("the image service is down (attempt \(attempt))") }
        return try await RenderedImageProvider().image(for: request)
    }
}
