import CardboxServer
import Foundation
import Logging

/// The notes of devices' syncs the account page shows (seed 004's sync status), written in the
/// background at most once a second per device: the newest note of each device since the last
/// write, merged. Writing one on every sync's own path made PostgreSQL's incremental send of one
/// card 5.3 → 7.0 ms (`scripts/sync_bench.sh --postgres`) even off the answer's path; the page can
/// be a second late. Notes not yet written when the server stops are lost: only the status, never
/// the sync.
actor SyncNotes {
    private struct Key: Hashable {
        var account: UUID
        var device: UUID
    }

    private struct Note {
        var cursor: Int64?
        var refusal: String??
        var at: Date
    }

    private let database: any ServerDatabase
    private let interval: Duration
    private let logger = Logger(label: "cardbox.sync-notes")
    private var pending: [Key: Note] = [:]
    private var writing = false
    /// Callers of `written()` waiting for the write loop to run dry.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(database: any ServerDatabase, interval: Duration = .seconds(1)) {
        self.database = database
        self.interval = interval
    }

    /// A device's sync at `at`: the cursor a finished pull reached, and what its push met (see
    /// `AccountStore.recordSync`). Merged with a note not yet written: the later one's facts win,
    /// and what it does not say stays.
    func note(device: UUID, account: UUID, pulledTo cursor: Int64?, refusal: String??, at: Date) {
        let key = Key(account: account, device: device)
        let incoming = Note(cursor: cursor, refusal: refusal, at: at)
        guard let held = pending[key] else {
            pending[key] = incoming
            startWriting()
            return
        }
        // Two notes may arrive out of order: the later one's facts win, the earlier one fills gaps.
        let (earlier, later) = held.at <= at ? (held, incoming) : (incoming, held)
        pending[key] = Note(
            cursor: later.cursor ?? earlier.cursor, refusal: later.refusal ?? earlier.refusal, at: later.at)
        startWriting()
    }

    /// Returns once every note given so far is written (or failed to be, and was logged).
    func written() async {
        guard writing else { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func startWriting() {
        guard !writing else { return }
        writing = true
        Task { await writeLoop() }
    }

    /// Writes what is pending, then again after each interval while notes keep coming.
    private func writeLoop() async {
        while !pending.isEmpty {
            let batch = pending
            pending = [:]
            for (key, note) in batch {
                do {
                    try await database.recordSync(
                        device: key.device, account: key.account, pulledTo: note.cursor, refusal: note.refusal,
                        now: note.at)
                } catch {
                    logger.warning("could not note a device's sync", metadata: ["error": "\(error)"])
                }
            }
            try? await Task.sleep(for: interval)
        }
        writing = false
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
