import AsyncHTTPClient
import CardboxCore
import CardboxSync
import CardboxWire
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The sync API as a device calls it: JSON over HTTP(S), the device's token as a bearer token.
/// Every answer that is not a success becomes an error carrying the server's own message.
public struct ServerConnection: Sendable {
    public let server: String
    public let token: String?
    private let transport: any HTTPTransport
    /// The most one request's change set may be: what the server takes (`ChangeSet.maximumBytes`).
    let requestBytes: Int

    /// One client for the process. A server that refuses connections is reported at once, not
    /// retried until the request's deadline: `cardbox sync` says the server is down and keeps the
    /// changes for next time. A device's requests come one at a time, but a process may run many
    /// devices at once (the load benchmark, the tests' histories): one connection each, not a
    /// queue behind the default eight. An idle connection is let go before the server's idle
    /// timeout (`CardboxApplication.idleTimeout`) closes it, so no request goes out on a connection
    /// the server is closing.
    public static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(120))
        configuration.connectionPool.idleTimeout = .seconds(20)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 256
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    public init(
        server: String, token: String?, transport: any HTTPTransport = ServerConnection.client,
        requestBytes: Int = ChangeSet.maximumBytes
    ) throws {
        self.requestBytes = requestBytes
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw CardboxError.invalid(field: "server", reason: "'\(server)' is not an http:// or https:// address")
        }
        self.server = server.hasSuffix("/") ? String(server.dropLast()) : server
        self.token = token
        self.transport = transport
    }

    /// Signs a device in: its token, its account and itself.
    public func signIn(user: String, password: String, device: String) async throws -> SessionReply {
        do {
            return try await send(
                .POST, "/v1/sessions", SignInRequest(user: user, password: password, device: device),
                answer: SessionReply.self)
        } catch SyncClientError.refused(status: 404, _) {
            throw notACardboxServer
        }
    }

    public func signUp(user: String, password: String) async throws {
        do {
            _ = try await send(
                .POST, "/v1/accounts", SignUpRequest(user: user, password: password), answer: AccountReply.self)
        } catch SyncClientError.refused(status: 404, _) {
            throw notACardboxServer
        }
    }

    /// A sign-in answered 404: no Cardbox server at this address, often a page's address given
    /// instead of the server's own (`…/decks`).
    private var notACardboxServer: SyncClientError {
        let root = URL(string: server).flatMap { url -> String? in
            guard !url.path.isEmpty, url.path != "/", let scheme = url.scheme, let host = url.host else { return nil }
            return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
        }
        return .refused(
            status: 404,
            message: "there is no Cardbox server at \(server)"
                + (root.map { ": give the server's own address, e.g. \($0), not a page's" } ?? ""))
    }

    /// Revokes this device's token on the server.
    public func signOut() async throws {
        _ = try await exchange(.DELETE, "/v1/sessions/current")
    }

    /// The account's plan as the server keeps it.
    public func plan() async throws -> Plan {
        try await send(.GET, "/v1/account", answer: AccountReply.self).account.plan
    }

    /// Sends a change set under a batch id; sending the same batch again is answered, not applied again.
    /// One larger than a request may be goes as several batches (see `pieces`). `heldBack`: the
    /// changes are part of what a push refused for the card limit held, the rest still waiting
    /// here; the server then keeps the device's refusal shown.
    public func push(_ changes: ChangeSet, batch: UUID, heldBack: Bool = false) async throws -> PushReceipt {
        let last = try await pushAllButLast(of: changes, batch: batch, heldBack: heldBack)
        return try await push(text: last.text, batch: last.batch, heldBack: heldBack)
    }

    /// Pushes every piece of `changes` but the last (see `pieces`), and gives the last with the
    /// batch id it goes under: `batch` when it is the only one.
    private func pushAllButLast(of changes: ChangeSet, batch: UUID, heldBack: Bool = false) async throws
        -> (text: String, batch: UUID)
    {
        var pieces = pieces(of: changes)
        let last = pieces.removeLast()
        for piece in pieces { _ = try await push(text: piece, batch: UUID(), heldBack: heldBack) }
        return (last, pieces.isEmpty ? batch : UUID())
    }

    private func push(text: String, batch: UUID, heldBack: Bool = false) async throws -> PushReceipt {
        let query = "batch=\(batch.uuidString.lowercased())" + (heldBack ? "&heldBack=true" : "")
        return try decode(
            PushReceipt.self, try await exchange(.POST, "/v1/sync/push?\(query)", json: text), "/v1/sync/push")
    }

    /// A change set as the texts of the requests that carry it: one, unless its text is larger
    /// than a request may be (a batch counts records, and 2,000 cards of long texts can pass it);
    /// then its records are split in halves until each half fits. A single record larger than a
    /// request goes alone, for the server to refuse.
    package func pieces(of changes: ChangeSet) -> [String] {
        let text = changes.jsonText
        let records = changes.rows.count + changes.tombstones.count
        guard text.utf8.count > requestBytes, records > 1 else { return [text] }
        let tombstones = changes.tombstones.count
        let half = records / 2
        var first = ChangeSet(accountId: changes.accountId, replicaId: changes.replicaId)
        var second = first
        first.tombstones = Array(changes.tombstones.prefix(half))
        second.tombstones = Array(changes.tombstones.dropFirst(half))
        first.rows = Array(changes.rows.prefix(max(0, half - tombstones)))
        second.rows = Array(changes.rows.dropFirst(max(0, half - tombstones)))
        return pieces(of: first) + pieces(of: second)
    }

    public func pull(after cursor: Int64, limit: Int) async throws -> PullPage {
        try reply(try await exchange(.GET, "/v1/sync/pull?after=\(cursor)&limit=\(limit)"), "/v1/sync/pull").page
    }

    /// Sends a change set under a batch id and gets the first page after `cursor`, in one request.
    public func exchange(_ changes: ChangeSet, batch: UUID, after cursor: Int64, limit: Int) async throws -> PullPage {
        // A change set too large for one request: all but its last piece are pushed first.
        let last = try await pushAllButLast(of: changes, batch: batch)
        let path = "/v1/sync/exchange?batch=\(last.batch.uuidString.lowercased())&after=\(cursor)&limit=\(limit)"
        let reply = try reply(try await exchange(.POST, path, json: last.text), "/v1/sync/exchange")
        guard reply.pushed != nil else { throw Self.malformed("/v1/sync/exchange") }
        return reply.page
    }

    /// A pull page's answer (read by hand: see `PullReply`). A change set this Cardbox cannot read
    /// (a newer server's) is said as its reader words it.
    private func reply(_ bytes: ByteBuffer, _ path: String) throws -> PullReply {
        do {
            return try PullReply(text: String(buffer: bytes))
        } catch is PullReply.Malformed {
            throw Self.malformed(path)
        }
    }

    /// A snapshot downloaded: the cursor it holds everything up to; whether, as the server says, it
    /// holds everything pushed before it was asked for (then it is the sync's pull); and the
    /// account's plan, when the server said.
    public struct Snapshot: Sendable {
        public var cursor: Int64
        public var isCurrent: Bool
        public var plan: Plan?
    }

    /// Downloads the account's snapshot (one store file) to `path`; nil when the server keeps no
    /// snapshots (the device then pulls every record). `progress` is told the bytes received so far
    /// and, when the server said, in all.
    public func snapshot(to path: String, progress: (Int, Int?) -> Void = { _, _ in }) async throws -> Snapshot? {
        var request = HTTPClientRequest(url: server + "/v1/sync/snapshot")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response: HTTPClientResponse
        do {
            response = try await transport.send(request, timeout: .seconds(600))
        } catch {
            throw SyncClientError.unreachable(server: server, reason: ConnectionFailure.reason(error))
        }
        if response.status == .notFound { return nil }
        guard response.status == .ok, let cursorText = response.headers.first(name: "Cardbox-Cursor"),
            let cursor = Int64(cursorText), let expected = response.headers.first(name: "Cardbox-SHA256")
        else {
            let bytes = try? await response.body.collect(upTo: 1 << 16)
            if let refusal = bytes.flatMap({ Self.refusal(Int(response.status.code), $0) }) { throw refusal }
            throw Self.malformed("/v1/sync/snapshot")
        }
        let accountCursor = response.headers.first(name: "Cardbox-Account-Cursor").flatMap { Int64($0) }
        let plan = response.headers.first(name: "Cardbox-Plan").flatMap(Plan.init(rawValue:))
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let file = FileHandle(forWritingAtPath: path)
        else { throw CardboxError.storage("cannot write the snapshot to \(path)") }
        defer { try? file.close() }
        do {
            let total = response.headers.first(name: "Content-Length").flatMap { Int($0) }
            var received = 0
            var hasher = SHA256()
            let writeBehind = WriteBehind(file.fileDescriptor)
            // Whatever happens, its descriptor is closed before this returns (see `WriteBehind`).
            defer { try? writeBehind.finish() }
            for try await chunk in response.body {
                try chunk.withUnsafeReadableBytes { bytes in
                    hasher.update(bufferPointer: bytes)
                    try Self.write(bytes, to: file)
                }
                received += chunk.readableBytes
                writeBehind.wrote(upTo: received)
                progress(received, total)
            }
            try writeBehind.finish()
            // What arrived must be what the server made (a cut or damaged transfer is refused).
            guard hexDigits(hasher.finalize()) == expected.lowercased() else {
                throw CardboxError.invalid(
                    field: "snapshot", reason: "arrived damaged: its SHA-256 is not the one the server sent")
            }
        } catch let error as CardboxError {
            throw error
        } catch let error as CocoaError {
            throw CardboxError.storage("cannot write the snapshot to \(path): \(error.localizedDescription)")
        } catch {
            throw SyncClientError.unreachable(server: server, reason: ConnectionFailure.reason(error))
        }
        return Snapshot(cursor: cursor, isCurrent: accountCursor.map { $0 <= cursor } ?? false, plan: plan)
    }

    /// Writes all of `bytes` to `file` (straight from the network buffer: no copy into a `Data`).
    private static func write(_ bytes: UnsafeRawBufferPointer, to file: FileHandle) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(file.fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw CocoaError(.fileWriteUnknown) }
            offset += written
        }
    }

    /// Which of `hashes` the server has no bytes for.
    public func missingImages(_ hashes: [String]) async throws -> [String] {
        var missing: [String] = []
        for start in stride(from: 0, to: hashes.count, by: MissingImagesRequest.most) {
            let part = MissingImagesRequest(
                sha256: Array(hashes[start..<min(start + MissingImagesRequest.most, hashes.count)]))
            missing += try await send(.POST, "/v1/images/missing", part, answer: MissingImagesReply.self).missing
        }
        return missing
    }

    public func uploadImage(_ data: Data, sha256: String) async throws {
        _ = try await exchange(
            .PUT, "/v1/images/\(sha256)", body: ByteBuffer(bytes: data), type: "application/octet-stream")
    }

    /// The image's bytes, or nil when the server has none (the device that holds them has not synced yet).
    public func image(_ sha256: String) async throws -> Data? {
        do {
            return Data(try await exchange(.GET, "/v1/images/\(sha256)").readableBytesView)
        } catch SyncClientError.refused(status: 404, _) {
            return nil
        }
    }

    /// Waits for the server to say the account has moved past `cursor` (server-sent events), and
    /// returns the new cursor; nil when the stream ends first (the server stopped, a proxy closed it).
    /// `opened` runs once the server has opened the stream (its first bytes arrived): from then on,
    /// a change the server takes is news on it.
    public func news(after cursor: Int64, opened: @Sendable () -> Void = {}) async throws -> Int64? {
        var request = HTTPClientRequest(url: server + "/v1/sync/events?after=\(cursor)")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response: HTTPClientResponse
        do {
            response = try await transport.send(request, timeout: .hours(24 * 365))
        } catch {
            throw SyncClientError.unreachable(server: server, reason: ConnectionFailure.reason(error))
        }
        guard response.status == .ok else {
            throw SyncClientError.refused(status: Int(response.status.code), message: "\(response.status)")
        }
        var pending = ""
        var isOpen = false
        for try await chunk in response.body {
            if !isOpen {
                isOpen = true
                opened()
            }
            pending += String(buffer: chunk)
            while let end = pending.range(of: "\n\n") {
                let event = pending[..<end.lowerBound]
                pending = String(pending[end.upperBound...])
                for line in event.split(separator: "\n") where line.hasPrefix("data: ") {
                    let event = try? WireCoding.decode(NewsEvent.self, from: Data(line.dropFirst(6).utf8))
                    if let next = event?.cursor, next > cursor { return next }
                }
            }
        }
        return nil
    }

    /// One request with `body` as JSON (none: no body), its answer read as `Answer`.
    private func send<Answer: Decodable>(
        _ method: HTTPMethod, _ path: String, _ body: (some Encodable)? = String?.none, answer: Answer.Type
    ) async throws -> Answer {
        let text = try body.map { try WireCoding.text($0) }
        return try decode(answer, try await exchange(method, path, json: text), path)
    }

    private func decode<Answer: Decodable>(_ type: Answer.Type, _ bytes: ByteBuffer, _ path: String) throws -> Answer {
        guard let answer = try? WireCoding.decode(type, from: Data(bytes.readableBytesView)) else {
            throw Self.malformed(path)
        }
        return answer
    }

    /// One request whose body, if any, is JSON text.
    private func exchange(_ method: HTTPMethod, _ path: String, json: String?) async throws -> ByteBuffer {
        try await exchange(method, path, body: json.map { ByteBuffer(string: $0) }, type: "application/json")
    }

    /// A refusal as the server worded it (`{"error": "…"}`); nil when the body is no such answer.
    private static func refusal(_ status: Int, _ bytes: ByteBuffer) -> SyncClientError? {
        guard let answer = try? WireCoding.decode(ErrorReply.self, from: Data(bytes.readableBytesView)) else {
            return nil
        }
        return .refused(status: status, message: answer.error)
    }

    /// One request; the body of a 2xx answer, or the server's error as a `SyncClientError`.
    private func exchange(_ method: HTTPMethod, _ path: String, body: ByteBuffer? = nil, type: String? = nil)
        async throws -> ByteBuffer
    {
        var request = HTTPClientRequest(url: server + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: type ?? "application/octet-stream")
            request.body = .bytes(body)
        }
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            response = try await transport.send(request, timeout: .seconds(120))
            bytes = try await response.body.collect(upTo: ChangeSet.maximumBytes * 2)
        } catch {
            throw SyncClientError.unreachable(server: server, reason: ConnectionFailure.reason(error))
        }
        guard (200..<300).contains(response.status.code) else {
            throw Self.refusal(Int(response.status.code), bytes)
                ?? SyncClientError.refused(status: Int(response.status.code), message: "\(response.status)")
        }
        return bytes
    }

    private static func malformed(_ path: String) -> SyncClientError {
        .refused(status: 502, message: "the server's answer to \(path) is not what Cardbox expects")
    }
}

/// Why talking to the server failed.
public enum SyncClientError: Error, LocalizedError, Equatable {
    /// No answer (no network, server down, connection cut): nothing is lost, sync again later.
    case unreachable(server: String, reason: String)
    /// The server answered with an error; `message` is its own.
    case refused(status: Int, message: String)

    /// The server understood the push and will not take it as it is (403: the plan's card limit).
    var isRefusalOfContent: Bool {
        if case .refused(403, _) = self { return true }
        return false
    }

    public var errorDescription: String? {
        switch self {
        case .unreachable(let server, let reason): return "cannot reach \(server): \(reason)"
        case .refused(let status, let message): return "the server refused (\(status)): \(message)"
        }
    }
}

/// Sends a file's written pages on to the disk behind the writes, a megabyte at a time, on a queue
/// of its own, so that the sync to the disk a file needs before it is used (`fsync`) finds little
/// left to write: a first sync of 5,000 cards (5 MB) waited about 2 ms for it, now about 0.3.
///
/// The queue works on a duplicate of the file's descriptor. `finish` waits for it to close: closing
/// any descriptor of a file drops every POSIX lock this process holds on it, so none may close
/// once SQLite has the file open (it takes the store's place right after). A flush that failed is
/// reported there too: the error is the file's, and a later `fsync` on another descriptor might
/// not see it.
final class WriteBehind: @unchecked Sendable {
    private static let step = 1 << 20
    private let queue = DispatchQueue(label: "cardbox.write-behind")
    private let file: Int32
    private var flushedAt = 0
    /// The `errno` of the first flush that failed, and whether the duplicate is closed: both
    /// written and read on `queue` only.
    private var failure: Int32?
    private var closed = false

    init(_ descriptor: Int32) { file = dup(descriptor) }

    /// Notes that the file holds `total` bytes; every megabyte, starts sending them to the disk.
    func wrote(upTo total: Int) {
        guard file >= 0, total - flushedAt >= Self.step else { return }
        flushedAt = total
        queue.async {
            if fdatasync(self.file) != 0, self.failure == nil { self.failure = errno }
        }
    }

    /// No more writes: waits for the flushes started, closes the duplicate (once), and throws when
    /// a flush failed. Called before anything else opens the file.
    func finish() throws {
        guard file >= 0 else { return }
        let failure = queue.sync {
            if !closed {
                close(file)
                closed = true
            }
            return self.failure
        }
        if let failure {
            throw CardboxError.storage("cannot write the snapshot to the disk: \(String(cString: strerror(failure)))")
        }
    }
}

/// Why a request got no answer, in words a person can act on (the network library's own
/// descriptions name error sets, errno numbers and the TLS library's source files).
enum ConnectionFailure {
    static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return reason(errno: io.errnoCode) }
        if let connection = error as? NIOConnectionError,
            let io = connection.connectionErrors.lazy.compactMap({ $0.error as? IOError }).first
        {
            return reason(errno: io.errnoCode)
        }
        if error is NIOSSLError || error is BoringSSLError {
            return "the secure connection (TLS) failed: does the server speak HTTPS? (http:// is plain HTTP)"
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout: return "no answer in time (is the address right, and the server running?)"
            case .remoteConnectionClosed: return "the server closed the connection; try again"
            case .readTimeout, .deadlineExceeded: return "the server did not answer in time; try again"
            default: break
            }
        }
        if error is CancellationError { return "stopped before the server answered" }
        return "\(error)"
    }

    static func reason(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: return "connection refused (is the server running, on this port?)"
        case ECONNRESET: return "the connection was reset; try again"
        case ETIMEDOUT: return "no answer in time (is the address right, and the server running?)"
        case EHOSTUNREACH, ENETUNREACH: return "no route to the server (is the network up?)"
        default: return String(cString: strerror(code)).lowercased()
        }
    }
}
