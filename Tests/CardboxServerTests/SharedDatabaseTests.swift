import AsyncHTTPClient
import CardboxServer
import CardboxServerPostgres
import CardboxStore
import CardboxSyncClient
import CardboxTestSupport
import Foundation
import Testing

@testable import CardboxHTTP

/// Two servers on one PostgreSQL, as `cardbox serve` runs twice behind a load balancer: what one
/// knows, the other knows.
@Suite("Servers sharing one PostgreSQL")
struct SharedDatabaseTests {
    /// Two connections to the shared test database, each a server's, for the length of `body`.
    static func withTwoServers(
        _ body: (_ first: PostgresServerDatabase, _ second: PostgresServerDatabase) async throws -> Void
    ) async throws {
        let url = try TestPostgres.url
        let first = try await PostgresServerDatabase.open(url: url)
        let second = try await PostgresServerDatabase.open(url: url)
        do {
            try await body(first, second)
        } catch {
            await first.close()
            await second.close()
            throw error
        }
        await first.close()
        await second.close()
    }

    @Test("failed sign-ins count once whichever server took them: a second server gives a guesser no more tries")
    func throttleIsShared() async throws {
        try await Self.withTwoServers { first, second in
            let throttle = SignInThrottle(allowed: 5, allowedPerClient: 8)
            let servers = [first, second].map {
                AccountService(store: $0, hasher: PasswordHasher(cost: 4), throttle: throttle)
            }
            let name = "gus-\(UUID().uuidString.prefix(8).lowercased())"
            _ = try await servers[0].addAccount(name: name, password: "correct horse")
            // An address of the documentation range no other test uses.
            let attacker = "2001:db8::\(UUID().uuidString.prefix(4).lowercased())"
            let now = Date()
            func signIn(_ name: String, _ password: String, on server: Int) async throws {
                _ = try await servers[server].signIn(
                    name: name, password: password, deviceName: "d", client: attacker, now: now)
            }
            for index in 0..<5 {
                await #expect(throws: AccountService.wrongCredentials) {
                    try await signIn(name, "guess \(index)", on: index % 2)
                }
            }
            // Five failures, three on one server and two on the other: both now make the address wait.
            for server in 0..<2 {
                await #expect(throws: SignInThrottled(retryAfter: 1)) {
                    try await signIn(name, "correct horse", on: server)
                }
            }
            // Three more names from the address: eight failures in all, its limit, across both.
            for index in 0..<3 {
                await #expect(throws: AccountService.wrongCredentials) {
                    try await signIn("nobody-\(index)-\(name)", "guess", on: index % 2)
                }
            }
            for server in 0..<2 {
                let refusal = await #expect(throws: SignInThrottled.self) {
                    try await signIn("other-\(name)", "guess", on: server)
                }
                #expect(refusal?.client == true)
            }
        }
    }

    /// What a device's event stream heard: a `changes` event, or its end (signed out), and when.
    enum Heard: Equatable {
        case changes
        case ended
    }

    /// Opens `/v1/sync/events` on `url` for `token` and returns once the server has begun the stream;
    /// the task then ends with the first thing the stream says after its greeting.
    static func openEvents(_ url: String, token: String, after cursor: Int64) async throws
        -> Task<(Heard, ContinuousClock.Instant), any Error>
    {
        let (opened, open) = AsyncStream.makeStream(of: Void.self)
        let listening = Task {
            var request = HTTPClientRequest(url: url + "/v1/sync/events?after=\(cursor)")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            let response = try await ServerConnection.client.execute(request, timeout: .seconds(300))
            var text = ""
            for try await chunk in response.body {
                text += String(buffer: chunk)
                open.yield()
                if text.contains("event: changes") { return (Heard.changes, ContinuousClock.now) }
            }
            return (Heard.ended, ContinuousClock.now)
        }
        for await _ in opened { break }
        return listening
    }

    @Test("a push or a sign-out on one server reaches the streams open on the other at once, not at their next poll")
    func newsCrossesServers() async throws {
        // Polls ten minutes apart: only the other server's word can reach the stream within the test.
        var options = ServerOptions()
        options.newsPollInterval = .seconds(600)
        try await Self.withTwoServers { first, second in
            try await withServer(on: first, options: options) { firstURL, _, accounts in
                try await withServer(on: second, options: options, network: true) { secondURL, _, _ in
                    await second.untilListening()
                    let name = "hal-\(UUID().uuidString.prefix(8).lowercased())"
                    _ = try await accounts.addAccount(name: name, password: "correct horse")
                    let phone = try await signIn(
                        try CardboxStore.inMemory(), to: firstURL, user: name, password: "correct horse")
                    let laptop = try await accounts.signIn(name: name, password: "correct horse", deviceName: "laptop")
                    // The laptop listens on the second server; the phone pushes through the first.
                    let listening = try await Self.openEvents(secondURL, token: laptop.token, after: 0)
                    _ = try phone.createList(name: "Groceries")
                    let start = ContinuousClock.now
                    _ = try await DeviceSync(testing: phone).sync()
                    let (heard, at) = try await listening.value
                    #expect(heard == .changes)
                    #expect(at - start < .seconds(60), "heard \(at - start) after the push began")
                    // Signed out through the first server, its stream on the second ends.
                    let cursor = try await first.cursor(account: laptop.account.id)
                    let signedOut = try await Self.openEvents(secondURL, token: laptop.token, after: cursor)
                    try await ServerConnection(server: firstURL, token: laptop.token, transport: TestTransport.devices)
                        .signOut()
                    #expect(try await signedOut.value.0 == .ended)
                }
            }
        }
    }

    @Test("news between servers is one line that names its sender, who ignores it")
    func newsPayload() {
        let (origin, other, account) = (UUID(), UUID(), UUID())
        for news in [ServerNews.changed(account: account), .signedOut(account: account)] {
            let payload = news.payload(origin: origin)
            #expect(ServerNews(payload: payload, ignoring: other) == news)
            #expect(ServerNews(payload: payload, ignoring: origin) == nil)
        }
        #expect(ServerNews(payload: "\(origin) moved \(account)", ignoring: other) == nil)
        #expect(ServerNews(payload: "garbage", ignoring: other) == nil)
    }
}
