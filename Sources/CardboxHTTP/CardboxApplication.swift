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
        let metrics = ServerMetrics()
        router.add(middleware: RequestObserver(metrics: metrics))
        router.add(middleware: JSONErrorMiddleware())
        router.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.text)))
        }
        router.get("openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml"],
                body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
        }
        SyncAPI(database: database, accounts: accounts, options: options, metrics: metrics).addRoutes(to: router)
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "cardbox"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
