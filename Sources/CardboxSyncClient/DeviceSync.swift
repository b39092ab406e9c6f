import CardboxCore
import CardboxStore
import CardboxSync
import Foundation

/// How far a sync has come, for a progress bar.
public struct SyncProgress: Sendable, Equatable {
    public enum Phase: String, Sendable { case snapshot, push, pull }
    public var phase: Phase
    /// Records sent or received so far, and (when known) in all; for a snapshot, kilobytes.
    public var done: Int
    public var total: Int?
}

/// What one sync did.
public struct SyncReport: Sendable, Equatable {
    public var pushed = 0
    public var pulled = 0
    public var applied = ApplyReport()
    public var imagesSent = 0
    public var imagesReceived = 0
    /// Whether the device, holding nothing yet, took the server's copy of the account whole.
    public var snapshot = false
    /// Why a snapshot was not taken when one was tried (the sync went on record by record).
    public var snapshotProblem: String?
}

/// What `cardbox sync status` shows.
public struct SyncStatus: Sendable, Equatable, Codable {
    public var server: String?
    public var user: String?
    public var accountId: String
    /// Local changes (records) the server has not acknowledged yet.
    public var pending: Int
    public var lastSync: Date?
    public var lastError: String?
}

/// One device's side of sync: push what changed here, then pull until caught up. Every step is
/// safe to interrupt: the cursors move only after the server acknowledged a push or the store
/// committed a pulled page, and both sides merge idempotently, so the next run sends or fetches
/// again whatever the interrupted one may have lost.
public struct DeviceSync: Sendable {
    public let store: CardboxStore
    /// Records per pushed batch and per pulled page.
    public var batchSize = 2_000
    /// How requests reach the server: the network, or (in the tests) a router in this process.
    public var transport: any HTTPTransport

    public init(store: CardboxStore, transport: any HTTPTransport = ServerConnection.client) {
        self.store = store
        self.transport = transport
    }

    public static let notSignedIn = CardboxError.invalid(
        field: "sync", reason: "this store is not signed in to a server: cardbox login URL --user NAME")

    public func sync(progress: (SyncProgress) -> Void = { _ in }) async throws -> SyncReport {
        guard var start = try store.syncStart(limit: batchSize) else { throw Self.notSignedIn }
        var link = start.link
        let connection = try ServerConnection(server: link.server, token: link.token, transport: transport)
        do {
            var report = SyncReport()
            // A pull the server's answers already made (a current snapshot): no request for it.
            var answered: PullPage?
            if start.holdsNothingOfItsOwn {
                // A snapshot is a shortcut: when it fails (a newer server's schema, a damaged or cut
                // download), the device syncs record by record instead, and says why.
                do {
                    answered = try await adoptSnapshot(&link, connection, &report, progress)
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    report.snapshotProblem = (error as? LocalizedError)?.errorDescription ?? "\(error)"
                }
                // What the store has to send and the images it holds, as the snapshot left them.
                start = try store.syncStart(limit: batchSize) ?? start
            }
            // A push the server refuses for what it holds (the plan's card limit) stays pending
            // here; the others' changes are still fetched, and the refusal is reported after.
            var refusal: SyncClientError?
            var firstPage: PullPage?
            do {
                firstPage = try await pushAndPull(
                    &link, start.pending, connection, &report, progress, answered: answered)
            } catch let error as SyncClientError where error.isRefusalOfContent {
                refusal = error
                // Only the new cards wait for room: the rest of what was refused goes now.
                try await pushAllButNewCards(link, connection)
            }
            try await uploadImages(start.imageHashes, &link, connection, &report)
            let plan = try await pull(
                from: firstPage, &link, connection, &report, progress, finishing: refusal == nil)
            let followUp = try store.syncFollowUp()
            // The plan and its limit are the server's to decide; a change to them is sent at once.
            if let plan, !followUp.plan.isServers(plan) {
                _ = try store.setPlan(plan, freeCardLimit: Limits.freeCardLimit)
                if refusal == nil { try await push(&link, connection, &report, progress) }
            }
            try await fetchImages(followUp.missingImages, connection, &report)
            if let refusal { throw refusal }
            return report
        } catch {
            link.lastError = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            try? store.saveSyncLink(link)
            throw error
        }
    }

    /// Sends everything written here since the last acknowledged push (`pending`): every batch but
    /// the last on its own, the last with the first page of the pull (one request, for the usual
    /// sync of a few changes). The push cursor moves in memory, once every batch is in; it is saved
    /// with that page. With nothing to send, `answered` (when the server's answers made it) is the
    /// pull.
    private func pushAndPull(
        _ link: inout SyncLink, _ pending: PendingChanges, _ connection: ServerConnection, _ report: inout SyncReport,
        _ progress: (SyncProgress) -> Void, answered: PullPage?
    ) async throws -> PullPage {
        var pages = pending.pages
        // Nothing to send: a plain pull, which the server answers without a write.
        guard pages.total > 0 else {
            link.sent = pages.cursor
            if let answered { return answered }
            return try await connection.pull(after: link.received, limit: batchSize)
        }
        // Batches that only follow one another hold nothing new to this device: the pull after them
        // starts past them, so a first upload does not come back whole.
        let (last, held) = try await sendAllButLast(pending.first, &pages, &link, connection, &report, progress)
        let page: PullPage
        do {
            page = try await connection.exchange(last, batch: UUID(), after: held, limit: batchSize)
        } catch SyncClientError.refused(status: 404, _), SyncClientError.refused(status: 405, _) {
            // A server from before the exchange: the push and the pull apart.
            _ = try await connection.push(last, batch: UUID())
            page = try await connection.pull(after: held, limit: batchSize)
        }
        Self.count(last, of: pages, &report, progress)
        link.sent = pages.cursor
        return page
    }

    /// Pushes what changed since the last acknowledged push, in batches, and saves the cursor.
    private func push(
        _ link: inout SyncLink, _ connection: ServerConnection, _ report: inout SyncReport,
        _ progress: (SyncProgress) -> Void
    ) async throws {
        let pending = try store.pendingChanges(since: link.sent, limit: batchSize)
        var pages = pending.pages
        if pages.total > 0 {
            let (last, _) = try await sendAllButLast(pending.first, &pages, &link, connection, &report, progress)
            _ = try await connection.push(last, batch: UUID())
            Self.count(last, of: pages, &report, progress)
        }
        // Only once every batch is in: a sync cut short sends them all again, which merges to the same.
        link.sent = pages.cursor
        try store.saveSyncLink(link)
    }

    /// After a push refused for the plan's card limit: sends what it held that adds no card (a
    /// list and its items, edits of cards the server has, deletes), so that only the cards made
    /// since the last acknowledged push, with their tags and reviews, wait for room. The push
    /// cursor stays: the next sync sends it all again, which merges to the same.
    private func pushAllButNewCards(_ link: SyncLink, _ connection: ServerConnection) async throws {
        var newCards: Set<String> = []
        try await forEachPendingBatch(since: link.sent) { batch in
            for row in batch.rows where row.entity == .card && row.created.timestamp > link.sent {
                newCards.insert(row.id)
            }
        }
        guard !newCards.isEmpty else { return }
        try await forEachPendingBatch(since: link.sent) { batch in
            var kept = batch
            kept.rows = batch.rows.filter { row in
                switch row.entity {
                case .card: return !newCards.contains(row.id)
                case .cardTag, .reviewLog:
                    guard case .string(let card)? = row.fields["cardId"]?.value else { return true }
                    return !newCards.contains(card)
                default: return true
                }
            }
            if !kept.isEmpty { _ = try await connection.push(kept, batch: UUID(), heldBack: true) }
        }
    }

    /// Reads the changes pending since `cursor` a batch at a time.
    private func forEachPendingBatch(since cursor: HLCTimestamp, _ body: (ChangeSet) async throws -> Void)
        async throws
    {
        let pending = try store.pendingChanges(since: cursor, limit: batchSize)
        var pages = pending.pages
        var batch = pending.first
        while !batch.isEmpty {
            try await body(batch)
            guard !pages.isFinished else { return }
            batch = try store.nextPage(of: &pages, limit: batchSize)
        }
    }

    /// Counts a pushed batch in the report and shows how far the push has got.
    private static func count(
        _ batch: ChangeSet, of pages: ChangePages, _ report: inout SyncReport, _ progress: (SyncProgress) -> Void
    ) {
        report.pushed += batch.rows.count + batch.tombstones.count
        progress(SyncProgress(phase: .push, done: report.pushed, total: pages.total))
    }

    /// Reads `pages` a batch at a time after `first` (one batch ahead, so that the last is known) and
    /// pushes each but the last, which it returns unsent; a collection of any size holds two batches
    /// in memory.
    /// Also returns the cursor this device holds everything up to after them, from the link's
    /// `received` on: each batch that came right after the one before (its receipt's previous cursor
    /// is where the device stood) moves it to its own cursor, as the records it added are the
    /// device's own (see `PushReceipt.isOwnEcho` on the server); once another device's push came
    /// between, it stays. The link keeps it as it moves, so a sync cut short after some batches does
    /// not pull them back next time.
    private func sendAllButLast(
        _ first: ChangeSet, _ pages: inout ChangePages, _ link: inout SyncLink, _ connection: ServerConnection,
        _ report: inout SyncReport, _ progress: (SyncProgress) -> Void
    ) async throws -> (last: ChangeSet, held: Int64) {
        var chain = PushChain(held: link.received)
        var batch = first
        while !pages.isFinished {
            let next = try store.nextPage(of: &pages, limit: batchSize)
            if next.isEmpty { break }
            chain.pushed(try await connection.push(batch, batch: UUID()))
            if chain.held > link.received {
                link.received = chain.held
                try store.saveSyncLink(link)
            }
            Self.count(batch, of: pages, &report, progress)
            batch = next
        }
        return (batch, chain.held)
    }

    /// Applies `first` (or the first page asked for, when the push went wrong) and the pages after
    /// it until caught up, each in one transaction with the link's cursors; `finishing` also marks
    /// the sync done in the last one. Returns the account's plan, as the last page said.
    private func pull(
        from first: PullPage?, _ link: inout SyncLink, _ connection: ServerConnection,
        _ report: inout SyncReport, _ progress: (SyncProgress) -> Void, finishing: Bool
    ) async throws -> Plan? {
        var next = first
        while true {
            let page: PullPage
            if let next {
                page = next
            } else {
                page = try await connection.pull(after: link.received, limit: batchSize)
            }
            next = nil
            // The cursor moves only with the page: a page that fails to apply is asked for again.
            var applying = link
            applying.received = page.cursor
            if !page.hasMore && finishing {
                applying.lastSync = Date()
                applying.lastError = nil
            }
            let applied = try store.apply(page.changes, saving: applying)
            link = applying
            report.applied.inserted += applied.inserted
            report.applied.updated += applied.updated
            report.applied.deleted += applied.deleted
            report.applied.held += applied.held
            report.pulled += page.changes.rows.count + page.changes.tombstones.count
            progress(SyncProgress(phase: .pull, done: report.pulled, total: nil))
            if !page.hasMore { return page.plan }
        }
    }

    /// A device with nothing yet takes the server's copy of the account whole, when the server keeps
    /// one, and then pulls only what came after it. Returns the page that pull would be when the
    /// server says the copy holds everything pushed before it was asked for: nothing after it.
    private func adoptSnapshot(
        _ link: inout SyncLink, _ connection: ServerConnection, _ report: inout SyncReport,
        _ progress: (SyncProgress) -> Void
    ) async throws -> PullPage? {
        // Beside the store, so that adopting it is a rename.
        let path = store.snapshotFolder
            .appendingPathComponent("cardbox-snapshot-\(UUID().uuidString.lowercased()).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
        guard
            let snapshot = try await connection.snapshot(
                to: path,
                progress: { progress(SyncProgress(phase: .snapshot, done: $0 / 1024, total: $1.map { $0 / 1024 })) })
        else { return nil }
        var adopted = link
        adopted.received = snapshot.cursor
        // A write made here while the snapshot came makes the store one to sync record by record.
        guard try store.adoptSnapshot(at: path, link: adopted) else { return nil }
        link = adopted
        report.snapshot = true
        guard snapshot.isCurrent else { return nil }
        return PullPage(
            changes: ChangeSet(accountId: store.accountId, replicaId: serverReplicaId), cursor: snapshot.cursor,
            hasMore: false, plan: snapshot.plan)
    }

    /// Sends the bytes of every image the server lacks (seed 002's rules are checked there again).
    /// Only when the store's images changed since the server last got what it lacked: a store
    /// with a thousand images does not send their hashes at every sync.
    private func uploadImages(
        _ local: [String], _ link: inout SyncLink, _ connection: ServerConnection, _ report: inout SyncReport
    ) async throws {
        guard !local.isEmpty else { return }
        let digest = sha256Hex(Data(local.joined(separator: ",").utf8))
        guard digest != link.imagesOffered else { return }
        for hash in try await connection.missingImages(local) {
            // The list was read when the sync began: an image no record here names any more may have
            // been let go since (writes go on during a sync), and there is nothing of it to send.
            let data: Data
            do {
                data = try store.imageData(sha256: hash).data
            } catch CardboxError.notFound {
                continue
            }
            try await connection.uploadImage(data, sha256: hash)
            report.imagesSent += 1
        }
        link.imagesOffered = digest
    }

    /// Fetches the bytes of images that pulled records name (`missing`); those no device has
    /// uploaded yet come at a later sync.
    private func fetchImages(_ missing: [String], _ connection: ServerConnection, _ report: inout SyncReport)
        async throws
    {
        for hash in missing {
            guard let data = try await connection.image(hash) else { continue }
            try store.storeFetchedImage(data, sha256: hash)
            report.imagesReceived += 1
        }
    }

    /// The store's sync status. A signed-in store that holds nothing of its own and has not synced
    /// yet has nothing pending: its first sync takes the server's copy of the account, and the
    /// bookkeeping of joining the account is not a change a person made.
    public func status() throws -> SyncStatus {
        let link = try store.syncLink()
        let fresh = try link.map { $0.received == 0 } == true && store.holdsNothingOfItsOwn()
        return SyncStatus(
            server: link?.server, user: link?.user, accountId: store.accountId.uuidString.lowercased(),
            pending: fresh ? 0 : try store.changeCount(since: link?.sent ?? .zero), lastSync: link?.lastSync,
            lastError: link?.lastError)
    }
}

/// Where a device stands after pushes of its own, one after another: the cursor it holds everything
/// up to. A push that came right after the last (its receipt's previous cursor is that cursor)
/// added only the device's own records, so the device holds everything up to its cursor too; once
/// another device's push came between (or a receipt does not say), it stays where it was.
package struct PushChain: Sendable {
    package private(set) var held: Int64
    private var unbroken = true

    package init(held: Int64) { self.held = held }

    package mutating func pushed(_ receipt: PushReceipt) {
        unbroken = unbroken && receipt.isOwnEcho(after: held)
        if unbroken { held = receipt.cursor }
    }
}
