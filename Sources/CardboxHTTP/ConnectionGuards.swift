import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes
import Synchronization

/// What a connection may cost the server before it is closed: how many one client address may hold
/// open, and how slowly a request's body may come (`ServerOptions.connectionLimits`).
public struct ConnectionLimits: Sendable {
    /// Connections one address may hold open at once; past it a new one is closed as it opens.
    /// A trusted proxy's address has no cap: its clients are many (`--trusted-proxy`).
    public var perAddress = 64
    /// How long a request's body may take before its rate counts: a slow start is allowed.
    public var bodyGrace: Duration = .seconds(10)
    /// The slowest a body may come after `bodyGrace`, on average over the time the server was
    /// waiting for it (time the server itself was busy and not reading does not count).
    public var minimumBodyBytesPerSecond = 1_024

    public init() {}
}

/// The connections open from each client address, for `ConnectionCap`. One per server.
final class OpenConnections: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Counts one more connection from `address`, or says no when the address holds `limit`.
    func open(_ address: String) -> Bool {
        counts.withLockedValue { counts in
            guard counts[address, default: 0] < limit else { return false }
            counts[address, default: 0] += 1
            return true
        }
    }

    func close(_ address: String) {
        counts.withLockedValue { counts in
            let left = counts[address, default: 1] - 1
            counts[address] = left > 0 ? left : nil
        }
    }
}

/// Closes a new connection from an address that already holds its share (`OpenConnections`):
/// without it, one client could open enough connections, each sending next to nothing, to use up
/// the server's file descriptors. Added to each connection's pipeline as it opens.
final class ConnectionCap: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let open: OpenConnections
    private let trustedProxies: Set<String>
    private let closed: @Sendable () -> Void

    init(_ open: OpenConnections, trustedProxies: Set<String>, closed: @escaping @Sendable () -> Void) {
        (self.open, self.trustedProxies, self.closed) = (open, trustedProxies, closed)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let ip = context.channel.remoteAddress?.ipAddress else { return }
        let address = CardboxRequestContext.plainAddress(ip)
        guard !trustedProxies.contains(address) else { return }
        guard open.open(address) else {
            closed()
            context.close(promise: nil)
            return
        }
        context.channel.closeFuture.whenComplete { [open] _ in open.close(address) }
    }
}

/// Closes a connection whose request body comes too slowly: after `bodyGrace` of waiting for it,
/// less than `minimumBodyBytesPerSecond` on average. A client trickling a byte every few seconds
/// would otherwise hold its connection (and a file descriptor) forever, since each byte resets the
/// idle timeout. Only time spent waiting for the client counts: while the route has not asked for
/// more of the body (NIO's back-pressure), the clock stops.
final class SlowBodyGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = Never

    private let limits: ConnectionLimits
    private let closed: @Sendable () -> Void
    /// Within a request's body: bytes received and time waited so far.
    private var inBody = false
    private var received = 0
    private var waited: Duration = .zero
    /// When the server last asked for more and nothing has come since.
    private var waitingSince: ContinuousClock.Instant?
    private var check: Scheduled<Void>?

    init(_ limits: ConnectionLimits, closed: @escaping @Sendable () -> Void) {
        (self.limits, self.closed) = (limits, closed)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        stopWaiting()
        switch unwrapInboundIn(data) {
        case .head:
            (inBody, received, waited) = (true, 0, .zero)
        case .body(let bytes):
            received += bytes.readableBytes
        case .end:
            inBody = false
            check?.cancel()
            check = nil
        }
        context.fireChannelRead(data)
    }

    /// The server asks for more. Within a body, the wait for the client starts; the first such wait
    /// of a request sets its check (a request that came whole in one read, as most do, sets none).
    func read(context: ChannelHandlerContext) {
        if inBody, waitingSince == nil {
            waitingSince = .now
            if check == nil { scheduleCheck(context, in: limits.bodyGrace) }
        }
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { check?.cancel() }

    private func stopWaiting() {
        if let since = waitingSince { waited += .now - since }
        waitingSince = nil
    }

    private func scheduleCheck(_ context: ChannelHandlerContext, in delay: Duration) {
        check = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
            guard inBody else { return }
            let waiting = waited + (waitingSince.map { .now - $0 } ?? .zero)
            if waiting >= limits.bodyGrace,
                Double(received) < Double(limits.minimumBodyBytesPerSecond) * (waiting / .seconds(1))
            {
                closed()
                context.close(promise: nil)
            } else {
                scheduleCheck(context, in: .seconds(1))
            }
        }
    }
}

/// Notes when the client has hung up. The server lets a client close its half of the connection
/// and still answer (HTTP allows it), so the connection stays active after a client gives up: a
/// route doing slow work for one client alone (a sign-in) asks this instead.
final class ClientPresence: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let left = Atomic<Bool>(false)

    /// Whether the client closed its side, or the connection is gone.
    var hasLeft: Bool { left.load(ordering: .relaxed) }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { left.store(true, ordering: .relaxed) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        left.store(true, ordering: .relaxed)
        context.fireChannelInactive()
    }
}
