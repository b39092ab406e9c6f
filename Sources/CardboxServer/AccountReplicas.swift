import CardboxCore
import CardboxStore
import CardboxSync
import Crypto
import Foundation

/// The server's own device store of each account, in a cache folder: an ordinary store brought up to
/// date by pulling the account's sync state, as any device does. It is what the server hands a new
/// device as a snapshot (one file, copied whole, instead of every record merged one by one), and can
/// always be made again from the sync state, so the folder is only a cache: delete it and it fills
/// again. Servers sharing a PostgreSQL database each keep their own.
public actor AccountReplicas {
    private let folder: URL
    private let state: any SyncState
    private let now: @Sendable () -> Date
    private var stores: [UUID: CardboxStore] = [:]
    /// Per account, the newest catch-up asked for (each waits for the one before it), and one that
    /// has not started yet, which every caller until it starts can share: it will see their changes.
    private var lastCatchUp: [UUID: Task<Void, any Error>] = [:]
    private var waitingCatchUp: [UUID: Task<Void, any Error>] = [:]
    /// Accounts whose background catch-up is due (see `refresh`).
    private var scheduled: Set<UUID> = []
    private let refreshDelay: Duration
    /// The newest snapshot made of each account, with the cursor it holds: given again while the
    /// account has not moved.
    private var snapshots: [UUID: Snapshot] = [:]

    /// A snapshot file and the sync-state cursor it holds everything up to.
    public struct Snapshot: Sendable {
        public let path: String
        public let cursor: Int64
        /// The file's SHA-256 (lowercase hex): the device checks what arrived against it.
        public let sha256: String
    }

    /// Records applied per transaction while catching up.
    static let pageSize = 5_000

    public init(
        folder: URL, state: any SyncState, now: @escaping @Sendable () -> Date = { Date() },
        refreshDelay: Duration = .milliseconds(100)
    ) throws {
        self.folder = folder
        self.refreshDelay = refreshDelay
        self.state = state
        self.now = now
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // Snapshots an earlier process made (and a kill left behind) are stale.
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
            where name.hasSuffix(".snapshot") {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        } catch {
            throw CardboxError.storage("cannot use \(folder.path) for account copies: \(error.localizedDescription)")
        }
    }

    /// Brings the account's store up to the sync state's newest cursor (as of this call). Catch-ups
    /// of one account run one at a time, in order.
    public func catchUp(_ account: UUID) async throws {
        if let waiting = waitingCatchUp[account] { return try await waiting.value }
        let store = try self.store(account)
        let (state, previous) = (self.state, lastCatchUp[account])
        let task = Task {
            _ = await previous?.result
            await self.started(account)
            try await Self.pullAll(into: store, from: state, account: account)
        }
        waitingCatchUp[account] = task
        lastCatchUp[account] = task
        try await task.value
    }

    private func started(_ account: UUID) { waitingCatchUp[account] = nil }

    /// A snapshot of the account as the sync state holds it now (caught up first). The file stays
    /// until a newer snapshot of the account replaces it; readers open it before that can happen.
    public func snapshot(_ account: UUID) async throws -> Snapshot {
        try await catchUp(account)
        let store = try self.store(account)
        let cursor = try await Self.blocking { try store.replicaCursor() }
        if let known = snapshots[account], known.cursor == cursor,
            FileManager.default.fileExists(atPath: known.path)
        {
            return known
        }
        let path = folder.appendingPathComponent("\(account.uuidString.lowercased())-\(cursor)-\(UUID()).snapshot").path
        let sha256 = try await Self.blocking {
            try store.writeSnapshot(to: path)
            return try Self.fileSHA256(path)
        }
        if let old = snapshots[account] { try? FileManager.default.removeItem(atPath: old.path) }
        let snapshot = Snapshot(path: path, cursor: cursor, sha256: sha256)
        snapshots[account] = snapshot
        return snapshot
    }

    /// Catches up in the background after a push, so a new device's snapshot is ready: a little
    /// later (`refreshDelay`), so the pushes of a burst (an upload's batches, a busy account) are
    /// applied together and the catch-up does not compete with the requests still in flight.
    public nonisolated func refresh(_ account: UUID) {
        Task { await self.scheduleRefresh(account) }
    }

    private func scheduleRefresh(_ account: UUID) async {
        guard scheduled.insert(account).inserted else { return }
        try? await Task.sleep(for: refreshDelay)
        scheduled.remove(account)
        try? await catchUp(account)
    }

    private func store(_ account: UUID) throws -> CardboxStore {
        if let store = stores[account] { return store }
        let path = folder.appendingPathComponent("\(account.uuidString.lowercased()).sqlite").path
        let now = self.now
        var environment = StoreEnvironment.live
        environment.now = now
        let store = try CardboxStore.open(path: path, account: account, environment: environment)
        stores[account] = store
        return store
    }

    private static func pullAll(into store: CardboxStore, from state: any SyncState, account: UUID) async throws {
        var cursor = try await blocking { try store.replicaCursor() }
        while true {
            let page = try await state.pull(account: account, after: cursor, limit: pageSize)
            guard page.cursor != cursor || !page.changes.isEmpty else { return }
            try await blocking { try store.applyPulled(page.changes, cursor: page.cursor) }
            cursor = page.cursor
            if !page.hasMore { return }
        }
    }

    private static func fileSHA256(_ path: String) throws -> String {
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
