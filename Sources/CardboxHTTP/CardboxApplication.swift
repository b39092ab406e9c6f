import CardboxServer
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The server, put together: routes over a database, on an address.
public enum CardboxApplication {
    /// The application `cardbox serve` runs. `onRunning` is told the port once it listens (the
    /// one the system chose when `port` is 0).
    public static func make(
        database: any ServerDatabase, accounts: AccountService, options: ServerOptions, host: String, port: Int,
        logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: CardboxRequestContext.self)
        router.add(middleware: RequestLogger())
        router.add(middleware: JSONErrorMiddleware())
        SyncAPI(database: database, accounts: accounts, options: options).addRoutes(to: router)
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "cardbox"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}

/// One log line per request: method, path, status and time taken (never bodies or tokens).
struct RequestLogger: RouterMiddleware {
    typealias Context = CardboxRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
                "ms": "\(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)",
            ])
        return response
    }
}
