import CardboxAccountCopies
import CardboxCore
import CardboxServer
import CardboxStore
import CardboxSuggest
import Foundation
import Logging
import ServiceLifecycle

/// Which providers the server's background processing uses, and how often it sweeps over every
/// account (besides right after each account's changes, and when an account's image is due to be
/// tried again).
public struct SuggestionServiceSettings: Sendable {
    public var suggestions: any SuggestionProvider
    public var images: (any ImageProvider)?
    /// Between sweeps over every account: for what no change of this server's announces (pushes
    /// through another server sharing the database, rejected suggestions growing old).
    public var interval: Duration
    /// How long an account's changes wait before it is looked at: the pushes of one sync, or of a
    /// person at work, come close together and need one look, and it is not taken while their
    /// devices still wait for answers.
    public var delay: Duration

    public init(
        suggestions: any SuggestionProvider, images: (any ImageProvider)?, interval: Duration = .seconds(3600),
        delay: Duration = .seconds(1)
    ) {
        self.suggestions = suggestions
        self.images = images
        self.interval = interval
        self.delay = delay
    }
}

/// Seed 000's "Background Processing" in `cardbox serve`: after an account's changes, when one of
/// its suggestions' images is due to be tried again, and for every account in a slow sweep, each
/// deck with automatic suggestions has its queue filled and each suggestion waiting for an image
/// gets one. It works on the server's copy of the account, so what it adds reaches every device by
/// sync, like a device's own change. Accounts are handled one at a time, in the background of
/// requests; an account nothing happens to is not opened.
struct SuggestionService: Service {
    let settings: SuggestionServiceSettings
    let database: any ServerDatabase
    let replicas: AccountReplicas
    let news: AccountNews
    let now: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        let (work, queue) = AsyncStream.makeStream(of: UUID?.self)  // nil: every account
        let changed = await news.observe()
        let problems = ReportedProblems()
        let changes = ChangedAccounts(delay: settings.delay, queue: queue)
        let due = DueAccounts()
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await account in changed { await changes.changed(account) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        queue.yield(nil)
                        try? await Task.sleep(for: settings.interval)
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        for account in await due.take(by: now()) { queue.yield(account) }
                        try? await Task.sleep(for: DueAccounts.tick)
                    }
                }
                group.addTask {
                    for await item in work {
                        var accounts = item.map { [$0] } ?? []
                        if item == nil { accounts = (try? await database.accounts().map(\.id)) ?? [] }
                        for account in accounts where !Task.isCancelled {
                            if let next = await maintain(account, problems: problems) {
                                await due.wake(account, at: next)
                            }
                        }
                    }
                }
            }
        }
        queue.finish()
    }

    /// One pass over one account: its decks' queues, then its waiting images. Returns when it wants
    /// another pass: an image's next attempt, or (a deck's refill failed) after the sweep's interval.
    func maintain(_ account: UUID, problems: ReportedProblems) async -> Date? {
        guard let plan = try? await database.account(account)?.plan else { return nil }
        var next: Date?
        let workspace = ReplicaWorkspace(
            replicas: replicas, account: account, plan: plan, now: now,
            published: { [news] in await news.published(account) })
        do {
            for deck in try await workspace.decksWithAutomaticSuggestions() {
                do {
                    let report = try await SuggestionMaintenance.refill(
                        deck, in: workspace, provider: settings.suggestions)
                    if !report.added.isEmpty {
                        logger.info(
                            "suggestions added",
                            metadata: ["deck": "\(deck.description)", "count": "\(report.added.count)"])
                    }
                    await problems.clear(deck.description)
                } catch {
                    next = now().addingTimeInterval(Double(settings.interval.components.seconds))
                    if await problems.isNew(deck.description, "\(error)") {
                        logger.warning(
                            "suggestions for a deck failed",
                            metadata: ["deck": "\(deck.description)", "error": "\(error)"])
                    }
                }
            }
            if let images = settings.images {
                let report = try await ImagePipeline.run(in: workspace, provider: images)
                next = ([next] + report.retrying.map(\.nextAttemptAt)).compactMap { $0 }.min()
                // A pass takes a few jobs at a time: the rest are due at once.
                if report.made.count + report.retrying.count + report.removed.count >= ImagePipeline.jobsPerRun {
                    next = now()
                }
                for failure in report.retrying + report.removed {
                    logger.warning(
                        "a suggestion's image failed",
                        metadata: ["suggestion": "\(failure.suggestionId.description)", "error": "\(failure.reason)"])
                }
            }
        } catch {
            logger.warning("background processing of an account failed", metadata: ["error": "\(error)"])
        }
        return next
    }
}

/// Accounts with work due at a time of their own (an image to try again after its backoff), each
/// queued when its time comes: the rest are not looked at until something happens to them.
actor DueAccounts {
    /// How often due times are checked.
    static let tick: Duration = .seconds(1)
    private var due: [UUID: Date] = [:]

    /// Asks for a pass over `account` at `date` (the earlier, when one is asked for already).
    func wake(_ account: UUID, at date: Date) { due[account] = min(due[account] ?? date, date) }

    /// The accounts due by `now`, no longer waiting.
    func take(by now: Date) -> [UUID] {
        let ready = due.filter { $0.value <= now }.map(\.key)
        for account in ready { due[account] = nil }
        return ready
    }
}

/// Accounts whose changes are waiting to be looked at: each is queued once, `delay` after its first
/// change since it was last queued, however many more come meanwhile (`SuggestionServiceSettings.delay`).
actor ChangedAccounts {
    private let delay: Duration
    private let queue: AsyncStream<UUID?>.Continuation
    private var waiting: Set<UUID> = []

    init(delay: Duration, queue: AsyncStream<UUID?>.Continuation) {
        self.delay = delay
        self.queue = queue
    }

    func changed(_ account: UUID) {
        guard waiting.insert(account).inserted else { return }
        Task {
            try? await Task.sleep(for: delay)
            queued(account)
        }
    }

    /// Out of the waiting set first: a change made while the account is being looked at brings
    /// another look.
    private func queued(_ account: UUID) {
        waiting.remove(account)
        queue.yield(account)
    }
}

/// The last problem logged per deck, so a deck that cannot be served (no dictionary for its
/// languages) is logged once, not every minute.
actor ReportedProblems {
    private var last: [String: String] = [:]

    func isNew(_ key: String, _ problem: String) -> Bool {
        defer { last[key] = problem }
        return last[key] != problem
    }

    func clear(_ key: String) { last[key] = nil }
}

/// The server's copy of one account as a workspace: reads see the account as synced; writes are
/// pushed to the account's devices before they return.
struct ReplicaWorkspace: SuggestionWorkspace {
    let replicas: AccountReplicas
    let account: UUID
    let plan: Plan
    let now: @Sendable () -> Date
    let published: @Sendable () async -> Void

    private func read<T: Sendable>(_ body: @escaping @Sendable (CardboxStore) throws -> T) async throws -> T {
        try await replicas.read(account, body)
    }

    private func write<T: Sendable>(_ body: @escaping @Sendable (CardboxStore) throws -> T) async throws -> T {
        try await replicas.write(account, plan: plan, now: now(), body, pushed: published)
    }

    func decksWithAutomaticSuggestions() async throws -> [DeckID] {
        try await read { try StoreWorkspace.automaticDecks($0) }
    }

    func suggestionQueueState(in deck: DeckID) async throws -> SuggestionQueueState {
        try await read { try $0.suggestionQueueState(in: deck) }
    }

    func addGeneratedSuggestions(to deck: DeckID, _ drafts: [SuggestionDraft]) async throws -> [Suggestion] {
        try await write { try $0.addGeneratedSuggestions(to: deck, drafts) }
    }

    func dueImageJobs(limit: Int) async throws -> [ImageJob] { try await read { try $0.dueImageJobs(limit: limit) } }

    func completeImageJob(_ suggestion: SuggestionID, image: Data) async throws -> Suggestion? {
        try await write { try $0.completeImageJob(suggestion, image: image) }
    }

    func failImageJob(_ suggestion: SuggestionID, reason: String) async throws -> ImageFailureOutcome {
        try await write { try $0.failImageJob(suggestion, reason: reason) }
    }
}
