import CardboxAccountCopies
import CardboxCore
import CardboxServer
import CardboxSync
import CardboxWire
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A request's context: who is calling, once the bearer token has been checked.
public struct CardboxRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var caller: Caller?
    /// A token's check still under way (routes behind `EarlyBearerAuthentication`).
    var callerCheck: CallerCheck?
    /// The web app's session token (its cookie), once checked.
    public var sessionToken: String?
    /// A page's posted form, read and checked by `PageForms` before its handler runs.
    var formFields: [String: String] = [:]
    /// The socket's peer: the client, or the reverse proxy in front of the server
    /// (`clientAddress(_:trusting:)` reads past a trusted one).
    public let remoteAddress: SocketAddress?
    /// The request's connection: asked whether its client still waits (`clientIsThere`).
    private let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// Whether the client still waits for the answer, asked before slow work done for it alone
    /// (a sign-in's password check, which may have waited in a queue): the connection is open and
    /// the client has not closed its side (`ClientPresence`).
    func clientIsThere() async -> @Sendable () -> Bool {
        guard let presence = try? await channel.pipeline.handler(type: ClientPresence.self).get() else {
            // Its handlers are gone: the connection closed already. Or the request came over none
            // (HummingbirdTesting's in-process client: no listener is its channel's parent), and
            // no client can leave it.
            let overNoConnection = channel.parent == nil
            return { overNoConnection }
        }
        return { [channel] in channel.isActive && !presence.hasLeft }
    }

    /// The largest body a request may send: one change set (`ChangeSet.maximumBytes`).
    public var maxUploadSize: Int { ChangeSet.maximumBytes }
}

/// What the server is configured with.
public struct ServerOptions: Sendable {
    /// Whether anyone may create an account (`POST /v1/accounts`); otherwise only `cardbox admin`.
    public var openSignup = false
    /// The most records one pull returns.
    public var maximumPageSize = 5_000
    /// Requests each account may make per second on average; bursts may reach 20 times that.
    public var requestsPerSecond: Double = 50
    /// The server's clock, against which a pushed clock too far ahead is refused. Tests whose
    /// devices live in a simulated time give the server the same time.
    public var now: @Sendable () -> Date = { Date() }
    /// How often a device waiting for news has its account's cursor checked: pushes through
    /// another server sharing the database are seen this late (pushes here wake it at once).
    public var newsPollInterval: Duration = .seconds(2)
    /// Event streams (`/v1/sync/events`, the pages' `/events`) one device may hold open, and one
    /// account: past either, the oldest closes.
    public var streamsPerDevice = 6
    public var streamsPerAccount = 24
    /// Where the server keeps its own store of each account, from which new devices get a snapshot
    /// (`GET /v1/sync/snapshot`); nil: no snapshots, devices pull every record.
    public var replicaFolder: URL?
    /// Seed 000's background processing on the server's copies of accounts: suggestion queues kept
    /// full and their images made; nil: none (devices may still run `cardbox suggestion refill`).
    public var suggestions: SuggestionServiceSettings?
    /// The address people and devices reach the server at (`--public-url`): requests naming another
    /// host are refused (DNS rebinding), and an `https` one makes cookies `Secure` behind a TLS proxy.
    public var publicURL: URL?
    /// Reverse proxies whose `X-Forwarded-For` is believed (`--trusted-proxy`): the client of a
    /// request they pass is the address they say, for the sign-in throttle.
    public var trustedProxies: Set<String> = []
    /// The bearer token `/metrics` asks for (`--metrics-token`); nil: served only to this machine,
    /// asked directly (not through a proxy).
    public var metricsToken: String?
    /// Where `/metrics` is served instead, on a listener of its own and to whoever reaches it
    /// (`--metrics-listen 127.0.0.1:9100`); the main address then has no `/metrics`.
    public var metricsListen: (host: String, port: Int)?
    /// How long a connection may send nothing before it is closed (`CardboxApplication`). Devices'
    /// clients let their idle connections go sooner.
    public var idleTimeout: Duration = .seconds(30)
    /// Connections per client address and the slowest a request body may come
    /// (`--connections-per-address`).
    public var connectionLimits = ConnectionLimits()

    public init(openSignup: Bool = false) { self.openSignup = openSignup }
}

/// The sync API's routes: accounts and sessions, push and pull. Every route but sign-up and sign-in
/// needs a device's bearer token, and works on that token's account only: no id a request sends
/// can reach another account.
public struct SyncAPI: Sendable {
    let database: any ServerDatabase
    let accounts: AccountService
    let options: ServerOptions
    let metrics: ServerMetrics
    let news: AccountNews
    let replicas: AccountReplicas?
    let syncNotes: SyncNotes
    let cardLimits = CardLimitMemory()
    /// Each account's request rate, one bucket for the sync API and `/api/v1` alike.
    let limiter: RateLimiter

    /// Throws when the cache folder for the copies of accounts cannot be made: the server would
    /// otherwise run without the web app's pages and snapshots, saying nothing.
    public init(
        database: any ServerDatabase, accounts: AccountService, options: ServerOptions, metrics: ServerMetrics
    ) throws {
        self.database = database
        self.accounts = accounts
        self.options = options
        self.metrics = metrics
        news = AccountNews(
            streamsPerDevice: options.streamsPerDevice, streamsPerAccount: options.streamsPerAccount,
            channel: database.newsChannel, metrics: metrics)
        metrics.eventStreams(0)
        syncNotes = SyncNotes(database: database)
        limiter = RateLimiter(perSecond: options.requestsPerSecond)
        replicas = try options.replicaFolder.map { try AccountReplicas(folder: $0, state: database, now: options.now) }
    }

    public func addRoutes(to router: Router<CardboxRequestContext>) {
        router.get("health") { _, _ in EncodedJSON(HealthReply(status: "ok")) }
        router.post("v1/accounts") { request, context in try await signUp(request, context) }
        router.post("v1/sessions") { request, context in try await signIn(request, context) }
        let authenticated = router.group("v1").add(middleware: BearerAuthentication(accounts: accounts))
            .add(middleware: AccountRateLimit(limiter: limiter))
        // A device's sync: its push reads the account while the token is checked.
        let syncing = router.group("v1").add(
            middleware: EarlyBearerAuthentication(accounts: accounts, limiter: limiter, recent: RecentCallers()))
        authenticated.get("account") { _, context in
            let caller = try context.requireCaller()
            return EncodedJSON(AccountReply(account: caller.account.wire, device: caller.device.wire))
        }
        authenticated.delete("sessions/current") { _, context in
            let caller = try context.requireCaller()
            _ = try await database.revokeDevice(caller.device.id, account: caller.account.id, now: options.now())
            await news.signedOut(caller.account.id)
            return Response(status: .noContent)
        }
        syncing.post("sync/push") { request, context in try await push(request, context) }
        authenticated.get("sync/pull") { request, context in try await pull(request, context) }
        syncing.post("sync/exchange") { request, context in try await exchange(request, context) }
        authenticated.get("sync/snapshot") { _, context in try await snapshot(context) }
        authenticated.put("images/:sha256") { request, context in try await putImage(request, context) }
        authenticated.get("images/:sha256") { request, context in try await getImage(request, context) }
        authenticated.post("images/missing") { request, context in try await missingImages(request, context) }
        authenticated.get("sync/events") { request, context in
            let caller = try context.requireCaller()
            let cursor = try request.integerQuery("after", default: 0)
            let token =
                context.sessionToken ?? request.headers[.authorization].map { String($0.dropFirst("Bearer ".count)) }
                ?? ""
            return NewsStream(database: database, news: news, pollInterval: options.newsPollInterval).response(
                account: caller.account.id, device: caller.device.id, after: cursor,
                stillSignedIn: { [accounts] in try await accounts.caller(token: token) != nil })
        }
    }

    private func signUp(_ request: Request, _ context: CardboxRequestContext) async throws -> EncodedJSON<AccountReply>
    {
        guard options.openSignup else {
            throw APIError(.forbidden, "sign-up is closed on this server; ask its administrator for an account")
        }
        let body = try await request.decodeBody(SignUpRequest.self, context)
        let account = try await accounts.addAccount(name: body.user, password: body.password)
        return EncodedJSON(AccountReply(account: account.wire), status: .created)
    }

    private func signIn(_ request: Request, _ context: CardboxRequestContext) async throws -> EncodedJSON<SessionReply>
    {
        let body = try await request.decodeBody(SignInRequest.self, context)
        let signIn = try await accounts.signIn(
            name: body.user, password: body.password, deviceName: body.device,
            client: context.clientAddress(request, trusting: options.trustedProxies),
            clientIsThere: await context.clientIsThere())
        return EncodedJSON(
            SessionReply(token: signIn.token, account: signIn.account.wire, device: signIn.device.wire),
            status: .created)
    }

    private func push(_ request: Request, _ context: CardboxRequestContext) async throws -> EncodedJSON<PushReceipt> {
        let heldBack: Bool
        switch request.uri.queryParameters["heldBack"] {
        case nil, "false": heldBack = false
        case "true": heldBack = true
        case let other?: throw CardboxError.invalid(field: "heldBack", reason: "must be true or false, got '\(other)'")
        }
        let (receipt, caller) = try await pushBody(request, context)
        // A push of what a refused one held but its cards leaves the refusal in place: the cards wait.
        recordSync(caller, pulledTo: nil, refusal: heldBack ? nil : .some(nil), context)
        return EncodedJSON(receipt)
    }

    /// Merges the request's change set under the batch its query names (read beside the token's
    /// check: see `EarlyBearerAuthentication`), and returns the caller once checked.
    private func pushBody(_ request: Request, _ context: CardboxRequestContext) async throws
        -> (PushReceipt, Caller)
    {
        let account = try context.claimedAccount()
        guard let batchText = request.uri.queryParameters["batch"], let batch = UUID(uuidString: String(batchText))
        else { throw CardboxError.invalid(field: "batch", reason: "the query must name the batch: ?batch=UUID") }
        let text = try await bodyText(request, context)
        var changes = try ChangeSet.parse(text)
        if changes.writesAccount {
            // The plan and its limit are the server's: a device's write to them is ignored. (Only a
            // push that writes the account's record waits for the token's check here.)
            let caller = try await context.verifiedCaller()
            guard caller.account.id == account else { throw BearerAuthentication.unauthorized }
            changes = changes.holdingAccount(to: caller.account.plan)
        }
        let cardLimits = self.cardLimits
        let receipt: PushReceipt
        do {
            receipt = try await database.push(
                changes, batch: batch, account: account, now: options.now(),
                expectingCardLimit: cardLimits.expectsLimit(account),
                verified: {
                    let caller = try await context.verifiedCaller()
                    // The token named the account the push was read for; its check found it there.
                    guard caller.account.id == account else { throw BearerAuthentication.unauthorized }
                    let cardLimit = caller.account.plan.serverCardLimit
                    cardLimits.note(account, limited: cardLimit != nil)
                    return cardLimit
                })
        } catch let refusal as CardboxError {
            // The account page shows why a device's changes wait (seed 001's limit message).
            let caller = try await context.verifiedCaller()
            recordSync(
                caller, pulledTo: nil, refusal: .some(JSONErrorMiddleware.answer(for: refusal).message), context)
            throw refusal
        }
        let caller = try await context.verifiedCaller()
        if !receipt.wasRetry {
            await news.published(caller.account.id)
            replicas?.refresh(caller.account.id)
        }
        metrics.pushed(records: changes.rows.count + changes.tombstones.count, retry: receipt.wasRetry)
        return (receipt, caller)
    }

    private func pull(_ request: Request, _ context: CardboxRequestContext) async throws -> JSONResponse {
        let (cursor, limit) = try pageQuery(request)
        let caller = try context.requireCaller()
        let page = try await page(caller, after: cursor, limit: limit)
        recordSync(caller, pulledTo: page.hasMore ? nil : page.cursor, refusal: nil, context)
        return JSONResponse(text: PullReply(page: page).text)
    }

    /// `POST /v1/sync/exchange?batch=UUID&after=N&limit=M`: a push and the first page of a pull in one
    /// request, the way a device syncs (its last batch, then what came after its cursor). A push
    /// refused for what it holds (the plan's card limit) refuses the request: the device then pulls
    /// on its own. The query is checked before anything is merged.
    private func exchange(_ request: Request, _ context: CardboxRequestContext) async throws -> JSONResponse {
        let (cursor, limit) = try pageQuery(request)
        let (receipt, caller) = try await pushBody(request, context)
        let page = try await page(caller, after: cursor, limit: limit, pushed: receipt)
        recordSync(caller, pulledTo: page.hasMore ? nil : page.cursor, refusal: .some(nil), context)
        return JSONResponse(text: PullReply(page: page, pushed: receipt).text)
    }

    /// A pull's `after` (default 0) and `limit` (default and most: the largest page).
    private func pageQuery(_ request: Request) throws -> (cursor: Int64, limit: Int) {
        let cursor = try request.integerQuery("after", default: 0)
        guard cursor >= 0 else { throw CardboxError.invalid(field: "after", reason: "must be 0 or more") }
        let limit = try request.integerQuery("limit", default: Int64(options.maximumPageSize))
        guard (1...Int64(options.maximumPageSize)).contains(limit) else {
            throw CardboxError.invalid(field: "limit", reason: "must be 1 to \(options.maximumPageSize)")
        }
        return (cursor, Int(limit))
    }

    /// Notes the caller's sync for the account page (written in the background: `SyncNotes`).
    private func recordSync(
        _ caller: Caller, pulledTo cursor: Int64?, refusal: String??, _ context: CardboxRequestContext
    ) {
        let (notes, now) = (syncNotes, options.now())
        Task {
            await notes.note(
                device: caller.device.id, account: caller.account.id, pulledTo: cursor, refusal: refusal, at: now)
        }
    }

    /// A page of the pull after `cursor`, with the account's plan (a device follows its account's
    /// plan without asking apart). After a push of the caller's own whose receipt shows nobody else
    /// pushed since `cursor`, the page is empty and ends at the push: what came after `cursor` is
    /// what the caller sent, merged into a state it held already.
    private func page(
        _ caller: Caller, after cursor: Int64, limit: Int, pushed receipt: PushReceipt? = nil
    ) async throws -> PullPage {
        var page: PullPage
        if let receipt, receipt.isOwnEcho(after: cursor) {
            page = PullPage(
                changes: ChangeSet(accountId: caller.account.id, replicaId: serverReplicaId), cursor: receipt.cursor,
                hasMore: false)
        } else {
            page = try await database.pull(account: caller.account.id, after: cursor, limit: limit)
        }
        metrics.pulled(records: page.changes.rows.count + page.changes.tombstones.count)
        page.plan = caller.account.plan
        return page
    }
}

extension SyncAPI {
    /// `GET /v1/sync/snapshot`: the caller's account as one store file (SQLite), for a device that
    /// holds nothing yet; the `Cardbox-Cursor` header says which cursor to pull after, and
    /// `Cardbox-SHA256` what the file hashes to. `Cardbox-Account-Cursor` is the account's cursor
    /// when the request came (the file holds at least that much, so a device may take the file as its
    /// sync's pull) and `Cardbox-Plan` its plan, as a page of a pull says. 404 when this server keeps
    /// no copies of accounts.
    func snapshot(_ context: CardboxRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        guard let replicas else {
            throw CardboxError.notFound(kind: "snapshot", reference: "this server (it keeps no copies of accounts)")
        }
        let snapshot = try await replicas.snapshot(caller.account.id, atLeast: caller.cursor)
        let (file, size) = (snapshot.file, snapshot.size)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/vnd.sqlite3", SyncAPI.cursorHeader: String(snapshot.cursor),
                SyncAPI.snapshotHashHeader: snapshot.sha256, SyncAPI.accountCursorHeader: String(caller.cursor),
                SyncAPI.planHeader: caller.account.plan.rawValue,
            ],
            body: ResponseBody(contentLength: size) { writer in
                defer { try? file.close() }
                while let chunk = try Self.read(upTo: 1 << 20, from: file) {
                    try await writer.write(chunk)
                }
                try await writer.finish(nil)
            })
    }

    /// The next bytes of `file` (nil at its end), read straight into the buffer that is sent.
    private static func read(upTo count: Int, from file: FileHandle) throws -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var failure: Int32?
        _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
            while true {
                let read = Glibc.read(file.fileDescriptor, bytes.baseAddress, count)
                if read >= 0 { return read }
                if errno != EINTR {
                    failure = errno
                    return 0
                }
            }
        }
        if let failure { throw CardboxError.storage("cannot read the snapshot: \(String(cString: strerror(failure)))") }
        return buffer.readableBytes > 0 ? buffer : nil
    }

    static let cursorHeader = HTTPField.Name("Cardbox-Cursor")!
    static let snapshotHashHeader = HTTPField.Name("Cardbox-SHA256")!
    static let accountCursorHeader = HTTPField.Name("Cardbox-Account-Cursor")!
    static let planHeader = HTTPField.Name("Cardbox-Plan")!

    /// `PUT /v1/images/SHA256`: the bytes of an image the account's records name (seed 002's rules).
    func putImage(_ request: Request, _ context: CardboxRequestContext) async throws -> EncodedJSON<StoredImageReply> {
        let caller = try context.requireCaller()
        let hash = try CheckedImage.checkHash(context.parameters.get("sha256") ?? "")
        let buffer = try await request.collectBody(
            upTo: Limits.imageBytes, tooLarge: "image: images may be at most 5 MB (\(Limits.imageBytes) bytes)")
        let bytes = Data(buffer.readableBytesView)
        let image = try await WebApp.offThePool { try CheckedImage(bytes, sha256: hash) }
        try await database.putImage(image, account: caller.account.id)
        return EncodedJSON(
            StoredImageReply(sha256: image.sha256, mimeType: image.mimeType, byteCount: image.data.count),
            status: .created)
    }

    /// `GET /v1/images/SHA256`: the bytes, with their type.
    func getImage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let hash = try CheckedImage.checkHash(context.parameters.get("sha256") ?? "")
        guard let image = try await database.image(hash, account: caller.account.id) else {
            throw CardboxError.notFound(kind: "image", reference: hash)
        }
        return Response(
            status: .ok,
            headers: [.contentType: image.mimeType, .cacheControl: "private, max-age=31536000, immutable"],
            body: .init(byteBuffer: ByteBuffer(bytes: image.data)))
    }

    /// `POST /v1/images/missing` `{"sha256": [...]}`: which of them the server has no bytes for.
    func missingImages(_ request: Request, _ context: CardboxRequestContext) async throws
        -> EncodedJSON<MissingImagesReply>
    {
        let caller = try context.requireCaller()
        let body = try await request.decodeBody(MissingImagesRequest.self, context, limit: 1 << 20)
        guard body.sha256.count <= MissingImagesRequest.most else {
            throw CardboxError.invalid(
                field: "sha256", reason: "must be a list of at most \(MissingImagesRequest.most) hashes")
        }
        let hashes = try body.sha256.map(CheckedImage.checkHash)
        let missing = try await database.missingImages(hashes, account: caller.account.id)
        return EncodedJSON(MissingImagesReply(missing: missing))
    }
}

func bodyText(_ request: Request, _ context: CardboxRequestContext) async throws -> String {
    let buffer = try await request.collectBody(upTo: context.maxUploadSize)
    guard let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes, encoding: .utf8) else {
        throw CardboxError.invalid(field: "body", reason: "is not UTF-8 text")
    }
    return text
}

extension Request {
    /// The body read as `T` (at most `limit` bytes: 16 KiB unless said); a body that is not `T` is
    /// refused naming the member (`user: is required`), and a `ClosedBody`'s unknown member too.
    func decodeBody<T: Decodable>(_ type: T.Type, _ context: CardboxRequestContext, limit: Int = 16_384)
        async throws -> T
    {
        let buffer = try await collectBody(upTo: limit)
        return try WireCoding.decode(type, from: Data(buffer.readableBytesView))
    }

    /// The whole body, at most `limit` bytes; a larger one is refused with a 413 saying `tooLarge`:
    /// at once when its declared length says so, before a byte of it is read.
    func collectBody(upTo limit: Int, tooLarge: @autoclosure () -> String? = nil) async throws -> ByteBuffer {
        if let declared = headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            throw APIError(.contentTooLarge, tooLarge() ?? "body: at most \(limit) bytes")
        }
        do {
            return try await body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, tooLarge() ?? "body: at most \(limit) bytes")
        }
    }

    /// A query parameter's text; nil when it is missing or empty.
    func textQuery(_ name: String) -> String? {
        uri.queryParameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
    }

    func integerQuery(_ name: String, default value: Int64) throws -> Int64 {
        guard let text = uri.queryParameters[Substring(name)] else { return value }
        guard let number = Int64(String(text)) else {
            throw CardboxError.invalid(field: name, reason: "must be a whole number, got '\(text)'")
        }
        return number
    }
}

extension ServerAccount {
    var wire: WireAccount { WireAccount(id: id, name: name, plan: plan, createdAt: createdAt) }
}

extension ServerDevice {
    var wire: WireDevice {
        WireDevice(id: id, name: name, createdAt: createdAt, lastSeenAt: lastSeenAt, revokedAt: revokedAt)
    }
}
