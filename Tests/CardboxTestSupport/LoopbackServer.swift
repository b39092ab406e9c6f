import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A server for a test, on a free loopback port: Cardbox's own, or a router standing in for
/// another service (an OpenAI-compatible API, a damaged sync server).
public struct LoopbackServer: Sendable {
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    public struct DidNotStart: Error, CustomStringConvertible {
        public var description: String { "the test server stopped before it listened" }
    }

    /// Starts the service `make` builds, given the callback it calls with its port once it listens.
    public static func start<S: Service>(
        logLevel: Logger.Level = .warning,
        _ make: (_ onRunning: @escaping @Sendable (Int) async -> Void) throws -> S
    ) async throws -> LoopbackServer {
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "cardbox.test-server")
        logger.logLevel = logLevel
        let group = ServiceGroup(configuration: .init(services: [try make { port.yield($0) }], logger: logger))
        let task = Task {
            // A server that stops before it listens ends the wait for its port.
            defer { port.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            try await task.value
            throw DidNotStart()
        }
        return LoopbackServer(port: bound, group: group, task: task)
    }

    /// Starts `router` as the whole server.
    public static func start(_ router: Router<BasicRequestContext>) async throws -> LoopbackServer {
        try await start { onRunning in
            Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { await onRunning($0.localAddress?.port ?? 0) })
        }
    }

    /// Stops it: at once, or (`gracefully`) as SIGTERM stops `cardbox serve`, letting the requests
    /// in flight finish.
    public func stop(gracefully: Bool = false) async {
        if gracefully { await group.triggerGracefulShutdown() } else { task.cancel() }
        _ = await task.result
    }

    /// Runs `body` with the server started, then stops it (also when `body` throws).
    public func serving<T>(stopGracefully: Bool = false, _ body: (Int) async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body(port)
        } catch {
            await stop()
            throw error
        }
        await stop(gracefully: stopGracefully)
        return result
    }
}
