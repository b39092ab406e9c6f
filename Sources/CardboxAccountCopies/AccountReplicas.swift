import CardboxCore
import CardboxServer
import CardboxStore
import CardboxSync
import Crypto
import Foundation
import Synchronization

/// The server's own device store of each account, in a cache folder: an ordinary store brought up to
/// date by pulling the account's sync state, as any device does. It is what the server hands a new
/// device as a snapshot (one file, copied whole, instead of every record merged one by one), and can
/// always be made again from the sync state, so the folder is only a cache: delete it and it fills
/// again. Servers sharing a PostgreSQL database each keep their own.
public actor AccountReplicas {
    private let setting: CopySetting
    /// The copies in use, at most `openStoresKept`: past that, the least recently used is let go.
    private var copies: [UUID: AccountCopy] = [:]
    /// How recently each copy was asked for.
    private var lastUse: [UUID: UInt64] = [:]
    private var uses: UInt64 = 0
    /// Copies being let go, by account: a new copy of the account waits for its old one's close, so
    /// two never have the account's file open.
    private var closing: [UUID: (id: UUID, task: Task<Void, Never>)] = [:]
    /// Each account's edition (see `edition(of:)`).
    private nonisolated let editions = Editions()

    /// A snapshot file and the sync-state cursor it holds everything up to.
    struct Snapshot: Sendable {
        let path: String
        let cursor: Int64
        /// The file's SHA-256 (lowercase hex): the device checks what arrived against it.
        let sha256: String

        func opened() -> OpenSnapshot? {
            guard let file = FileHandle(forReadingAtPath: path),
                let size = try? file.seekToEnd(), (try? file.seek(toOffset: 0)) != nil
            else { return nil }
            return OpenSnapshot(file: file, size: Int(size), cursor: cursor, sha256: sha256)
        }
    }

    /// A snapshot opened for one reader, who closes `file` when done.
    public struct OpenSnapshot: @unchecked Sendable {
        public let file: FileHandle
        public let size: Int
        public let cursor: Int64
        public let sha256: String
    }

    /// Copies kept in use at once: each holds its store's files and page cache.
    public static let openStoresKept = 64

    /// How many copies are in use now (at most `openStoresKept`), and how many are being let go.
    public var openCopies: (inUse: Int, closing: Int) { (copies.count, closing.count) }

    /// Records applied per transaction while catching up.
    static let pageSize = 5_000

    public init(
        folder: URL, state: any SyncState, now: @escaping @Sendable () -> Date = { Date() },
        refreshDelay: Duration = .milliseconds(100), snapshotAhead: Int64 = 1_000, marksDelay: Duration = .seconds(1)
    ) throws {
        setting = CopySetting(
            folder: folder, state: state, images: state as? any ImageStore, now: now, refreshDelay: refreshDelay,
            snapshotAhead: snapshotAhead, marksDelay: marksDelay)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // Snapshots an earlier process left behind (killed before it replaced them); the folder
            // may be shared with another server on this machine, so only those an hour old.
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
            where name.hasSuffix(".snapshot") {
                let file = folder.appendingPathComponent(name)
                let modified = try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
                if let modified, modified < Date().addingTimeInterval(-3_600) {
                    try? FileManager.default.removeItem(at: file)
                }
            }
        } catch {
            throw CardboxError.storage("cannot use \(folder.path) for account copies: \(error.localizedDescription)")
        }
    }

    /// Brings the account's store up to the sync state's newest cursor (as of this call). Catch-ups
    /// of one account run one at a time, in order.
    public func catchUp(_ account: UUID) async throws {
        try await withCopy(account) { try await $0.catchUp() }
    }

    /// Reads the account's store, caught up with the sync state first (the web app's pages). A store
    /// known to hold the sync state's newest cursor already is read at once, beside other reads,
    /// without queueing behind the account's catch-ups and writes.
    /// A caller that has just read the sync state's cursor (`atLeast`) saves the second reading.
    public func read<T: Sendable>(
        _ account: UUID, atLeast cursor: Int64? = nil, _ body: @escaping @Sendable (CardboxStore) throws -> T
    ) async throws -> T {
        try await withCopy(account) { try await $0.read(atLeast: cursor, body) }
    }

    /// Changes the account's store as a device would (the web app's actions): caught up first, then
    /// `body`, then what it wrote is pushed to the sync state before this returns, so every device
    /// gets it. The store follows the account's `plan` (its card limit applies before anything is
    /// written). One account's writes and catch-ups run one at a time, in order. A caller that has
    /// just read the sync state's cursor (`atLeast`) saves the catch-up when the store holds it
    /// already. `pushed` is told after a push that changed the sync state (to wake the devices that
    /// wait for news).
    public func write<T: Sendable>(
        _ account: UUID, plan: Plan, now: Date, atLeast cursor: Int64? = nil,
        _ body: @escaping @Sendable (CardboxStore) throws -> T,
        pushed: @escaping @Sendable () async -> Void = {}
    ) async throws -> T {
        try await withCopy(account) { try await $0.write(plan: plan, now: now, atLeast: cursor, body, pushed: pushed) }
    }

    /// Writes every copy's marks not written yet (when the server stops), and waits for the work in
    /// turn and the copies being let go.
    public func saveAllMarks() async {
        for copy in copies.values { await copy.finishWork() }
        for (_, task) in closing.values { await task.value }
    }

    /// The account's edition in this process: it moves with each write of its store here, whatever
    /// the write changed (some, such as a setting of this copy's own, move no cursor), so a page is
    /// the same while its account's edition and the sync state's cursor are. Read without waiting
    /// for the account's work.
    public nonisolated func edition(of account: UUID) -> Int { editions.edition(of: account) }

    /// Makes sure the account's store holds the bytes of image `sha256` (see `AccountCopy.ensureImage`).
    public func ensureImage(_ account: UUID, sha256: String) async throws {
        try await withCopy(account) { try await $0.ensureImage(sha256: sha256) }
    }

    /// A snapshot of the account as the sync state holds it now (caught up first), opened for
    /// reading, in turn with the account's writes (see `AccountCopy.snapshot`). A caller that has
    /// just read the sync state's cursor (`atLeast`) skips the catch-up when the store holds that
    /// much already.
    public func snapshot(_ account: UUID, atLeast latest: Int64? = nil) async throws -> OpenSnapshot {
        try await withCopy(account) { try await $0.snapshot(atLeast: latest) }
    }

    /// How many reads, writes and snapshots of the account's copy have taken their place in its turn
    /// (0 without a copy): a test waits for it to know that a use is queued.
    package func turnsTaken(_ account: UUID) async -> Int { await copies[account]?.turnsTaken ?? 0 }

    /// Catches up in the background after a push, so a new device's snapshot is ready: a little
    /// later (`refreshDelay`), so the pushes of a burst (an upload's batches, a busy account) are
    /// applied together and the catch-up does not compete with the requests still in flight.
    public nonisolated func refresh(_ account: UUID) {
        Task { try? await self.withCopy(account) { await $0.refresh() } }
    }

    /// Runs `body` on the account's copy; when the copy was let go before `body` reached it, on a
    /// new one.
    private func withCopy<T: Sendable>(_ account: UUID, _ body: @Sendable (AccountCopy) async throws -> T)
        async throws -> T
    {
        while true {
            let copy = await self.copy(account)
            do {
                return try await body(copy)
            } catch is CopyClosed {
                continue
            }
        }
    }

    /// The account's copy, made when it has none: after its previous copy's close, once the least
    /// recently used copies past `openStoresKept` are let go.
    private func copy(_ account: UUID) async -> AccountCopy {
        uses += 1
        if let copy = copies[account] {
            lastUse[account] = uses
            return copy
        }
        if let previous = closing[account] { await previous.task.value }
        // Another caller may have made it while this one waited.
        if let copy = copies[account] {
            lastUse[account] = uses
            return copy
        }
        while copies.count >= Self.openStoresKept, let oldest = lastUse.min(by: { $0.value < $1.value })?.key {
            letGo(of: oldest)
        }
        let editions = self.editions
        let copy = AccountCopy(account: account, setting: setting, written: { editions.bump(account) })
        copies[account] = copy
        lastUse[account] = uses
        return copy
    }

    /// Lets the account's copy go: it closes once its work is done (see `AccountCopy.close`).
    private func letGo(of account: UUID) {
        guard let copy = copies.removeValue(forKey: account) else { return }
        lastUse[account] = nil
        let previous = closing[account]?.task
        let id = UUID()
        let task = Task {
            await previous?.value
            await copy.close()
            self.closed(account, id)
        }
        closing[account] = (id, task)
    }

    private func closed(_ account: UUID, _ id: UUID) {
        if closing[account]?.id == id { closing[account] = nil }
    }

    /// Applies every page after the store's cursor; returns the cursor it reached.
    @discardableResult
    static func pullAll(into store: CardboxStore, from state: any SyncState, account: UUID) async throws
        -> Int64
    {
        var cursor = try await blocking { try store.replicaCursor() }
        // A copy ahead of the sync state belongs to another database (the server's was restored or
        // replaced): it is not this account's state, so snapshots must not be made of it.
        guard try await state.cursor(account: account) >= cursor else {
            throw CardboxError.storage(
                "the server's copy of account \(account.uuidString.lowercased()) is ahead of its database; "
                    + "delete the cache folder to rebuild it")
        }
        while true {
            let page = try await state.pull(account: account, after: cursor, limit: pageSize)
            guard page.cursor != cursor || !page.changes.isEmpty else { return cursor }
            try await blocking { try store.applyPulled(page.changes, cursor: page.cursor) }
            cursor = page.cursor
            if !page.hasMore { return cursor }
        }
    }

    static func fileSHA256(_ path: String) throws -> String {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw CardboxError.storage("cannot read the snapshot at \(path)")
        }
        defer { try? file.close() }
        var hasher = SHA256()
        while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hexDigits(hasher.finalize())
    }

    /// Runs store work (synchronous SQLite) on a thread of its own, not on one of the few that run
    /// request handlers.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// Each account's edition: the value of a count for the whole process at its copy's latest write.
/// A value is never given twice, so a page made at one edition is never taken for a page of
/// another, even across a copy let go and made again. An account not written to for a while is
/// forgotten (edition 0): pages are kept a second, and no page of it is that old.
final class Editions: Sendable {
    private let state = Mutex<(last: Int, editions: [UUID: (edition: Int, at: ContinuousClock.Instant)])>((0, [:]))
    /// Past this many accounts, those not written to in `memory` are forgotten.
    private static let kept = 10_000
    private static let memory: Duration = .seconds(10)

    func bump(_ account: UUID) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.last += 1
            state.editions[account] = (state.last, now)
            if state.editions.count > Self.kept {
                state.editions = state.editions.filter { now - $0.value.at < Self.memory }
            }
        }
    }

    func edition(of account: UUID) -> Int { state.withLock { $0.editions[account]?.edition ?? 0 } }
}
