import CardboxCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// Pages this server made in the last second, per session, kept with what they were made from: the
/// account's cursor in the sync state, its edition in this process (its store's writes here, see
/// `AccountReplicas.edition(of:)`), its plan, and the address asked for. A page asked for again
/// with all of these unchanged is sent again without reading the store or rendering: what it shows
/// can only have changed with the time of day (a card falling due), and a second is the most that
/// is behind. A person's own action always moves the edition or the cursor before its answer goes
/// out, so the page after it is made afresh.
final class PageCache: Sendable {
    struct Key: Hashable, Sendable {
        let account: UUID
        /// The session's CSRF token: the page's forms carry it, so a page is never another session's.
        let session: String
        let plan: Plan
        let cursor: Int64
        let edition: Int
        let address: String
    }

    private struct Entry {
        let page: WebPage.Rendered
        let madeAt: ContinuousClock.Instant
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let lifetime: Duration
    /// Past this many pages, the stale ones are dropped, and all of them if none were stale.
    private let capacity: Int
    /// The time pages are made at: the continuous clock's, or a test's own.
    private let now: @Sendable () -> ContinuousClock.Instant

    init(
        lifetime: Duration = .seconds(1), capacity: Int = 2_000,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
    }

    /// The page under `key` when it was made less than the lifetime ago; otherwise `make`'s, kept
    /// when it is a page of its own (200), not a refusal or a page with an error on it.
    func page(_ key: Key, make: () async throws -> WebPage.Rendered) async throws -> WebPage.Rendered {
        let now = now()
        if let entry = entries.withLock({ $0[key] }), now - entry.madeAt < lifetime { return entry.page }
        let page = try await make()
        guard page.status == .ok else { return page }
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { now - $0.value.madeAt < lifetime }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[key] = Entry(page: page, madeAt: now)
        }
        return page
    }

    var count: Int { entries.withLock { $0.count } }
}
