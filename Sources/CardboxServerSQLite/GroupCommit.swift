import CardboxServer
import GRDB
import Synchronization

/// Writes of many requests made together in transactions of a database's one writer ("group
/// commit"). A write that finds the writer idle goes at once, as it would alone; those that arrive
/// while a transaction is being written wait for it and then go in the next one together, each in a
/// savepoint of its own, and share its commit: one wait for the disk (the sync state commits with
/// `synchronous = FULL`) instead of one each. A write that fails rolls back its own savepoint only;
/// the others are kept. A commit that fails fails every write in it, none of which was kept.
final class GroupCommit<Output: Sendable>: Sendable {
    private let writer: any DatabaseWriter
    private let waiting = Mutex(Waiting())

    private struct Waiting {
        var jobs: [Job] = []
        /// Whether a transaction is being written (or about to be): new jobs wait for the next.
        var writing = false
    }

    private struct Job: Sendable {
        let body: @Sendable (Database) throws -> Output
        let continuation: CheckedContinuation<Output, any Error>
    }

    init(writer: any DatabaseWriter) { self.writer = writer }

    /// Runs `body` in a transaction of the writer, with the writes waiting beside it.
    func write(_ body: @escaping @Sendable (Database) throws -> Output) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let startsWriting = waiting.withLock { waiting in
                waiting.jobs.append(Job(body: body, continuation: continuation))
                defer { waiting.writing = true }
                return !waiting.writing
            }
            if startsWriting { Task { await self.writeAll() } }
        }
    }

    /// Writes the waiting jobs, a transaction at a time, until none waits.
    private func writeAll() async {
        while true {
            let jobs = waiting.withLock { waiting in
                defer { waiting.jobs = [] }
                if waiting.jobs.isEmpty { waiting.writing = false }
                return waiting.jobs
            }
            guard !jobs.isEmpty else { return }
            do {
                let outcomes = try await writer.write { db in jobs.map { job in Self.run(job.body, db) } }
                for (job, outcome) in zip(jobs, outcomes) { job.continuation.resume(with: outcome) }
            } catch {
                for job in jobs { job.continuation.resume(throwing: error) }
            }
        }
    }

    private static func run(_ body: (Database) throws -> Output, _ db: Database) -> Result<Output, any Error> {
        var outcome: Result<Output, any Error>?
        do {
            try db.inSavepoint {
                outcome = .success(try body(db))
                return .commit
            }
        } catch {
            return .failure(error)
        }
        return outcome ?? .failure(DatabaseError(resultCode: .SQLITE_ERROR, message: "a savepoint returned nothing"))
    }
}
