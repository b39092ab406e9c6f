import CardboxServer
import CardboxWire
import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

/// Tells waiting devices that their account has news: a push on this server wakes them at once,
/// and so does one on another server sharing the database when it has a news channel
/// (PostgreSQL's); without one, or while it is down, such a push is seen by polling, every
/// `pollInterval`.
public actor AccountNews {
    private var waiters: [UUID: [UUID: CheckedContinuation<Void, Never>]] = [:]
    /// How many times each account had news: a device that read its cursor at edition N and then
    /// waits is woken at once by any news after N, even news that came before it began to wait.
    private var editions: [UUID: Int] = [:]

    /// Who else hears of news (the background suggestion service), by subscription.
    private var observers: [UUID: AsyncStream<UUID>.Continuation] = [:]

    /// The event streams open, per account in the order they opened, each with its device (a
    /// browser's session is a device too), and those told to close.
    private var streams: [UUID: [(ticket: UUID, device: UUID)]] = [:]
    private var closing: Set<UUID> = []
    private let streamsPerDevice: Int
    private let streamsPerAccount: Int
    /// Where the other servers sharing the database hear this one's news.
    private let channel: (any ServerNewsChannel)?
    /// Streams running now (those told to close count until they have): `/metrics` reports it.
    private var running = 0
    private let metrics: ServerMetrics?

    /// At most `streamsPerDevice` event streams for one device (a browser's tabs) and
    /// `streamsPerAccount` for one account: past either, the oldest closes.
    public init(
        streamsPerDevice: Int = 6, streamsPerAccount: Int = 24, channel: (any ServerNewsChannel)? = nil,
        metrics: ServerMetrics? = nil
    ) {
        (self.streamsPerDevice, self.streamsPerAccount) = (streamsPerDevice, streamsPerAccount)
        self.channel = channel
        self.metrics = metrics
    }

    /// Counts a stream of `device` opening on `account`; answers its ticket. Past the device's cap
    /// its oldest stream is told to close, past the account's the account's oldest, and they are
    /// woken to see it.
    func openStream(account: UUID, device: UUID) -> UUID {
        let ticket = UUID()
        running += 1
        metrics?.eventStreams(running)
        var open = streams[account, default: []]
        open.append((ticket, device))
        var closed: [UUID] = []
        let mine = open.filter { $0.device == device }
        if mine.count > streamsPerDevice { closed.append(mine[0].ticket) }
        if open.count - closed.count > streamsPerAccount,
            let oldest = open.first(where: { !closed.contains($0.ticket) })
        {
            closed.append(oldest.ticket)
        }
        streams[account] = open.filter { !closed.contains($0.ticket) }
        if !closed.isEmpty {
            closing.formUnion(closed)
            wakeAll(account)
        }
        return ticket
    }

    /// Whether the stream with `ticket` may go on (it was not told to close).
    func isOpen(_ ticket: UUID) -> Bool { !closing.contains(ticket) }

    /// A stream ended, for whatever reason.
    func closeStream(_ ticket: UUID, account: UUID) {
        running -= 1
        metrics?.eventStreams(running)
        streams[account]?.removeAll { $0.ticket == ticket }
        if streams[account]?.isEmpty == true { streams[account] = nil }
        closing.remove(ticket)
    }

    /// Every account that has news from now on, until the stream is dropped.
    public func observe() -> AsyncStream<UUID> {
        let (stream, continuation) = AsyncStream.makeStream(of: UUID.self, bufferingPolicy: .bufferingNewest(1000))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { _ in Task { await self.stopObserving(id) } }
        return stream
    }

    private func stopObserving(_ id: UUID) { observers[id] = nil }

    /// Wakes every device waiting on `account`, here and on the other servers.
    public func published(_ account: UUID) {
        for observer in observers.values { observer.yield(account) }
        wakeAll(account)
        tellOtherServers(.changed(account: account))
    }

    /// Wakes the account's streams without news for devices: each checks that its token still
    /// signs it in (a device was signed out). The edition moves too, so a stream that checked its
    /// token just before and waits just after is woken all the same.
    public func signedOut(_ account: UUID) {
        wakeAll(account)
        tellOtherServers(.signedOut(account: account))
    }

    /// News another server announced: its streams here wake. Who observes this server's news
    /// (its suggestion service) does not hear it: the other server's own does the work.
    func heard(_ news: ServerNews) {
        switch news {
        case .changed(let account), .signedOut(let account): wakeAll(account)
        }
    }

    /// Sent apart from the request that made the news: its answer does not wait for it.
    private func tellOtherServers(_ news: ServerNews) {
        guard let channel else { return }
        Task { await channel.announce(news) }
    }

    private func wakeAll(_ account: UUID) {
        editions[account, default: 0] += 1
        guard let waiting = waiters.removeValue(forKey: account) else { return }
        for waiter in waiting.values { waiter.resume() }
    }

    /// The account's edition now: read it before reading the account's cursor, then wait after it.
    func edition(of account: UUID) -> Int { editions[account, default: 0] }

    /// Returns when the account has news after `edition`, after `timeout`, or when the waiting task
    /// is cancelled, whichever comes first.
    func wait(for account: UUID, after edition: Int, timeout: Duration) async {
        guard editions[account, default: 0] == edition else { return }
        let id = UUID()
        // Ends the wait when its time is up or, cancelled, at once.
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.release(id, account: account)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // On the actor: registered before any later `published` can run.
                waiters[account, default: [:]][id] = continuation
                if Task.isCancelled { release(id, account: account) }
            }
        } onCancel: {
            timer.cancel()
        }
        timer.cancel()
    }

    private func release(_ id: UUID, account: UUID) {
        waiters[account]?.removeValue(forKey: id)?.resume()
        if waiters[account]?.isEmpty == true { waiters[account] = nil }
    }
}

/// `GET /v1/sync/events?after=N`: server-sent events. Each time the account's state moves past the
/// cursor the device has, one `changes` event with the new cursor; a comment every 15 s keeps
/// proxies from closing a quiet stream. The device pulls when told, instead of polling.
struct NewsStream {
    let database: any ServerDatabase
    let news: AccountNews
    var pollInterval: Duration
    var heartbeat: Duration = .seconds(15)

    /// The stream of `account`'s news after `cursor` for `device`, for as long as `stillSignedIn`
    /// says the token that opened it is good (asked at each wake-up: a revoked device hears
    /// nothing more) and no newer stream took its place (`AccountNews.openStream`'s caps).
    func response(
        account: UUID, device: UUID, after cursor: Int64, stillSignedIn: @escaping @Sendable () async throws -> Bool
    ) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { [news] writer in
                let ticket = await news.openStream(account: account, device: device)
                do {
                    try await stream(account: account, after: cursor, ticket: ticket, to: &writer, stillSignedIn)
                } catch {
                    await news.closeStream(ticket, account: account)
                    throw error
                }
                await news.closeStream(ticket, account: account)
                try await writer.finish(nil)
            })
    }

    private func stream(
        account: UUID, after cursor: Int64, ticket: UUID, to writer: inout any ResponseBodyWriter,
        _ stillSignedIn: @escaping @Sendable () async throws -> Bool
    ) async throws {
        var known = cursor
        var quiet: Duration = .zero
        try await writer.write(ByteBuffer(string: ": cardbox news\n\n"))
        // A server shutting down ends the stream at once, so it does not wait for the
        // listeners, who never hang up by themselves; they connect again later.
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let edition = await news.edition(of: account)
            guard await news.isOpen(ticket), try await stillSignedIn() else { break }
            let latest = try await database.cursor(account: account)
            if latest > known {
                known = latest
                let event = try WireCoding.text(NewsEvent(cursor: latest))
                try await writer.write(ByteBuffer(string: "event: changes\ndata: \(event)\n\n"))
                quiet = .zero
            }
            let start = ContinuousClock.now
            await cancelWhenGracefulShutdown { [news, pollInterval] in
                await news.wait(for: account, after: edition, timeout: pollInterval)
            }
            quiet += ContinuousClock.now - start
            if quiet >= heartbeat {
                try await writer.write(ByteBuffer(string: ": still here\n\n"))
                quiet = .zero
            }
        }
        // Closed for a newer stream: a browser's EventSource waits a minute before it comes
        // back, so tabs past the cap do not take turns closing each other every few seconds.
        if await !news.isOpen(ticket) {
            try await writer.write(ByteBuffer(string: ": closed for a newer stream\nretry: 60000\n\n"))
        }
    }
}
