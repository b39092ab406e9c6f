import Foundation

/// Where password hashing runs: on threads of its own, at most `workers` at once, with at most
/// `queueLimit` more waiting. bcrypt is meant to be slow (a quarter of a second at cost 12); run on
/// Swift's cooperative pool, which has one thread per core, a few sign-ins at once would hold every
/// thread and stall every other request. Past the queue, a check is refused at once (`PasswordWorkBusy`,
/// a 429): a flood of sign-ins costs its senders, not the server's other users.
public actor PasswordWork {
    public let workers: Int
    public let queueLimit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Checks waiting for a worker now.
    public var queued: Int { waiting.count }

    /// By default half the cores (at least one) hash, and 64 checks may wait.
    public init(workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), queueLimit: Int = 64) {
        self.workers = max(1, workers)
        self.queueLimit = max(0, queueLimit)
    }

    /// Runs `work` on a thread of its own once a worker is free; throws `PasswordWorkBusy` when the
    /// queue is full.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await takeWorker()
        defer { releaseWorker() }
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = "cardbox-password"
            thread.start()
        }
    }

    private func takeWorker() async throws {
        if running < workers {
            running += 1
            return
        }
        guard waiting.count < queueLimit else { throw PasswordWorkBusy() }
        // The worker is handed over by `releaseWorker`, which leaves `running` as it is.
        await withCheckedContinuation { waiting.append($0) }
    }

    private func releaseWorker() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// Too many password checks wait already: try again in a moment.
public struct PasswordWorkBusy: Error, LocalizedError, Equatable {
    public static let retryAfter = 2

    public init() {}

    public var errorDescription: String? {
        "the server is busy checking other sign-ins; try again in \(Self.retryAfter) s"
    }
}
