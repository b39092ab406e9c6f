import CardboxCore
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
    private let folder: URL
    private let state: any SyncState
    /// Where the bytes of images the server's copies make (the web app's uploads, the background
    /// suggestions' pictures) go, so devices can fetch them: the database, when it keeps images.
    private let images: (any ImageStore)?
    /// Per account whose store is open, images known to be in `images` already (see `uploadImages`).
    private var imagesOnServer: [UUID: Set<String>] = [:]
    private let now: @Sendable () -> Date
    private var stores: [UUID: CardboxStore] = [:]
    /// Per account, the newest catch-up asked for (each waits for the one before it), and one that
    /// has not started yet, which every caller until it starts can share: it will see their changes.
    private var lastCatchUp: [UUID: Task<Void, any Error>] = [:]
    private var waitingCatchUp: [UUID: Task<Void, any Error>] = [:]
    /// Accounts whose background catch-up is due (see `refresh`).
    private var scheduled: Set<UUID> = []
    private let refreshDelay: Duration
    /// Records pushed since an account's newest snapshot past which the background catch-up makes
    /// the next one ahead (see `makeSnapshotAhead`).
    private let snapshotAhead: Int64
    /// How long after a write its marks wait to be written to the store (see `marks`).
    private let marksDelay: Duration
    /// The newest snapshot made of each account, with the cursor it holds: given again while the
    /// account has not moved.
    private var snapshots: [UUID: Snapshot] = [:]

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

    /// How recently each account's store was asked for, to close the least recently used.
    private var lastUse: [UUID: UInt64] = [:]
    private var uses: UInt64 = 0
    static let openStoresKept = 64

    /// Records applied per transaction while catching up.
    static let pageSize = 5_000

    public init(
        folder: URL, state: any SyncState, now: @escaping @Sendable () -> Date = { Date() },
        refreshDelay: Duration = .milliseconds(100), snapshotAhead: Int64 = 1_000, marksDelay: Duration = .seconds(1)
    ) throws {
        self.folder = folder
        self.refreshDelay = refreshDelay
        self.snapshotAhead = snapshotAhead
        self.marksDelay = marksDelay
        self.state = state
        self.images = state as? any ImageStore
        self.now = now
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
        if let waiting = waitingCatchUp[account] { return try await waiting.value }
        let (state, previous) = (self.state, lastCatchUp[account])
        let task = Task {
            _ = await previous?.result
            self.started(account)
            // Taken once the work before is done: a refused write may have made the store anew.
            let store = try await self.store(account)
            self.notePulled(account, to: try await Self.pullAll(into: store, from: state, account: account))
        }
        waitingCatchUp[account] = task
        lastCatchUp[account] = task
        try await task.value
    }

    private func started(_ account: UUID) { waitingCatchUp[account] = nil }

    /// The plan each open store was last seen to hold, after a write (see `write`): a write with the
    /// same plan does not read it again. Forgotten when the store is let go, when a write fails (it
    /// may have set the plan before its body failed), and when a catch-up applies records, since
    /// another device's may carry the account's plan.
    private var plans: [UUID: Plan] = [:]

    private func notePlan(_ plan: Plan?, of account: UUID) { plans[account] = plan }

    /// Notes what a catch-up reached (see `applied`); when it applied records, the plan known of the
    /// store is forgotten (see `plans`).
    private func notePulled(_ account: UUID, to cursor: Int64) {
        if cursor > (applied[account] ?? -1) { plans[account] = nil }
        recordApplied(account, cursor)
    }

    /// Reads the account's store, caught up with the sync state first (the web app's pages). A store
    /// known to hold the sync state's newest cursor already is read at once, beside other reads,
    /// without queueing behind the account's catch-ups and writes.
    /// A caller that has just read the sync state's cursor (`atLeast`) saves the second reading.
    public func read<T: Sendable>(
        _ account: UUID, atLeast cursor: Int64? = nil, _ body: @escaping @Sendable (CardboxStore) throws -> T
    ) async throws -> T {
        let latest: Int64
        if let cursor { latest = cursor } else { latest = try await state.cursor(account: account) }
        try await catchUp(account, unlessHolding: latest)
        let store = try await self.store(account)
        return try await Self.blocking { try body(store) }
    }

    /// Catches the account's store up unless it is known to hold `cursor` already (a catch-up would
    /// only read the sync state to find nothing new).
    private func catchUp(_ account: UUID, unlessHolding cursor: Int64) async throws {
        if (applied[account] ?? -1) < cursor { try await catchUp(account) }
    }

    /// The sync-state cursor each account's store is known to have applied (after a catch-up).
    private var applied: [UUID: Int64] = [:]

    private func recordApplied(_ account: UUID, _ cursor: Int64) {
        applied[account] = max(applied[account] ?? 0, cursor)
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
        let (state, previous) = (self.state, lastCatchUp[account])
        let task = Task {
            _ = await previous?.result
            let store = try await self.store(account)
            let pulledTo = try await self.caughtUp(store, account, atLeast: cursor)
            let known = self.marks[account]?.sent
            let planHeld = self.plans[account] == plan
            let (result, changes, sent): (T, ChangeSet, HLCTimestamp)
            do {
                (result, changes, sent) = try await Self.blocking {
                    if !planHeld, try store.plan() != plan { _ = try store.setPlan(plan) }
                    let result = try body(store)
                    let (changes, sent) = try store.changes(since: try known ?? store.replicaSent())
                    return (result, changes, sent)
                }
            } catch {
                // The plan may have been set before the body failed: what the store holds is unknown.
                self.notePlan(nil, of: account)
                throw error
            }
            self.notePlan(plan, of: account)
            guard !changes.isEmpty else { return result }
            // Images first: a device that pulls a record naming one can fetch it at once.
            try await self.uploadImages(named: changes.namedImages, of: store, account: account)
            let receipt: PushReceipt
            do {
                receipt = try await state.push(
                    changes, batch: UUID(), account: account, cardLimit: plan.serverCardLimit,
                    now: now)
            } catch let error as CardboxError {
                if case .cardLimitExceeded = error { await self.forget(account, store) }
                throw error
            }
            // Usually nobody else pushed since the catch-up: the store then holds what the sync state
            // does, and pulling its own changes back would only cost time.
            let caughtUpTo = receipt.isOwnEcho(after: pulledTo) ? receipt.cursor : nil
            self.notePushed(account, sent: sent, caughtUpTo: caughtUpTo)
            await pushed()
            return result
        }
        // A catch-up asked for after this waits for it (and one waiting to start must not be shared).
        waitingCatchUp[account] = nil
        lastCatchUp[account] = Task { _ = try await task.value }
        defer { editions.withLock { $0[account, default: 0] += 1 } }
        return try await task.value
    }

    /// Per account, how far the store's own writes have been pushed (`sent`, the clock up to which
    /// the sync state has them) and the cursor its own latest push let it skip to (`cursor`), kept
    /// here and written to the store once a burst of writes has ended (`marksDelay`, see
    /// `saveMarks`): under load, one commit of the store per write instead of two. Marks lost with
    /// the process cost the next write a push of what was pushed already, which the sync state
    /// takes as nothing new (a record it holds merges to itself), and a catch-up a pull of the
    /// store's own records.
    private var marks: [UUID: (sent: HLCTimestamp, cursor: Int64?, saved: Bool)] = [:]

    private func notePushed(_ account: UUID, sent: HLCTimestamp, caughtUpTo cursor: Int64?) {
        let cursor = [cursor, marks[account]?.cursor].compactMap { $0 }.max()
        marks[account] = (sent, cursor, false)
        if let cursor { recordApplied(account, cursor) }
        guard marksDue.insert(account).inserted else { return }
        Task {
            try? await Task.sleep(for: marksDelay)
            await saveMarks(account)
        }
    }

    /// Accounts whose marks wait to be written.
    private var marksDue: Set<UUID> = []

    /// Writes every account's marks not written yet (when the server stops), and waits for those
    /// being written.
    public func saveAllMarks() async {
        for account in marks.keys {
            if marks[account]?.saved == false {
                await saveMarks(account)
            } else {
                _ = await lastCatchUp[account]?.result
            }
        }
    }

    /// Writes the account's marks to its store, in turn with its writes and catch-ups.
    private func saveMarks(_ account: UUID) async {
        marksDue.remove(account)
        guard let store = stores[account], let mark = marks[account], !mark.saved else { return }
        marks[account]?.saved = true
        let previous = lastCatchUp[account]
        let task = Task {
            _ = await previous?.result
            try await Self.write(mark, to: store)
        }
        waitingCatchUp[account] = nil
        lastCatchUp[account] = task
        _ = await task.result
    }

    private static func write(_ mark: (sent: HLCTimestamp, cursor: Int64?, saved: Bool), to store: CardboxStore)
        async throws
    {
        try await blocking { try store.saveReplicaSent(mark.sent, caughtUpTo: mark.cursor) }
    }

    /// Forgets the account's store after the sync state refused its write: another device took the
    /// free plan's last cards between the store's catch-up and its push. The refused cards would
    /// otherwise stay unsent in the store, and every later write of the account would be refused
    /// with them. The store is a cache: it is deleted, and made again from the sync state (which
    /// holds everything but the refused write) when next used. A read of it still running, or
    /// another process that has it open, keeps it: tried again for a second, then left as it was.
    private func forget(_ account: UUID, _ store: CardboxStore) async {
        for _ in 0..<100 {
            if store.closeAndDelete() {
                letGo(of: account)
                // The store made again holds nothing of these.
                marks[account] = nil
                applied[account] = nil
                return
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The sync-state cursor the account's store holds everything up to: the one it is known to
    /// have applied when that is at least `cursor`, or else where pulling everything after it ends.
    private func caughtUp(_ store: CardboxStore, _ account: UUID, atLeast cursor: Int64?) async throws -> Int64 {
        if let cursor, let known = applied[account], known >= cursor { return known }
        let reached = try await Self.pullAll(into: store, from: state, account: account)
        notePulled(account, to: reached)
        return reached
    }

    /// How many writes of each account's store this process has finished, whatever they changed
    /// (some, such as a setting of this copy's own, move no cursor): what a page is made from is
    /// the same while its account's edition and the sync state's cursor are.
    private nonisolated let editions = Mutex<[UUID: Int]>([:])

    /// The account's edition now (see `editions`), read without waiting for the account's work.
    public nonisolated func edition(of account: UUID) -> Int { editions.withLock { $0[account, default: 0] } }

    /// Makes sure the account's store holds the bytes of image `sha256`: records pulled from the
    /// sync state name images whose bytes devices upload beside them, so the store fetches them
    /// from the server's image store when first needed (checked, with a thumbnail made).
    public func ensureImage(_ account: UUID, sha256: String) async throws {
        let store = try await self.store(account)
        if try await Self.blocking({ try store.holdsImage(sha256) }) { return }
        guard let images, let image = try await images.image(sha256, account: account) else {
            throw CardboxError.notFound(kind: "image", reference: sha256)
        }
        try await Self.blocking { try store.storeFetchedImage(image.data, sha256: sha256) }
    }

    /// Uploads the images `named` that the image store lacks and the account's store holds; those
    /// known to be there already are not asked about again (an answered card names its picture on
    /// every push). One a device uploads later is fetched from there.
    private func uploadImages(named hashes: Set<String>, of store: CardboxStore, account: UUID) async throws {
        guard let images else { return }
        let unknown = hashes.subtracting(imagesOnServer[account] ?? [])
        guard !unknown.isEmpty else { return }
        var lacking = Set<String>()
        for hash in try await images.missingImages(unknown.sorted(), account: account) {
            let image = try await Self.blocking { try store.holdsImage(hash) ? try store.imageData(sha256: hash) : nil }
            guard let image else {
                lacking.insert(hash)
                continue
            }
            // Checked when the store took it.
            try await images.putImage(
                CheckedImage(sha256: hash, mimeType: image.mimeType, data: image.data), account: account)
        }
        imagesOnServer[account, default: []].formUnion(unknown.subtracting(lacking))
    }

    /// A snapshot of the account as the sync state holds it now (caught up first), opened for
    /// reading. A caller that has just read the sync state's cursor (`atLeast`) skips the catch-up
    /// when the store holds that much already.
    ///
    /// It is chosen or made in turn with the account's writes: a write in flight may have committed
    /// to the copy what it has not pushed yet, and never will when the push is refused (the copy is
    /// then forgotten), and a device that adopted it would hold a record no other device gets.
    public func snapshot(_ account: UUID, atLeast latest: Int64? = nil) async throws -> OpenSnapshot {
        try await inTurn(account) { try await self.currentSnapshot(account, atLeast: latest) }
    }

    /// The account's snapshot at the copy's cursor (the one made before, while the account has not
    /// moved, or a new one), opened in the same turn of the actor that chose it: a newer snapshot
    /// that replaces (deletes) the file later leaves this reader its bytes.
    private func currentSnapshot(_ account: UUID, atLeast latest: Int64?) async throws -> OpenSnapshot {
        let store = try await self.store(account)
        _ = try await caughtUp(store, account, atLeast: latest)
        // The store's cursor as written in it (what the file will say), with its latest own push.
        if let mark = marks[account], !mark.saved {
            marks[account]?.saved = true
            try await Self.write(mark, to: store)
        }
        let cursor = try await Self.blocking { try store.replicaCursor() }
        if let known = snapshots[account], known.cursor == cursor, let open = known.opened() {
            return open
        }
        guard let open = try await makeSnapshot(of: store, account, at: cursor).opened() else {
            throw CardboxError.storage("the snapshot of the account just made cannot be read")
        }
        return open
    }

    /// Runs `body` in turn with the account's writes and catch-ups: after those asked for before,
    /// and before those asked for after.
    private func inTurn<T: Sendable>(_ account: UUID, _ body: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        let previous = lastCatchUp[account]
        let task = Task {
            _ = await previous?.result
            return try await body()
        }
        waitingCatchUp[account] = nil
        lastCatchUp[account] = Task { _ = try await task.value }
        return try await task.value
    }

    /// Copies the account's store to a new snapshot file and makes it the account's snapshot.
    private func makeSnapshot(of store: CardboxStore, _ account: UUID, at cursor: Int64) async throws -> Snapshot {
        let path = folder.appendingPathComponent("\(account.uuidString.lowercased())-\(cursor)-\(UUID()).snapshot").path
        let sha256: String
        do {
            sha256 = try await Self.blocking {
                try store.writeSnapshot(to: path)
                try CardboxStore.leaveNewStoreKeyFree(inSnapshotAt: path)
                return try Self.fileSHA256(path)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        let snapshot = Snapshot(path: path, cursor: cursor, sha256: sha256)
        if let old = snapshots[account] { try? FileManager.default.removeItem(atPath: old.path) }
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
        await makeSnapshotAhead(account)
    }

    /// After a burst of many changes (a device's first upload, an import) has ended, the snapshot the
    /// next new device will ask for is made now, not while that device waits: the catch-up and the
    /// copy of the whole store would otherwise double its first sync. Only past `snapshotAhead`
    /// records since the last snapshot, so a busy account costs one copy of its store per that many
    /// changes, not one per burst; a burst still going on (another refresh already due) leaves it to
    /// that refresh.
    private func makeSnapshotAhead(_ account: UUID) async {
        guard !scheduled.contains(account), let applied = applied[account],
            applied - (snapshots[account]?.cursor ?? 0) >= snapshotAhead
        else { return }
        if let open = try? await snapshot(account) { try? open.file.close() }
    }

    /// The account's store, opened (and, the first time, made and migrated) on a thread of its own.
    private func store(_ account: UUID) async throws -> CardboxStore {
        uses += 1
        lastUse[account] = uses
        if let store = stores[account] { return store }
        // Two first uses at once (a page and a push's catch-up) share one open: two would migrate
        // the same new file at the same time.
        if let opening = opening[account] { return try await opening.value }
        // Each open store holds files and a page cache: the least recently used close past a few
        // dozen (a catch-up still running keeps its own reference until it ends).
        while stores.count >= Self.openStoresKept,
            let oldest = lastUse.filter({ stores[$0.key] != nil }).min(by: { $0.value < $1.value })?.key
        {
            if let mark = marks[oldest], !mark.saved, let store = stores[oldest] {
                marks[oldest]?.saved = true
                Task { try? await Self.write(mark, to: store) }
            }
            letGo(of: oldest)
        }
        let path = folder.appendingPathComponent("\(account.uuidString.lowercased()).sqlite").path
        var environment = StoreEnvironment.live
        environment.now = now
        // Study days are the person's (their account's time zone), not the server's.
        environment.followsAccountTimeZone = true
        let task = Task {
            try await Self.blocking { [environment] in
                try CardboxStore.open(path: path, account: account, environment: environment)
            }
        }
        opening[account] = task
        defer { opening[account] = nil }
        let store = try await task.value
        stores[account] = store
        return store
    }

    /// Forgets the account's open store and what is known of it only while it is open.
    private func letGo(of account: UUID) {
        stores[account] = nil
        lastUse[account] = nil
        imagesOnServer[account] = nil
        plans[account] = nil
    }

    /// Stores being opened, by account (see `store`).
    private var opening: [UUID: Task<CardboxStore, any Error>] = [:]

    /// Applies every page after the store's cursor; returns the cursor it reached.
    @discardableResult
    private static func pullAll(into store: CardboxStore, from state: any SyncState, account: UUID) async throws
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
