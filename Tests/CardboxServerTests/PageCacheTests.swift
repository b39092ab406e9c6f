import CardboxCore
import Foundation
import Hummingbird
import NIOCore
import Synchronization
import Testing

@testable import CardboxHTTP

@Suite("Pages kept for a moment")
struct PageCacheTests {
    static func key(_ address: String = "/decks/1", cursor: Int64 = 7, edition: Int = 0) -> PageCache.Key {
        PageCache.Key(
            account: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, session: "csrf", plan: .free,
            cursor: cursor, edition: edition, address: address)
    }

    /// A page that says how many pages `made` had made before it.
    static func page(_ made: inout Int, status: HTTPResponse.Status = .ok) -> WebPage.Rendered {
        made += 1
        return WebPage.Rendered(body: ByteBuffer(string: "page \(made)"), status: status)
    }

    /// A clock the test moves: pages age only when it says so.
    final class TestClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    }

    @Test("the same page is made once within its lifetime and again after it, or when what it shows moves on")
    func keptForItsLifetime() async throws {
        let clock = TestClock()
        let cache = PageCache(lifetime: .milliseconds(200)) { clock.now }
        var made = 0
        let first = try await cache.page(Self.key()) { Self.page(&made) }
        let again = try await cache.page(Self.key()) { Self.page(&made) }
        #expect(String(buffer: again.body) == String(buffer: first.body) && made == 1)
        _ = try await cache.page(Self.key(cursor: 8)) { Self.page(&made) }
        _ = try await cache.page(Self.key(edition: 1)) { Self.page(&made) }
        #expect(made == 3)
        clock.advance(by: .milliseconds(199))
        _ = try await cache.page(Self.key()) { Self.page(&made) }
        #expect(made == 3)
        clock.advance(by: .milliseconds(1))
        let later = try await cache.page(Self.key()) { Self.page(&made) }
        #expect(String(buffer: later.body) == "page 4")
    }

    @Test("a refusal or an error page is never kept; the cache keeps at most its capacity")
    func keepsOnlyPagesAndStaysBounded() async throws {
        let clock = TestClock()
        let cache = PageCache(lifetime: .milliseconds(100), capacity: 10) { clock.now }
        var made = 0
        for _ in 0..<2 { _ = try await cache.page(Self.key()) { Self.page(&made, status: .badRequest) } }
        #expect(made == 2 && cache.count == 0)
        for index in 0..<25 { _ = try await cache.page(Self.key("/decks/\(index)")) { Self.page(&made) } }
        #expect(cache.count <= 10)
        // Once the ones kept are stale, a new page makes room by dropping them; the new one is kept.
        clock.advance(by: .milliseconds(100))
        for index in 0..<10 { _ = try await cache.page(Self.key("/lists/\(index)")) { Self.page(&made) } }
        let before = made
        _ = try await cache.page(Self.key("/lists/9")) { Self.page(&made) }
        #expect(cache.count <= 10 && made == before)
    }
}
