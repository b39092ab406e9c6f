import AsyncHTTPClient
import CardboxCore
import CardboxServer
import CardboxStore
import CardboxSyncClient
import CardboxTestSupport
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Synchronization
import Testing

@testable import CardboxHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// A client that writes bytes on a socket as it likes: a declared length with no body after it,
/// headers a few bytes at a time. Reads answer with a deadline.
final class RawConnection: @unchecked Sendable {
    private let socket: Int32

    init(_ url: String) throws {
        let port = UInt16(try #require(URL(string: url)?.port))
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw CardboxError.storage("cannot connect to \(url)") }
    }

    deinit { close(socket) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What the server sends within `seconds`: its answer, nil once it has closed the connection
    /// without one, or "" when nothing came in time. The wait blocks a thread of its own: the
    /// server under test answers on the cooperative pool this test runs on.
    func read(within seconds: Int) async -> String? {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.blockingRead(within: seconds)) }.start()
        }
    }

    private func blockingRead(within seconds: Int) -> String? {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var count = -1
        repeat { count = recv(socket, &buffer, buffer.count, 0) } while count < 0 && errno == EINTR
        if count == 0 { return nil }
        if count < 0 { return "" }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}

@Suite("A server safe to expose")
struct ExposureTests {
    /// The setup link's token of the servers `withExposedServer` starts.
    static let setupToken = "0123456789abcdef0123456789abcdef"

    /// A web server with a setup link and copies of accounts, as `cardbox serve` starts one, on a
    /// loopback port: what these tests check is mostly about the connection (its address, a proxy
    /// in front, its pace and how many there are).
    static func withExposedServer(
        _ configure: (inout ServerOptions) -> Void = { _ in }, network: Bool = true, throttle: SignInThrottle = .init(),
        _ body: (_ url: String, _ database: any ServerDatabase, _ accounts: AccountService) async throws -> Void
    ) async throws {
        var options = ServerOptions()
        options.replicaFolder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("cardbox-exposed-\(UUID().uuidString)")
        configure(&options)
        defer { try? FileManager.default.removeItem(at: options.replicaFolder!) }
        try await withServer(
            "sqlite-memory", options: options, network: network, throttle: throttle, setupToken: Self.setupToken, body)
    }

    // MARK: Sign-in

    @Test(
        "every spelling of a name that signs in to an account counts against that account's throttle",
        arguments: ["sqlite-memory", "postgres"])
    func spellingsShareTheThrottle(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4))
            let name = "alice-\(UUID().uuidString.prefix(8).lowercased())"
            _ = try await accounts.addAccount(name: name, password: "correct horse")
            let now = Date()
            for spelling in [" \(name)", "\(name)\t", "\u{00a0}\(name)", "\u{3000}\(name)", name.uppercased()] {
                await #expect(throws: AccountService.wrongCredentials) {
                    try await accounts.signIn(name: spelling, password: "wrong guess", deviceName: "d", now: now)
                }
            }
            // Five failures for the one name: even the right password waits now, however it is spelt.
            for spelling in [name, "\u{3000}\(name)"] {
                await #expect(throws: SignInThrottled(retryAfter: 1)) {
                    try await accounts.signIn(name: spelling, password: "correct horse", deviceName: "d", now: now)
                }
            }
        }
    }

    @Test("a name's lock keeps out only the address that failed; past its cap a name is slowed, never refused")
    func nameLockIsPerAddress() async throws {
        let throttle = SignInThrottle(nameCap: 8, nameDelay: 0.2)
        try await SyncStates.with("sqlite-memory") { database in
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4), throttle: throttle)
            _ = try await accounts.addAccount(name: "bob", password: "correct horse")
            let (attacker, owner) = ("203.0.113.5", "198.51.100.7")
            let now = Date()
            func signIn(_ password: String, from client: String) async throws {
                _ = try await accounts.signIn(
                    name: "bob", password: password, deviceName: "d", client: client, now: now)
            }
            for _ in 0..<5 {
                await #expect(throws: AccountService.wrongCredentials) { try await signIn("guess", from: attacker) }
            }
            // The address that failed waits, even with the right password; the owner elsewhere gets in.
            await #expect(throws: SignInThrottled(retryAfter: 1)) { try await signIn("correct horse", from: attacker) }
            try await signIn("correct horse", from: owner)
            // Guesses spread over many addresses pass the name's cap: each attempt now waits first,
            // and the right password still gets in.
            for index in 0..<3 {
                await #expect(throws: AccountService.wrongCredentials) {
                    try await signIn("guess", from: "192.0.2.\(index)")
                }
            }
            #expect(try await throttle.check("bob", client: "198.51.100.9", now: now, in: database) == 0.2)
            let started = ContinuousClock.now
            try await signIn("correct horse", from: "198.51.100.9")
            #expect(ContinuousClock.now - started >= .milliseconds(200))
        }
    }

    @Test("failed sign-ins are limited per client address too; behind a trusted proxy, the address it forwards")
    func throttledPerClient() async throws {
        let throttle = SignInThrottle(allowedPerClient: 3)
        try await Self.withExposedServer({ $0.trustedProxies = ["127.0.0.1"] }, throttle: throttle) {
            url, _, accounts in
            _ = try await accounts.addAccount(name: "ana", password: "correct horse")
            let guesser = TestBrowser(url)
            guesser.headers = [("X-Forwarded-For", "203.0.113.5")]
            // Three names, one guess each: no name's own limit is reached, the address's is.
            for name in ["bob", "carl", "dina"] {
                #expect(try await guesser.post("/signin", ["user": name, "password": "guess one"]).status == 401)
            }
            let refused = try await guesser.post("/signin", ["user": "ana", "password": "correct horse"])
            #expect(refused.status == 429 && refused.body.contains("from this address"))
            // A client forwarded from elsewhere is not held back by it.
            let neighbour = TestBrowser(url)
            neighbour.headers = [("X-Forwarded-For", "198.51.100.7")]
            #expect(try await neighbour.post("/signin", ["user": "ana", "password": "correct horse"]).status == 303)
            // The client's own word before the proxy's entry is not believed: the proxy's is the last.
            let spoofing = TestBrowser(url)
            spoofing.headers = [("X-Forwarded-For", "198.51.100.7, 203.0.113.5")]
            #expect(try await spoofing.post("/signin", ["user": "ana", "password": "correct horse"]).status == 429)
        }
        // Without a trusted proxy, X-Forwarded-For says nothing: the socket's address is the client.
        try await Self.withExposedServer(throttle: SignInThrottle(allowedPerClient: 2)) { url, _, accounts in
            _ = try await accounts.addAccount(name: "ana", password: "correct horse")
            for (index, name) in ["bob", "carl"].enumerated() {
                let guesser = TestBrowser(url)
                guesser.headers = [("X-Forwarded-For", "203.0.113.\(index)")]
                #expect(try await guesser.post("/signin", ["user": name, "password": "guess one"]).status == 401)
            }
            let sameMachine = TestBrowser(url)
            #expect(try await sameMachine.post("/signin", ["user": "ana", "password": "correct horse"]).status == 429)
        }
    }

    /// The CPU time the calling thread spends in `body`.
    static func threadCPUSeconds(_ body: () -> Void) -> Double {
        var (start, end) = (timespec(), timespec())
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    @Test("an unknown name's sign-in costs one bcrypt run, as a known name's wrong password does")
    func unknownNameTakesAsLong() async throws {
        let hasher = PasswordHasher(cost: 9)
        let stored = try hasher.hash("correct horse")
        _ = hasher.verify("warm-up", hash: nil)
        // Measured in turns, and in this thread's CPU time: other work of a busy machine (other tests,
        // a host stealing cycles) does not count, as it does on a clock.
        var (knownTimes, unknownTimes): ([Double], [Double]) = ([], [])
        for _ in 0..<7 {
            knownTimes.append(Self.threadCPUSeconds { _ = hasher.verify("wrong guess", hash: stored) })
            unknownTimes.append(Self.threadCPUSeconds { _ = hasher.verify("wrong guess", hash: nil) })
        }
        let (known, unknown) = (knownTimes.sorted()[3], unknownTimes.sorted()[3])
        // Two runs (a fresh hash, then the check) took twice as long.
        #expect(unknown < known * 1.5, "unknown name: \(unknown), known name: \(known)")
    }

    @Test("password hashing runs on threads of its own, a few at once; past its queue a check is refused at once")
    func passwordWorkIsBounded() async throws {
        let work = PasswordWork(workers: 2, queueLimit: 1)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocking: @Sendable () -> Int = {
            started.signal()
            release.wait()
            return 1
        }
        let first = Task { try await work.run(blocking) }
        let second = Task { try await work.run(blocking) }
        await started.waitOffThePool(count: 2)
        // Both workers are held: the cooperative pool is not (a task still runs), and one more
        // check waits in the queue.
        #expect(await Task { 41 + 1 }.value == 42)
        let third = Task { try await work.run(blocking) }
        while await work.queued < 1 { try await Task.sleep(for: .milliseconds(10)) }
        await #expect(throws: PasswordWorkBusy()) { try await work.run(blocking) }
        for _ in 0..<3 { release.signal() }
        #expect(try await first.value + second.value + third.value == 3)
        // The refusal is a 429 that says when to try again.
        let answer = JSONErrorMiddleware.answer(for: PasswordWorkBusy())
        #expect(answer.status.code == 429 && answer.headers[.retryAfter] == "2")
    }

    @Test("a sign-in whose client hung up while it waited for a password worker is not checked and makes no device")
    func queuedSignInWhoseClientLeft() async throws {
        try await SyncStates.with("sqlite-memory") { database in
            let work = PasswordWork(workers: 1, queueLimit: 4)
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4), passwordWork: work)
            let account = try await accounts.addAccount(name: "ivy", password: "correct horse")
            let (started, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            let holding = Task {
                try await work.run {
                    started.signal()
                    release.wait()
                }
            }
            await started.waitOffThePool(count: 1)
            let present = Presence()
            let queued = Task {
                try await accounts.signIn(
                    name: "ivy", password: "correct horse", deviceName: "phone", clientIsThere: present.check)
            }
            while await work.queued < 1 { try await Task.sleep(for: .milliseconds(10)) }
            present.leave()
            release.signal()
            try await holding.value
            await #expect(throws: ClientLeft()) { try await queued.value }
            #expect(try await database.devices(account: account.id).isEmpty)
            // Its check was not made, so not counted against the name: the next sign-in goes through.
            _ = try await accounts.signIn(name: "ivy", password: "correct horse", deviceName: "phone")
            #expect(try await database.devices(account: account.id).count == 1)
        }
    }

    /// Whether a test's client is still there, as a request context says it.
    final class Presence: Sendable {
        private let left = Atomic<Bool>(false)
        func leave() { left.store(true, ordering: .relaxed) }
        var check: @Sendable () -> Bool { { [self] in !left.load(ordering: .relaxed) } }
    }

    @Test("a request's context knows when its client closed its side of the connection, or the connection closed")
    func clientPresence() async throws {
        for closing in ["input", "connection"] {
            let channel = NIOAsyncTestingChannel()
            try await channel.pipeline.addHandler(ClientPresence())
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).get()
            let context = CardboxRequestContext(
                source: ApplicationRequestContextSource(channel: channel, logger: Logger(label: "test")))
            let isThere = await context.clientIsThere()
            #expect(isThere())
            if closing == "input" {
                try await channel.testingEventLoop.executeInContext {
                    channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
                }
            } else {
                try await channel.close()
            }
            #expect(!isThere(), "after the \(closing) closed")
        }
        // A request that came over no connection (HummingbirdTesting's in-process client) has no
        // client to leave: its sign-in is checked.
        let inProcess = CardboxRequestContext(
            source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: Logger(label: "test")))
        #expect(await inProcess.clientIsThere()())
    }

    // MARK: First run

    @Test("the first account needs the setup link's token, from this machine or through a proxy; setup is atomic")
    func setupNeedsItsLink() async throws {
        try await Self.withExposedServer { url, database, _ in
            let token = "0123456789abcdef0123456789abcdef"
            let browser = TestBrowser(url)
            #expect(try await browser.get("/").location == "/setup")
            let withoutLink = try await browser.get("/setup")
            #expect(withoutLink.body.contains("setup link") && !withoutLink.body.contains("name=\"password\""))
            #expect(try await browser.get("/setup?token=\(token)").body.contains("name=\"password\""))
            for path in ["/setup", "/setup?token=wrong", "/setup?token=\(token.dropLast())"] {
                let refused = try await browser.post(path, ["user": "mallory", "password": "correct horse"])
                #expect(refused.status == 403 && refused.body.contains("setup link"))
            }
            let proxied = TestBrowser(url)
            proxied.headers = [("X-Forwarded-For", "203.0.113.5")]
            #expect(try await proxied.post("/setup", ["user": "mallory", "password": "correct horse"]).status == 403)
            #expect(try await database.accounts().isEmpty)
            // Three at once with the link: one account.
            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                for name in ["ana", "bea", "cy"] {
                    group.addTask {
                        try await TestBrowser(url).post(
                            "/setup?token=\(token)", ["user": name, "password": "correct horse"]
                        )
                        .status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.sorted() == [303, 403, 403])
            #expect(try await database.accounts().count == 1)
            #expect(
                try await browser.post("/setup?token=\(token)", ["user": "dan", "password": "correct horse"]).status
                    == 403)
        }
        // A server with no link kept (none offered, or one used by an account since removed): the
        // setup page says how to get one, and nothing is made.
        try await withServer("sqlite-memory", network: true) { url, database, _ in
            let browser = TestBrowser(url)
            let refused = try await browser.post(
                "/setup?token=\(Self.setupToken)", ["user": "eve", "password": "correct horse"])
            #expect(refused.status == 403 && refused.body.contains("restart"))
            #expect(try await database.accounts().isEmpty)
        }
    }

    @Test(
        "the setup link: one per database, kept hashed, for an hour, once; of first accounts made at once, one is",
        arguments: ["sqlite-file", "postgres-fresh"])
    func firstAccountIsAtomic(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4))
            let now = Date()
            // Kept as its hash: the secret itself is not what the database holds.
            let first = try await accounts.newSetupLink(now: now)
            #expect(try await accounts.isSetupLink(first, now: now))
            #expect(try await !database.isSetupToken(hash: first, now: now))
            // An hour, then no more.
            #expect(try await !accounts.isSetupLink(first, now: now.addingTimeInterval(3_601)))
            await #expect(throws: SetupLinkRefused()) {
                try await accounts.addFirstAccount(
                    name: "late", password: "correct horse", setupToken: first, now: now.addingTimeInterval(3_601))
            }
            // A server started later on the same database replaces the link.
            let second = try await accounts.newSetupLink(now: now)
            #expect(try await !accounts.isSetupLink(first, now: now))
            await #expect(throws: SetupLinkRefused()) {
                try await accounts.addFirstAccount(name: "old", password: "correct horse", setupToken: first, now: now)
            }
            let made = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<5 {
                    group.addTask {
                        (try? await accounts.addFirstAccount(
                            name: "owner\(index)", password: "correct horse", setupToken: second, now: now)) != nil
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            let owners = try await database.accounts()
            #expect(made == 1 && owners.count == 1)
            await #expect(throws: SetupClosed()) {
                try await accounts.addFirstAccount(name: "late", password: "correct horse", setupToken: second)
            }
            // Used once: with the only account removed, the old link does not work again.
            try await database.removeAccount(owners[0].id)
            #expect(try await !accounts.isSetupLink(second, now: now))
            await #expect(throws: SetupLinkRefused()) {
                try await accounts.addFirstAccount(name: "again", password: "correct horse", setupToken: second)
            }
        }
    }

    // MARK: Hosts, proxies, cookies, metrics

    @Test("a request naming a host the server does not answer as is refused; its public address and IPs are served")
    func hostCheck() async throws {
        try await Self.withExposedServer { url, _, _ in
            let port = try #require(URL(string: url)?.port)
            for (host, status) in [
                ("evil.example", 421), ("127.0.0.1:\(port)", 200), ("localhost:\(port)", 200), ("[::1]:\(port)", 200),
            ] {
                let connection = try RawConnection(url)
                connection.send("GET /health HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                let answer = await connection.read(within: 10)
                #expect(
                    answer?.hasPrefix("HTTP/1.1 \(status)") == true, "Host: \(host) got \(String(describing: answer))")
            }
        }
        try await Self.withExposedServer({ $0.publicURL = URL(string: "https://cards.example.com") }) {
            url, _, accounts in
            let connection = try RawConnection(url)
            connection.send("GET /health HTTP/1.1\r\nHost: cards.example.com\r\nConnection: close\r\n\r\n")
            #expect(await connection.read(within: 10)?.hasPrefix("HTTP/1.1 200") == true)
            // An https public address makes the session cookie Secure, though this hop is plain HTTP.
            _ = try await accounts.addAccount(name: "ana", password: "correct horse")
            let signIn = try await TestBrowser(url).post("/signin", ["user": "ana", "password": "correct horse"])
            #expect(signIn.status == 303 && signIn.setCookie?.contains("Secure") == true)
        }
    }

    @Test("/metrics: this machine only when asked directly and not behind a proxy, or anyone with the token")
    func metricsAccess() async throws {
        try await Self.withExposedServer { url, _, _ in
            let browser = TestBrowser(url)
            let direct = try await browser.get("/metrics")
            browser.headers = [("X-Forwarded-For", "203.0.113.5")]
            let proxied = try await browser.get("/metrics")
            #expect(direct.status == 200 && proxied.status == 403)
        }
        // Behind a reverse proxy on this machine (which need send no forwarded header), only the token.
        try await Self.withExposedServer({ $0.trustedProxies = ["127.0.0.1", "::1"] }) { url, _, _ in
            let answer = try await TestBrowser(url).get("/metrics")
            #expect(answer.status == 403 && answer.body.contains("--metrics-token"))
        }
        try await Self.withExposedServer({ $0.metricsToken = "metrics-secret-0123456789" }) { url, _, _ in
            let browser = TestBrowser(url)
            #expect(try await browser.get("/metrics").status == 401)
            browser.headers = [("Authorization", "Bearer metrics-secret-0123456789")]
            let answer = try await browser.get("/metrics")
            #expect(answer.status == 200 && answer.body.contains("# TYPE"))
        }
    }

    @Test("/metrics on an address of its own (--metrics-listen): there to anyone, gone from the main address")
    func metricsListen() async throws {
        let port = try freeLoopbackPort()
        try await Self.withExposedServer({ $0.metricsListen = ("127.0.0.1", port) }) { url, _, _ in
            #expect(try await TestBrowser(url).get("/metrics").status == 404)
            let apart = TestBrowser("http://127.0.0.1:\(port)")
            apart.headers = [("X-Forwarded-For", "203.0.113.5")]
            var answer = try? await apart.get("/metrics")
            for _ in 0..<50 where answer == nil {
                try await Task.sleep(for: .milliseconds(100))
                answer = try? await apart.get("/metrics")
            }
            #expect(answer?.status == 200 && answer?.body.contains("# TYPE") == true)
        }
    }

    @Test("signed-in pages and forms count toward the account's request rate, as the API does")
    func pageRateLimit() async throws {
        // One request every 100 s on average, bursts of one: the second request in a row waits.
        try await Self.withExposedServer({ $0.requestsPerSecond = 0.01 }) { url, _, accounts in
            _ = try await accounts.addAccount(name: "ana", password: "correct horse")
            let browser = TestBrowser(url)
            #expect(try await browser.post("/signin", ["user": "ana", "password": "correct horse"]).status == 303)
            let csrf = try await browser.csrf()  // a page: the burst's one request
            let refused = try await browser.post("/lists", ["csrf": csrf, "name": "Errands"])
            #expect(refused.status == 429 && refused.body.contains("too many requests"), "\(refused.status)")
            // Another account keeps its own rate.
            _ = try await accounts.addAccount(name: "bea", password: "correct horse")
            let other = TestBrowser(url)
            #expect(try await other.post("/signin", ["user": "bea", "password": "correct horse"]).status == 303)
            #expect(try await other.get("/decks").status == 200)
        }
    }

    @Test("event streams: a few per device, more per account; past either cap, the oldest closes")
    func streamCaps() async throws {
        try await Self.withExposedServer({ ($0.streamsPerDevice, $0.streamsPerAccount) = (2, 2) }) { url, _, accounts in
            _ = try await accounts.addAccount(name: "ana", password: "correct horse")
            let laptop = try await accounts.signIn(name: "ana", password: "correct horse", deviceName: "a").token
            let phone = try await accounts.signIn(name: "ana", password: "correct horse", deviceName: "b").token
            /// A stream opened with `token`, once its first comment came.
            func open(_ token: String) async throws -> RawConnection {
                let connection = try RawConnection(url)
                connection.send(
                    "GET /v1/sync/events?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n")
                var seen = ""
                while !seen.contains("cardbox news") {
                    guard let more = await connection.read(within: 20), !more.isEmpty else {
                        throw CardboxError.storage("the stream did not open: \(seen)")
                    }
                    seen += more
                }
                return connection
            }
            /// What the stream says as it ends (its last chunk, or the connection closed) within
            /// seconds; nil when it does not end.
            func ending(_ connection: RawConnection) async -> String? {
                var said = ""
                for _ in 0..<5 {
                    guard let more = await connection.read(within: 2) else { return said }
                    said += more
                    if said.contains("0\r\n\r\n") { return said }
                }
                return nil
            }
            /// Whether it stays open for a second (a heartbeat may come; the last chunk may not).
            func stillOpen(_ connection: RawConnection) async -> Bool {
                guard let more = await connection.read(within: 1) else { return false }
                return !more.contains("0\r\n\r\n")
            }
            let first = try await open(laptop)
            let second = try await open(laptop)
            let third = try await open(laptop)
            // Told to wait a minute before it comes back: tabs past the cap do not take turns.
            #expect(
                await ending(first)?.contains("retry: 60000") == true, "the device's third stream closes its first")
            #expect(await stillOpen(second))
            #expect(await stillOpen(third))
            // Another device: the account's third stream closes the account's oldest.
            let other = try await open(phone)
            #expect(await ending(second) != nil, "the account's third stream closes its oldest")
            #expect(await stillOpen(third))
            #expect(await stillOpen(other))
        }
    }

    // MARK: Bodies and connections

    @Test("a malformed chunked body is the client's mistake: 400, not a server failure")
    func malformedChunkedBody() async throws {
        try await Self.withExposedServer { url, _, _ in
            let connection = try RawConnection(url)
            connection.send(
                "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
            let answer = await connection.read(within: 10)
            #expect(answer?.hasPrefix("HTTP/1.1 400") == true, "\(String(describing: answer))")
        }
    }

    @Test("a body is refused before it is read: without a session, a file form from another site, or too long")
    func bodiesRefusedUnread() async throws {
        try await Self.withExposedServer { url, _, accounts in
            let declared =
                "POST /exchange/import HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 73400320\r\n"
            // No session: sent to sign-in at once, the 70 MB never sent.
            let stranger = try RawConnection(url)
            stranger.send(declared + "\r\n")
            let answer = await stranger.read(within: 10) ?? ""
            #expect(answer.hasPrefix("HTTP/1.1 303") && answer.contains("/signin"), "\(answer.prefix(80))")
            // A session, but a file form from another site, or one that does not say where it came
            // from: refused before reading.
            let browser = try await WebAppTests.signedIn(url, accounts)
            let cookie = try #require(browser.cookie)
            for origin in ["Sec-Fetch-Site: cross-site\r\n", "Origin: https://evil.example\r\n", ""] {
                let forged = try RawConnection(url)
                forged.send(declared + origin + "Cookie: \(cookie)\r\n\r\n")
                #expect(await forged.read(within: 10)?.hasPrefix("HTTP/1.1 403") == true, "\(origin)")
            }
            // From this server's page (as the browser says), a declared length over the import's
            // limit is a 413 at once.
            let large = try RawConnection(url)
            large.send(declared + "Sec-Fetch-Site: same-origin\r\nCookie: \(cookie)\r\n\r\n")
            let tooLarge = await large.read(within: 10) ?? ""
            #expect(tooLarge.hasPrefix("HTTP/1.1 413") && tooLarge.contains("64 MB"), "\(tooLarge.prefix(80))")
            // The page's own form still imports.
            let imported = try await browser.postFile(
                "/exchange/import", ["deck": "Animals", "front": "es"],
                file: ("file", Data("perro,dog\ngato,cat\n".utf8)))
            #expect(imported.status == 200)
            #expect(try await browser.get("/decks").body.contains("Animals"))
        }
    }

    @Test("a connection that stops sending (slow headers, a stalled body) is closed after the idle timeout")
    func idleConnectionsClose() async throws {
        try await Self.withExposedServer({ $0.idleTimeout = .seconds(1) }) { url, _, _ in
            let slowHeaders = try RawConnection(url)
            slowHeaders.send("GET /health HTTP/1.1\r\nHo")
            let stalledBody = try RawConnection(url)
            stalledBody.send("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"user\"")
            // Closed (read gives nil), not left waiting (read gives "" when its own time is up).
            #expect(await slowHeaders.read(within: 8) == nil)
            #expect(await stalledBody.read(within: 8) == nil)
        }
    }

    @Test("a body that trickles in is closed once it comes slower than the minimum; a steady one is answered")
    func slowBodiesClose() async throws {
        try await Self.withExposedServer({
            $0.connectionLimits.bodyGrace = .seconds(1)
            $0.connectionLimits.minimumBodyBytesPerSecond = 1_024
        }) { url, _, _ in
            // A byte every 200 ms: each resets the idle timeout (30 s), none makes the rate.
            let trickle = try RawConnection(url)
            trickle.send("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 9000\r\n\r\n{")
            let sending = Task {
                for _ in 0..<40 {
                    try await Task.sleep(for: .milliseconds(200))
                    trickle.send(" ")
                }
            }
            // Closed within 10 s, long before the idle timeout (30 s) would close it.
            #expect(await trickle.read(within: 10) == nil, "closed, not answered or left open")
            sending.cancel()
            // 9 kB in 1.5 s (6 kB/s): slower than a quick client, faster than the minimum. Sent
            // from a thread of its own, on time however busy the tests' shared threads are.
            let steady = try RawConnection(url)
            let password = String(repeating: "p", count: 9_000 - 31)
            let body = Array("{\"user\":\"nobody\",\"password\":\"\(password)\"}".utf8)
            steady.send("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n\r\n")
            Thread {
                for part in stride(from: 0, to: body.count, by: 1_500) {
                    usleep(250_000)
                    steady.send(String(decoding: body[part..<min(part + 1_500, body.count)], as: UTF8.self))
                }
            }.start()
            let answer = await steady.read(within: 15)
            #expect(answer?.hasPrefix("HTTP/1.1 4") == true, "answered: \(answer ?? "closed")")
            let metrics = try await TestBrowser(url).get("/metrics").body
            #expect(metrics.contains("cardbox_connections_closed_total{reason=\"slow_body\"} 1"))
        }
    }

    @Test("one address holds a few connections at once, past which a new one is closed; a trusted proxy, any")
    func connectionsPerAddress() async throws {
        try await Self.withExposedServer({ $0.connectionLimits.perAddress = 3 }) { url, _, _ in
            /// A connection the server has taken: answered once, kept open. One at a time, since the
            /// server takes connections that arrive together on several threads, in any order.
            func taken() async throws -> RawConnection? {
                let connection = try RawConnection(url)
                connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return await connection.read(within: 10)?.hasPrefix("HTTP/1.1 200") == true ? connection : nil
            }
            var held: [RawConnection] = []
            for _ in 0..<3 { held.append(try #require(try await taken())) }
            let fourth = try RawConnection(url)
            #expect(await fourth.read(within: 5) == nil, "the fourth is closed as it opens")
            // Once one closes, its place is free again.
            held.removeLast()
            var answered = false
            for _ in 0..<50 where !answered {
                answered = try await taken() != nil
                if !answered { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(answered, "a connection closed frees its place")
        }
        try await Self.withExposedServer({
            $0.connectionLimits.perAddress = 3
            $0.trustedProxies = ["127.0.0.1"]
        }) { url, _, _ in
            let held = try (0..<6).map { _ in try RawConnection(url) }
            held[5].send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await held[5].read(within: 5)?.hasPrefix("HTTP/1.1 200") == true, "a proxy's connections are many")
        }
    }

    // MARK: Time zones

    @Test("the browser's time zone becomes the account's: the server's copy counts study days in it")
    func browsersTimeZone() async throws {
        try await WebAppTests.withWebServer { url, _, accounts in
            let (browser, phone) = try await WebAppTests.browserAndPhone(url, accounts)
            let csrf = try await browser.csrf()
            let refused = try await browser.postJSON("/api/v1/settings", #"{"timeZone": "Mars/Olympus"}"#, csrf: csrf)
            #expect(refused.status == 400 && refused.body.contains("time zone"))
            let set = try await browser.postJSON("/api/v1/settings", #"{"timeZone": "Asia/Tokyo"}"#, csrf: csrf)
            #expect(
                set.status == 200 && set.body.contains(#""timeZone":"Asia\/Tokyo""#)
                    || set.body.contains(#""timeZone":"Asia/Tokyo""#))
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try phone.settings().timeZone == "Asia/Tokyo")
            // A sign-in carries the browser's: the page's script fills the form's field.
            #expect(try await browser.get("/signin").body.contains(#"name="timeZone""#))
            #expect(try await browser.get(WebAssets.javascriptPath).body.contains("resolvedOptions().timeZone"))
            let name = "tz-\(UUID().uuidString.prefix(8).lowercased())"
            _ = try await accounts.addAccount(name: name, password: "correct horse")
            let traveller = TestBrowser(url)
            let signedIn = try await traveller.post(
                "/signin", ["user": name, "password": "correct horse", "timeZone": "America/Lima"])
            #expect(signedIn.status == 303)
            let laptop = try await signIn(CardboxStore.inMemory(), to: url, user: name, password: "correct horse")
            _ = try await DeviceSync(testing: laptop).sync()
            #expect(try laptop.settings().timeZone == "America/Lima")
        }
    }

    @Test("the stats page dates study days in the account's time zone, not the server's")
    func statsInTheAccountsZone() async throws {
        try await WebAppTests.withWebServer { url, _, accounts in
            let (browser, phone) = try await WebAppTests.browserAndPhone(url, accounts)
            let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            let card = try phone.addCard(to: deck.id, CardDraft(front: "perro", back: "dog"))
            _ = try phone.answer(card.id, rating: 3)
            // The study day (it starts at 4 a.m.) of now, where the account is.
            func today(_ zone: String) -> String {
                Date().addingTimeInterval(-4 * 3_600).formatted(
                    Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: zone)!).year().month().day()
                        .dateSeparator(.dash))
            }
            // 25 hours apart: their dates always differ, so the server's own zone cannot pass both.
            for zone in ["Pacific/Kiritimati", "Pacific/Pago_Pago"] {
                _ = try phone.setSetting("timeZone", to: zone)
                _ = try await DeviceSync(testing: phone).sync()
                let page = try await browser.get("/decks/\(deck.id)/stats").body
                #expect(page.contains("1 reviews on \(today(zone))"), "\(zone): today is \(today(zone))")
            }
        }
    }

    // MARK: Sync

    @Test("a live event stream ends once its device is signed out")
    func streamEndsWithItsToken() async throws {
        var options = ServerOptions()
        options.newsPollInterval = .seconds(60)
        try await withServer("sqlite-memory", options: options, network: true) { url, _, accounts in
            _ = try await accounts.addAccount(name: "fen", password: "password fen")
            let laptop = try await signIn(try CardboxStore.inMemory(), to: url, user: "fen", password: "password fen")
            let link = try #require(try laptop.syncLink())
            let connection = try ServerConnection(server: url, token: link.token, transport: TestTransport.devices)
            let (opened, open) = AsyncStream.makeStream(of: Void.self)
            // Waited for until the stream is open, or has failed (then `listening` says how).
            let listening = Task {
                defer { open.finish() }
                return try await connection.news(after: link.received) { open.finish() }
            }
            for await _ in opened {}
            let start = ContinuousClock.now
            try await connection.signOut()
            let heard = try await withThrowingTaskGroup(of: Int64??.self) { group in
                group.addTask { .some(try await listening.value) }
                group.addTask {
                    try await Task.sleep(for: .seconds(45))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            listening.cancel()
            #expect(heard == .some(nil), "the stream ended without news")
            // Woken by the sign-out, not by its next poll (60 s); a loaded test machine may take seconds.
            #expect(ContinuousClock.now - start < .seconds(30))
        }
    }
}

/// A TCP port free on 127.0.0.1 a moment ago (the system chose it for a socket then closed).
func freeLoopbackPort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(socket, socketAddress, length) == 0 && getsockname(socket, socketAddress, &length) == 0
        }
    }
    guard bound else { throw CardboxError.storage("no free port on 127.0.0.1") }
    return Int(UInt16(bigEndian: address.sin_port))
}
