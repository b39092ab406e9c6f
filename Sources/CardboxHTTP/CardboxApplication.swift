import CardboxAccountCopies
import CardboxCore
import CardboxServer
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// The server, put together: routes over a database, on an address.
public enum CardboxApplication {
    /// The application `cardbox serve` runs. `onRunning` is told the port once it listens (the
    /// one the system chose when `port` is 0).
    /// With `tls` (a certificate chain and its key, PEM files), it speaks HTTPS only.
    public static func make(
        database: any ServerDatabase, accounts: AccountService, options: ServerOptions, host: String, port: Int,
        tls: (certificate: String, key: String)? = nil, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in },
        onMetricsRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        guard WebAssets.mustacheScript != nil else {
            // The offline pages would draw nothing: better not to start than to fail on a train.
            throw CardboxError.storage(
                "the web app's offline pages need mustache.js at \(WebAssets.mustachePath): apt install libjs-mustache")
        }
        let (router, sync) = try routes(
            database: database, accounts: accounts, options: options,
            secure: tls != nil || options.publicURL?.scheme?.lowercased() == "https")
        var application = Application(
            router: router, server: try serverBuilder(tls: tls, options: options, metrics: sync.metrics),
            configuration: .init(address: .hostname(host, port: port), serverName: "cardbox"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
        application.addServices(StopNotice(logger: logger), FreeMemoryReturn())
        if let listen = options.metricsListen {
            application.addServices(
                metricsApplication(
                    sync.metrics, host: listen.host, port: listen.port, logger: logger, onRunning: onMetricsRunning))
        }
        if let replicas = sync.replicas { application.addServices(ReplicaMarksOnStop(replicas: replicas)) }
        if let channel = database.newsChannel {
            application.addServices(OtherServersNews(channel: channel, news: sync.news, logger: logger))
        }
        if let settings = options.suggestions, let replicas = sync.replicas {
            application.addServices(
                SuggestionService(
                    settings: settings, database: database, replicas: replicas, news: sync.news, now: options.now,
                    logger: logger))
        }
        return application
    }

    /// Every route of the server over `database`: metrics, the API's description, sync, the web
    /// app's pages and its JSON API. `secure` makes the pages' cookies `Secure`: browsers reach the
    /// server over HTTPS (its own TLS, or a TLS proxy in front of it, an https public address).
    static func routes(database: any ServerDatabase, accounts: AccountService, options: ServerOptions, secure: Bool)
        throws -> (router: Router<CardboxRequestContext>, sync: SyncAPI)
    {
        let router = Router(context: CardboxRequestContext.self)
        let metrics = ServerMetrics()
        router.add(middleware: RequestObserver(metrics: metrics))
        router.add(middleware: ResponsePolicy(secure: secure))
        let routes = RouteMethods()
        router.add(middleware: JSONErrorMiddleware(routes: routes))
        router.add(middleware: HostCheck(publicURL: options.publicURL))
        if options.metricsListen == nil {
            let metricsAccess = MetricsAccess(
                token: options.metricsToken, behindProxy: options.publicURL != nil || !options.trustedProxies.isEmpty)
            router.get("metrics") { request, context in
                try metricsAccess.check(request, context)
                return metricsResponse(metrics)
            }
        }
        router.get("openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml"],
                body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
        }
        let sync = try SyncAPI(database: database, accounts: accounts, options: options, metrics: metrics)
        sync.addRoutes(to: router)
        let actions = AccountActions(
            replicas: sync.replicas, options: options,
            published: { [news = sync.news] account in await news.published(account) })
        WebApp(
            database: database, accounts: accounts, actions: actions, options: options, secure: secure,
            news: sync.news, limiter: sync.limiter
        ).addRoutes(to: router)
        WebAPI(actions: actions, accounts: accounts, options: options, limiter: sync.limiter).addRoutes(to: router)
        routes.load(router.routes)
        return (router, sync)
    }

    static func metricsResponse(_ metrics: ServerMetrics) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
            body: .init(byteBuffer: ByteBuffer(string: metrics.text)))
    }

    /// `/metrics` alone, on an address of its own (`--metrics-listen`), to whoever reaches it: the
    /// operator keeps that address away from the internet (loopback, a private network).
    private static func metricsApplication(
        _ metrics: ServerMetrics, host: String, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let router = Router(context: CardboxRequestContext.self)
        router.add(middleware: ResponsePolicy(secure: false))
        let routes = RouteMethods()
        router.add(middleware: JSONErrorMiddleware(routes: routes))
        router.get("metrics") { _, _ in metricsResponse(metrics) }
        routes.load(router.routes)
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "cardbox-metrics"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    /// HTTP/1.1, with TLS where asked. A connection that sends nothing for `idleTimeout` is closed:
    /// between requests, and also while its request's headers or body stop coming. One whose body
    /// trickles in (each byte resets the idle time) is closed by `SlowBodyGuard`, and an address
    /// holding its share of connections gets no more (`ConnectionCap`).
    private static func serverBuilder(
        tls: (certificate: String, key: String)?, options: ServerOptions, metrics: ServerMetrics
    ) throws -> HTTPServerBuilder {
        let limits = options.connectionLimits
        let open = OpenConnections(limit: limits.perAddress)
        let guards: @Sendable () -> [any RemovableChannelHandler] = { [trusted = options.trustedProxies] in
            [
                ConnectionCap(open, trustedProxies: trusted) { metrics.closedConnection("per_address") },
                SlowBodyGuard(limits) { metrics.closedConnection("slow_body") },
                ClientPresence(),
            ]
        }
        let http1 = HTTPServerBuilder.http1(
            configuration: .init(additionalChannelHandlers: guards(), idleTimeout: TimeAmount(options.idleTimeout)))
        guard let tls else { return http1 }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map {
                NIOSSLCertificateSource.certificate($0)
            }
            let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain, privateKey: .privateKey(key))
            return try .tls(http1, tlsConfiguration: configuration)
        } catch {
            throw CardboxError.invalid(
                field: "--tls-certificate/--tls-key",
                reason: "cannot read them as PEM (\(tls.certificate), \(tls.key)): \(error)")
        }
    }
}

/// Says in the log when the server is asked to stop (SIGTERM, SIGINT), so whoever runs it sees why
/// it went away; `cardbox serve` says when it has stopped.
struct StopNotice: Service {
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        logger.notice("stopping: finishing the requests in flight")
    }
}

/// Writes the marks the server's copies of accounts keep in memory (`AccountReplicas.saveAllMarks`)
/// when the server stops: the next process's copies then neither push nor pull again what they
/// had.
struct ReplicaMarksOnStop: Service {
    let replicas: AccountReplicas

    func run() async throws {
        try? await gracefulShutdown()
        await replicas.saveAllMarks()
    }
}

/// Listens for the news of the other servers sharing the database, for as long as the server runs;
/// when the connection drops, its streams poll until it is back (tried again every few seconds).
struct OtherServersNews: Service {
    let channel: any ServerNewsChannel
    let news: AccountNews
    let logger: Logger
    var retryAfter: Duration = .seconds(3)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await channel.listen { [news] heard in await news.heard(heard) }
                } catch {
                    if Task.isCancelled { break }
                    logger.warning(
                        "not hearing the other servers' news (polling instead): \(String(reflecting: error))")
                }
                try? await Task.sleep(for: retryAfter)
            }
        }
    }
}
