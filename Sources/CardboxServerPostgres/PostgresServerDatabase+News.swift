import CardboxServer
import Foundation
import PostgresNIO
import Synchronization

/// News between servers sharing the database, through PostgreSQL's `LISTEN`/`NOTIFY`: a push on
/// one server reaches the event streams open on another in milliseconds (they also poll, should
/// the listening connection drop).
extension PostgresServerDatabase: ServerNewsChannel {
    /// The channel every server listens on.
    static let newsChannelName = "cardbox_news"

    public var newsChannel: (any ServerNewsChannel)? { self }

    public func announce(_ news: ServerNews) async {
        do {
            try await client.query(
                "SELECT pg_notify(\(Self.newsChannelName), \(news.payload(origin: origin)))", logger: logger)
        } catch {
            logger.warning("could not tell the other servers of news (they will poll): \(String(reflecting: error))")
        }
    }

    /// Holds one of the pool's connections for as long as it listens.
    public func listen(_ heard: @escaping @Sendable (ServerNews) async -> Void) async throws {
        try await translatingErrors {
            try await client.withConnection { connection in
                try await connection.listen(on: Self.newsChannelName) { [origin, listening] notifications in
                    listening.open()
                    for try await notification in notifications {
                        guard let news = ServerNews(payload: notification.payload, ignoring: origin) else { continue }
                        await heard(news)
                    }
                }
            }
        }
    }

    /// Returns once `listen` hears: news announced after that reaches this server (for tests that
    /// must not announce before).
    public func untilListening() async { await listening.wait() }
}

/// Opens once; whoever waits on it goes on when it does.
final class Latch: Sendable {
    private let state = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}
