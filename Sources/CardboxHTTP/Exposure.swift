import CardboxServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// What keeps a server reachable from the internet safe from requests meant for another host:
/// a page of another site whose name was pointed at this server (DNS rebinding) names its own
/// host, so a request is served only when it names a host the server answers as: its public
/// address (`--public-url`), an IP address, or this machine's name.
struct HostCheck: RouterMiddleware {
    typealias Context = CardboxRequestContext
    /// The public address's host, lowercased; nil: none configured.
    let publicHost: String?

    init(publicURL: URL?) { publicHost = publicURL?.host?.lowercased() }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if let authority = request.head.authority {
            let host = Self.hostName(authority)
            guard Self.isAddressOrLocal(host) || host == publicHost else {
                let hint =
                    publicHost.map { "it answers as \($0) (its --public-url)" }
                    ?? "start it with --public-url naming the address people use"
                throw APIError(.misdirectedRequest, "this server does not answer as '\(host)': \(hint)")
            }
        }
        return try await next(request, context)
    }

    /// The host of a `Host` header: without its port, brackets kept off an IPv6 address, lowercased.
    static func hostName(_ authority: String) -> String {
        let text = authority.lowercased()
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") {
            return String(text[text.index(after: text.startIndex)..<end])
        }
        return String(text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// An IP address (no name to rebind) or a name of this machine.
    static func isAddressOrLocal(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        if host.contains(":") { return true }  // IPv6 (a name holds no colon)
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}

extension CardboxRequestContext {
    /// The address a request came from: the socket's peer, or, where that peer is a trusted reverse
    /// proxy, the address the proxies say they served, read from the right of `X-Forwarded-For`
    /// past every trusted proxy (the entries further left are the client's own word).
    func clientAddress(_ request: Request, trusting proxies: Set<String>) -> String? {
        guard var address = remoteAddress?.ipAddress.map(Self.plainAddress) else { return nil }
        guard proxies.contains(address) else {
            if request.headers[Self.forwardedFor] != nil { ForwardedWarning.once(logger, peer: address) }
            return address
        }
        let hops = request.headers[values: Self.forwardedFor].flatMap { $0.split(separator: ",") }
        for hop in hops.reversed() {
            address = Self.plainAddress(hop.trimmingCharacters(in: .whitespaces))
            if !proxies.contains(address) { break }
        }
        return address
    }

    /// Whether the request's socket peer is one of the trusted reverse proxies (whose forwarded
    /// headers are believed).
    func cameThroughProxy(_ proxies: Set<String>) -> Bool {
        remoteAddress?.ipAddress.map(Self.plainAddress).map(proxies.contains) ?? false
    }

    /// Whether the request came straight from this machine, through no proxy.
    func isDirectlyFromThisMachine(_ request: Request) -> Bool {
        guard let ip = remoteAddress?.ipAddress.map(Self.plainAddress) else { return false }
        let forwarded = [Self.forwardedFor, Self.forwarded, Self.realIP].contains { request.headers[$0] != nil }
        return !forwarded && (ip.hasPrefix("127.") || ip == "::1")
    }

    /// An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`) as the IPv4 address it is.
    static func plainAddress(_ text: String) -> String {
        text.lowercased().hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!
    static let realIP = HTTPField.Name("X-Real-IP")!
}

/// Requests forwarded by a proxy the server was not told to trust (`--trusted-proxy`): every
/// client behind it has the proxy's address, so the sign-in throttle's limit per address counts
/// them all as one. Said once per process, at the first such request.
enum ForwardedWarning {
    private static let warned = Mutex(false)

    static func once(_ logger: Logger, peer: String) {
        let first = warned.withLock { warned in
            defer { warned = true }
            return !warned
        }
        guard first else { return }
        logger.warning(
            "requests from \(peer) carry X-Forwarded-For, but no --trusted-proxy is set: every client behind that proxy counts as one address for the sign-in limits; start with --trusted-proxy \(peer) if it is yours"
        )
    }
}

/// Who may read `/metrics` (it counts sign-ins and failures): with `--metrics-token`, a request
/// bearing it; without, only this machine, asked directly.
struct MetricsAccess {
    let token: String?
    /// Whether the server sits behind a reverse proxy (a public address or a trusted proxy given):
    /// a proxy on this machine makes every request it forwards come from here, with or without a
    /// forwarded header (nginx sends none unless told to), so "this machine" proves nothing.
    let behindProxy: Bool

    func check(_ request: Request, _ context: CardboxRequestContext) throws {
        if let token {
            let bearer = request.headers[.authorization].flatMap {
                $0.hasPrefix("Bearer ") ? String($0.dropFirst("Bearer ".count)) : nil
            }
            guard let bearer, constantTimeEqual(bearer, token) else {
                throw APIError(.unauthorized, "/metrics needs the server's metrics token: Authorization: Bearer TOKEN")
            }
        } else if behindProxy {
            throw APIError(
                .forbidden,
                "behind a reverse proxy, /metrics needs the server's metrics token: start it with --metrics-token")
        } else if !context.isDirectlyFromThisMachine(request) {
            throw APIError(
                .forbidden, "/metrics is served to this machine only; start the server with --metrics-token to read it")
        }
    }
}
