import CardboxCore
import CardboxServer
import CardboxStore
import CardboxSync
import Foundation

/// What every account's copy shares: where the copies live and what they follow.
struct CopySetting: Sendable {
    let folder: URL
    let state: any SyncState
    /// Where the bytes of images the copies make go, so devices can fetch them: the database,
    /// when it keeps images.
    let images: (any ImageStore)?
    let now: @Sendable () -> Date
    let refreshDelay: Duration
    let snapshotAhead: Int64
    let marksDelay: Duration
}

/// The copy was let go (to make room for others) before this use reached it: the registry makes
/// a new one and the use is tried on it.
struct CopyClosed: Error {}

/// One account's copy on this server: its store (opened on first use, closed when the copy is let
/// go), what is known of it (the sync-state cursor it has applied, the plan it holds, its marks,
/// the images the server has of it, its newest snapshot), and its turn: catch-ups, writes,
/// snapshots, marks and its closing run one at a time, in order. Everything this process keeps of
/// an account lives here, and goes with the copy.
actor AccountCopy {
    let account: UUID
    private let setting: CopySetting
    /// Told after each write (the account's edition, see `AccountReplicas.edition(of:)`).
    private let written: @Sendable () -> Void
    private let path: String

    private var store: CardboxStore?
    /// The store being opened: two first uses at once (a page and a push's catch-up) share one open,
    /// where two would migrate the same new file at the same time.
    private var opening: Task<CardboxStore, any Error>?
    /// The newest work in turn (each waits for the one before it), and a catch-up that has not
    /// started yet, which every caller until it starts can share: it will see their changes.
    private var lastTurn: Task<Void, any Error>?
    private var waitingCatchUp: Task<Void, any Error>?
    /// The sync-state cursor the store is known to have applied (after a catch-up).
    private var applied: Int64?
    /// The plan the store was last seen to hold, after a write: a write with the same plan does not
    /// read it again. Forgotten when a write fails (it may have set the plan before its body
    /// failed), and when a catch-up applies records, since another device's may carry the plan.
    private var plan: Plan?
    /// How far the store's own writes have been pushed (`sent`, the clock up to which the sync state
    /// has them) and the cursor its own latest push let it skip to (`cursor`), kept here and written
    /// to the store once a burst of writes has ended (`marksDelay`): under load, one commit of the
    /// store per write instead of two. Marks lost with the process cost the next write a push of
    /// what was pushed already, which the sync state takes as nothing new, and a catch-up a pull
    /// of the store's own records.
    private var marks: Marks?
    private var marksDue = false
    /// Images known to be in the image store already (see `uploadImages`).
    private var imagesOnServer: Set<String> = []
    /// The newest snapshot made of the account, given again while the account has not moved.
    private var snapshot: AccountReplicas.Snapshot?
    private var refreshScheduled = false
    /// Reads running on the store (outside the turn): closing waits for them.
    private var readers = 0
    /// No new use is taken (the copy is being let go); `released`: its store is closed.
    private var closing = false
    private var released = false
    /// Uses that have taken their place in the turn (a test waits on it, to know what queued).
    private(set) var turnsTaken = 0

    struct Marks {
        var sent: HLCTimestamp
        var cursor: Int64?
        var saved: Bool
    }

    init(account: UUID, setting: CopySetting, written: @escaping @Sendable () -> Void) {
        self.account = account
        self.setting = setting
        self.written = written
        path = setting.folder.appendingPathComponent("\(account.uuidString.lowercased()).sqlite").path
    }

    private func checkOpen() throws { if closing { throw CopyClosed() } }

    // MARK: The turn

    /// Runs `body` in turn with the account's writes and catch-ups: after those asked for before,
    /// and before those asked for after.
    private func inTurn<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try checkOpen()
        let previous = lastTurn
        turnsTaken += 1
        let task = Task {
            _ = await previous?.result
            return try await body()
        }
        waitingCatchUp = nil
        lastTurn = Task { _ = try await task.value }
        return try await task.value
    }

    /// Brings the store up to the sync state's newest cursor (as of this call).
    func catchUp() async throws {
        try checkOpen()
        if let waiting = waitingCatchUp { return try await waiting.value }
        let previous = lastTurn
        let task = Task {
            _ = await previous?.result
            self.waitingCatchUp = nil
            // Taken once the work before is done: a refused write may have made the store anew.
            let store = try await self.openStore()
            self.notePulled(
                to: try await AccountReplicas.pullAll(into: store, from: self.setting.state, account: self.account))
        }
        waitingCatchUp = task
        lastTurn = task
        try await task.value
    }

    /// Notes what a catch-up reached; when it applied records, the plan known is forgotten.
    private func notePulled(to cursor: Int64) {
        if cursor > (applied ?? -1) { plan = nil }
        recordApplied(cursor)
    }

    private func recordApplied(_ cursor: Int64) { applied = max(applied ?? 0, cursor) }

    /// The cursor the store holds everything up to: the one it is known to have applied when that
    /// is at least `cursor`, or else where pulling everything after it ends.
    private func caughtUp(_ store: CardboxStore, atLeast cursor: Int64?) async throws -> Int64 {
        if let cursor, let known = applied, known >= cursor { return known }
        let reached = try await AccountReplicas.pullAll(into: store, from: setting.state, account: account)
        notePulled(to: reached)
        return reached
    }

    // MARK: Reads and writes

    /// Reads the store, caught up with the sync state first. A store known to hold `cursor` (or
    /// the sync state's newest) already is read at once, beside other reads, without queueing
    /// behind the account's catch-ups and writes.
    func read<T: Sendable>(atLeast cursor: Int64?, _ body: @escaping @Sendable (CardboxStore) throws -> T)
        async throws -> T
    {
        try checkOpen()
        readers += 1
        defer { readers -= 1 }
        let latest: Int64
        if let cursor { latest = cursor } else { latest = try await setting.state.cursor(account: account) }
        if (applied ?? -1) < latest { try await catchUp() }
        let store = try await openStore()
        return try await AccountReplicas.blocking { try body(store) }
    }

    /// Changes the store as a device would, in turn: caught up first, then `body`, then what it
    /// wrote is pushed to the sync state before this returns. See `AccountReplicas.write`.
    func write<T: Sendable>(
        plan: Plan, now: Date, atLeast cursor: Int64?, _ body: @escaping @Sendable (CardboxStore) throws -> T,
        pushed: @escaping @Sendable () async -> Void
    ) async throws -> T {
        defer { written() }
        return try await inTurn {
            try await self.writeInTurn(plan: plan, now: now, atLeast: cursor, body, pushed: pushed)
        }
    }

    private func writeInTurn<T: Sendable>(
        plan: Plan, now: Date, atLeast cursor: Int64?, _ body: @escaping @Sendable (CardboxStore) throws -> T,
        pushed: @escaping @Sendable () async -> Void
    ) async throws -> T {
        let store = try await openStore()
        let pulledTo = try await caughtUp(store, atLeast: cursor)
        let known = marks?.sent
        let planHeld = self.plan == plan
        let (result, changes, sent): (T, ChangeSet, HLCTimestamp)
        do {
            (result, changes, sent) = try await AccountReplicas.blocking {
                // The server's plan and limit, where the store holds others (a device's push of
                // them, from before the server replaced them, may have left others in the sync state).
                if !planHeld, try !store.heldPlan().isServers(plan) {
                    _ = try store.setPlan(plan, freeCardLimit: Limits.freeCardLimit)
                }
                let result = try body(store)
                let (changes, sent) = try store.changes(since: try known ?? store.replicaSent())
                return (result, changes, sent)
            }
        } catch {
            // The plan may have been set before the body failed: what the store holds is unknown.
            self.plan = nil
            throw error
        }
        self.plan = plan
        guard !changes.isEmpty else { return result }
        // Images first: a device that pulls a record naming one can fetch it at once.
        try await uploadImages(named: changes.namedImages, of: store)
        let receipt: PushReceipt
        do {
            receipt = try await setting.state.push(
                changes, batch: UUID(), account: account, cardLimit: plan.serverCardLimit, now: now)
        } catch let error as CardboxError {
            if case .cardLimitExceeded = error { await forget(store) }
            throw error
        }
        // Usually nobody else pushed since the catch-up: the store then holds what the sync state
        // does, and pulling its own changes back would only cost time.
        notePushed(sent: sent, caughtUpTo: receipt.isOwnEcho(after: pulledTo) ? receipt.cursor : nil)
        await pushed()
        return result
    }

    /// Forgets the store after the sync state refused its write: another device took the free
    /// plan's last cards between the store's catch-up and its push. The refused cards would
    /// otherwise stay unsent in it, and every later write of the account would be refused with
    /// them. The store is a cache: it is deleted, and made again from the sync state (which holds
    /// everything but the refused write) when next used. A read of it still running, or another
    /// process that has it open, keeps it: tried again for a second, then left as it was.
    private func forget(_ store: CardboxStore) async {
        for _ in 0..<100 {
            if store.closeAndDelete() {
                self.store = nil
                imagesOnServer = []
                plan = nil
                // The store made again holds nothing of these.
                marks = nil
                applied = nil
                return
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    // MARK: Marks

    private func notePushed(sent: HLCTimestamp, caughtUpTo cursor: Int64?) {
        let cursor = [cursor, marks?.cursor].compactMap { $0 }.max()
        marks = Marks(sent: sent, cursor: cursor, saved: false)
        if let cursor { recordApplied(cursor) }
        guard !marksDue else { return }
        marksDue = true
        Task {
            try? await Task.sleep(for: setting.marksDelay)
            try? await self.saveMarks()
        }
    }

    /// Writes the marks to the store, in turn with its writes and catch-ups.
    func saveMarks() async throws {
        marksDue = false
        guard let mark = marks, !mark.saved, store != nil else { return }
        marks?.saved = true
        try await inTurn { try await self.writeMarks(mark) }
    }

    /// Waits for the work in turn, having written marks not written yet (the server stops).
    func finishWork() async {
        try? await saveMarks()
        _ = await lastTurn?.result
    }

    private func writeMarks(_ mark: Marks) async throws {
        guard let store else { return }
        try await AccountReplicas.blocking { try store.saveReplicaSent(mark.sent, caughtUpTo: mark.cursor) }
    }

    // MARK: Images

    /// Makes sure the store holds the bytes of image `sha256`: records pulled from the sync state
    /// name images whose bytes devices upload beside them, so the store fetches them from the
    /// server's image store when first needed (checked, with a thumbnail made).
    func ensureImage(sha256: String) async throws {
        try checkOpen()
        let store = try await openStore()
        if try await AccountReplicas.blocking({ try store.holdsImage(sha256) }) { return }
        guard let images = setting.images, let image = try await images.image(sha256, account: account) else {
            throw CardboxError.notFound(kind: "image", reference: sha256)
        }
        try await AccountReplicas.blocking { try store.storeFetchedImage(image.data, sha256: sha256) }
    }

    /// Uploads the images `named` that the image store lacks and the store holds; those known to
    /// be there already are not asked about again (an answered card names its picture on every
    /// push). One a device uploads later is fetched from there.
    private func uploadImages(named hashes: Set<String>, of store: CardboxStore) async throws {
        guard let images = setting.images else { return }
        let unknown = hashes.subtracting(imagesOnServer)
        guard !unknown.isEmpty else { return }
        var lacking = Set<String>()
        for hash in try await images.missingImages(unknown.sorted(), account: account) {
            let image = try await AccountReplicas.blocking {
                try store.holdsImage(hash) ? try store.imageData(sha256: hash) : nil
            }
            guard let image else {
                lacking.insert(hash)
                continue
            }
            // Checked when the store took it.
            try await images.putImage(
                CheckedImage(sha256: hash, mimeType: image.mimeType, data: image.data), account: account)
        }
        imagesOnServer.formUnion(unknown.subtracting(lacking))
    }

    // MARK: Snapshots

    /// A snapshot of the account as the sync state holds it now, opened for reading, in turn with
    /// the account's writes: a write in flight may have committed to the store what it has not
    /// pushed yet, and never will when the push is refused (the store is then forgotten), and a
    /// device that adopted it would hold a record no other device gets.
    func snapshot(atLeast latest: Int64?) async throws -> AccountReplicas.OpenSnapshot {
        try await inTurn { try await self.currentSnapshot(atLeast: latest) }
    }

    /// The snapshot at the store's cursor (the one made before, while the account has not moved, or
    /// a new one), opened in the same turn that chose it: a newer snapshot that replaces (deletes)
    /// the file later leaves this reader its bytes.
    private func currentSnapshot(atLeast latest: Int64?) async throws -> AccountReplicas.OpenSnapshot {
        let store = try await openStore()
        _ = try await caughtUp(store, atLeast: latest)
        // The store's cursor as written in it (what the file will say), with its latest own push.
        if let mark = marks, !mark.saved {
            marks?.saved = true
            try await writeMarks(mark)
        }
        let cursor = try await AccountReplicas.blocking { try store.replicaCursor() }
        if let known = snapshot, known.cursor == cursor, let open = known.opened() { return open }
        guard let open = try await makeSnapshot(of: store, at: cursor).opened() else {
            throw CardboxError.storage("the snapshot of the account just made cannot be read")
        }
        return open
    }

    /// Copies the store to a new snapshot file and makes it the account's snapshot.
    private func makeSnapshot(of store: CardboxStore, at cursor: Int64) async throws -> AccountReplicas.Snapshot {
        let path = setting.folder.appendingPathComponent(
            "\(account.uuidString.lowercased())-\(cursor)-\(UUID()).snapshot"
        ).path
        let sha256: String
        do {
            sha256 = try await AccountReplicas.blocking {
                try store.writeSnapshot(to: path)
                try CardboxStore.leaveNewStoreKeyFree(inSnapshotAt: path)
                return try AccountReplicas.fileSHA256(path)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        let made = AccountReplicas.Snapshot(path: path, cursor: cursor, sha256: sha256)
        if let old = snapshot { try? FileManager.default.removeItem(atPath: old.path) }
        snapshot = made
        return made
    }

    /// Catches up a little after a push (`refreshDelay`), so the pushes of a burst are applied
    /// together, and then makes the next snapshot ahead when the burst was large (see
    /// `makeSnapshotAhead`).
    func refresh() async {
        guard !refreshScheduled, !closing else { return }
        refreshScheduled = true
        try? await Task.sleep(for: setting.refreshDelay)
        refreshScheduled = false
        try? await catchUp()
        await makeSnapshotAhead()
    }

    /// After a burst of many changes (a device's first upload, an import) has ended, the snapshot the
    /// next new device will ask for is made now, not while that device waits: the catch-up and the
    /// copy of the whole store would otherwise double its first sync. Only past `snapshotAhead`
    /// records since the last snapshot, so a busy account costs one copy of its store per that many
    /// changes, not one per burst; a burst still going on (another refresh already due) leaves it to
    /// that refresh.
    private func makeSnapshotAhead() async {
        guard !refreshScheduled, let applied, applied - (snapshot?.cursor ?? 0) >= setting.snapshotAhead else {
            return
        }
        if let open = try? await snapshot(atLeast: nil) { try? open.file.close() }
    }

    // MARK: The store's life

    /// The store, opened (and, the first time, made and migrated) on a thread of its own.
    private func openStore() async throws -> CardboxStore {
        if released { throw CopyClosed() }
        if let store { return store }
        if let opening { return try await opening.value }
        var environment = StoreEnvironment.live
        environment.now = setting.now
        // Study days are the person's (their account's time zone), not the server's.
        environment.followsAccountTimeZone = true
        let task = Task { [path, account, environment] in
            try await AccountReplicas.blocking {
                try CardboxStore.open(path: path, account: account, environment: environment, connections: .serverCopy)
            }
        }
        opening = task
        defer { opening = nil }
        let opened = try await task.value
        store = opened
        return opened
    }

    /// Lets the copy go: no new use is taken; once the work in turn and the reads running are done,
    /// its marks are written, its store closed and its snapshot's file deleted. Until this returns,
    /// no other copy of the account opens its file.
    func close() async {
        closing = true
        _ = await lastTurn?.result
        while readers > 0 { try? await Task.sleep(for: .milliseconds(5)) }
        if let mark = marks, !mark.saved { try? await writeMarks(mark) }
        if let store {
            // A use on another thread (a read that outlived its caller) finishes first.
            for _ in 0..<200 where !store.close() { try? await Task.sleep(for: .milliseconds(5)) }
        }
        store = nil
        released = true
        if let snapshot { try? FileManager.default.removeItem(atPath: snapshot.path) }
        snapshot = nil
    }
}
