import AsyncHTTPClient
import CardboxCore
import CardboxServer
import CardboxStore
import CardboxSync
import CardboxSyncClient
import CardboxTestSupport
import CardboxWire
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing

@testable import CardboxHTTP

/// The application `cardbox serve` runs, over a database, for the length of `body`: in this
/// process without a socket (HummingbirdTesting's `.router`; devices and requests reach it through
/// `TestTransport`), or, with `network` (or `tls`, or `gracefully`), on a free loopback port,
/// stopped by cancelling it or (`gracefully`) as SIGTERM stops `cardbox serve`. The network is for
/// the tests it is the point of: connections, streams, TLS, stopping.
func withServer(
    _ implementation: String, options: ServerOptions = ServerOptions(), network: Bool = false,
    tls: (certificate: String, key: String)? = nil, gracefully: Bool = false, throttle: SignInThrottle = .init(),
    setupToken: String? = nil,
    _ body: (_ url: String, _ database: any ServerDatabase, _ accounts: AccountService) async throws -> Void
) async throws {
    try await SyncStates.with(implementation) { database in
        try await withServer(
            on: database, options: options, network: network, tls: tls, gracefully: gracefully, throttle: throttle,
            setupToken: setupToken, body)
    }
}

/// `withServer` over a database opened already (one of several servers sharing it).
func withServer(
    on database: any ServerDatabase, options: ServerOptions = ServerOptions(), network: Bool = false,
    tls: (certificate: String, key: String)? = nil, gracefully: Bool = false, throttle: SignInThrottle = .init(),
    setupToken: String? = nil,
    _ body: (_ url: String, _ database: any ServerDatabase, _ accounts: AccountService) async throws -> Void
) async throws {
    let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4), throttle: throttle)
    if let setupToken { try await accounts.offerSetup(secret: setupToken) }
    var logger = Logger(label: "cardbox.test-server")
    logger.logLevel = .warning
    guard network || tls != nil || gracefully else {
        // No request comes "from this machine" without a socket: /metrics is read with a token.
        var options = options
        if options.metricsToken == nil { options.metricsToken = inProcessMetricsToken }
        let application = try CardboxApplication.make(
            database: database, accounts: accounts, options: options, host: "127.0.0.1", port: 0, logger: logger)
        // The router's test client runs `body` in a child task it awaits: the caller's closure is
        // not used concurrently with anything outside it.
        nonisolated(unsafe) let body = body
        try await application.test(.router) { client in
            try await InProcessServers.serving(client) { url in try await body(url, database, accounts) }
        }
        return
    }
    let server = try await LoopbackServer.start { [logger] onRunning in
        try CardboxApplication.make(
            database: database, accounts: accounts, options: options, host: "127.0.0.1", port: 0, tls: tls,
            logger: logger, onRunning: onRunning)
    }
    try await server.serving(stopGracefully: gracefully) { port in
        try await body("\(tls == nil ? "http" : "https")://127.0.0.1:\(port)", database, accounts)
    }
}

/// A new account (its name made unique: the PostgreSQL tests share one database) and `devices`
/// empty stores signed in to it.
func newAccount(
    _ prefix: String, plan: Plan = .free, devices: Int, url: String, accounts: AccountService
) async throws -> (account: ServerAccount, devices: [CardboxStore]) {
    let name = "\(prefix)-\(UUID().uuidString.prefix(8))"
    let account = try await accounts.addAccount(name: name, password: "password \(prefix)", plan: plan)
    var stores: [CardboxStore] = []
    for _ in 0..<devices {
        stores.append(
            try await signIn(try CardboxStore.inMemory(), to: url, user: name, password: "password \(prefix)"))
    }
    return (account, stores)
}

/// A push or exchange sent as raw text, its length declared or (`chunked`) not: the status and body.
func rawPost(_ url: String, token: String, body: String, chunked: Bool = false) async throws -> (
    status: Int, body: String
) {
    var request = HTTPClientRequest(url: url)
    request.method = .POST
    request.headers.add(name: "Authorization", value: "Bearer \(token)")
    request.headers.add(name: "Content-Type", value: "application/json")
    if chunked {
        let parts = AsyncStream<ByteBuffer> { parts in
            parts.yield(ByteBuffer(string: body))
            parts.finish()
        }
        request.body = .stream(parts, length: .unknown)
    } else {
        request.body = .bytes(ByteBuffer(string: body))
    }
    let response = try await TestTransport.devices.send(request, timeout: .seconds(30))
    let bytes = try await response.body.collect(upTo: 1 << 22)
    return (Int(response.status.code), String(buffer: bytes))
}

/// How the server refused what `body` sent, or nil when it took it.
func refusal(_ body: () async throws -> Void) async -> (status: Int, message: String)? {
    do {
        try await body()
        return nil
    } catch SyncClientError.refused(let status, let message) {
        return (status, message)
    } catch {
        return (0, "\(error)")
    }
}

/// Signs a store in as a device would (`cardbox login`): joins the account, keeps the token.
func signIn(_ store: CardboxStore, to url: String, user: String, password: String) async throws -> CardboxStore {
    let signedIn = try await ServerConnection(server: url, token: nil, transport: TestTransport.devices).signIn(
        user: user, password: password, device: "test device")
    let joined = try store.joinAccount(signedIn.account.id)
    try joined.saveSyncLink(SyncLink(server: url, user: user, token: signedIn.token))
    return joined
}

@Suite("Sync over HTTP")
struct HTTPSyncTests {
    @Test("stores with data of their own join one account and converge through the server", arguments: SyncStates.all)
    func joinAndConverge(_ implementation: String) async throws {
        try await withServer(implementation) { url, _, accounts in
            let name = "ana-\(UUID().uuidString.prefix(8))"
            _ = try await accounts.addAccount(name: name, password: "correct horse", plan: .premium)
            // Each device has data before it ever signs in.
            let phone = try CardboxStore.inMemory()
            let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            _ = try phone.addCard(to: deck.id, CardDraft(front: "hola", back: "hello", tags: ["greeting"]))
            let laptop = try CardboxStore.inMemory()
            let list = try laptop.createList(name: "Groceries")
            _ = try laptop.addItem(to: list.id, title: "Milk")
            let phoneIn = try await signIn(phone, to: url, user: name, password: "correct horse")
            let laptopIn = try await signIn(laptop, to: url, user: name, password: "correct horse")
            #expect(phoneIn.accountId == laptopIn.accountId && phoneIn.accountId != phone.accountId)
            for store in [phoneIn, laptopIn, phoneIn] { _ = try await DeviceSync(testing: store).sync() }
            #expect(try phoneIn.canonicalDump() == laptopIn.canonicalDump())
            #expect(try laptopIn.decks().map(\.name) == ["Spanish"])
            #expect(try phoneIn.lists().map(\.name) == ["Groceries"])
            // The tag's id is derived from the new account, so both devices would mint the same one.
            let tag = try laptopIn.tags().first
            #expect(tag?.name == "greeting")
            #expect(try DeviceSync(testing: phoneIn).status().pending == 0)
            // An edit on one device reaches the other.
            let card = try laptopIn.cards(in: deck.id)[0]
            _ = try laptopIn.editCard(card.id, CardChanges(back: "hi"))
            #expect(try DeviceSync(testing: laptopIn).status().pending == 1)
            _ = try await DeviceSync(testing: laptopIn).sync()
            _ = try await DeviceSync(testing: phoneIn).sync()
            #expect(try phoneIn.card(card.id).back == "hi")
        }
    }

    @Test(
        "a first upload in many batches is not pulled back to the device that sent it",
        arguments: SyncStates.all)
    func uploadNotPulledBack(_ implementation: String) async throws {
        try await withServer(implementation) { url, database, accounts in
            let name = "ana-\(UUID().uuidString.prefix(8))"
            _ = try await accounts.addAccount(name: name, password: "correct horse", plan: .premium)
            let phone = try await signIn(try CardboxStore.inMemory(), to: url, user: name, password: "correct horse")
            _ = try phone.setPlan(.premium)
            let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            _ = try phone.addCards(to: deck.id, (0..<30).map { CardDraft(front: "word \($0)", back: "w") })
            var sync = DeviceSync(testing: phone)
            sync.batchSize = 7
            let report = try await sync.sync()
            #expect(report.pushed > 4 * sync.batchSize && report.pulled == 0)
            // It holds everything the account has, as far as the server's cursor.
            #expect(try phone.syncLink()?.received == (try await database.cursor(account: phone.accountId)))
        }
    }

    @Test("a device holds what its pushes added only while each follows the last; once another came between, not")
    func pushChain() {
        var chain = PushChain(held: 10)
        chain.pushed(PushReceipt(cursor: 15, wasRetry: false, previousCursor: 10))
        chain.pushed(PushReceipt(cursor: 20, wasRetry: false, previousCursor: 15))
        #expect(chain.held == 20)
        // Another device pushed 21-24: the device holds none of it, nor anything after.
        chain.pushed(PushReceipt(cursor: 30, wasRetry: false, previousCursor: 24))
        chain.pushed(PushReceipt(cursor: 35, wasRetry: false, previousCursor: 30))
        #expect(chain.held == 20)
        // A retry's receipt does not say what came before it.
        var retried = PushChain(held: 5)
        retried.pushed(PushReceipt(cursor: 9, wasRetry: true, previousCursor: nil))
        #expect(retried.held == 5)
    }

    @Test(
        "a device that holds nothing takes the server's copy of its account whole, then syncs both ways",
        arguments: SyncStates.all)
    func snapshotForNewDevice(_ implementation: String) async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: cache) }
        var options = ServerOptions()
        options.replicaFolder = cache
        try await withServer(implementation, options: options) { url, _, accounts in
            let name = "di-\(UUID().uuidString.prefix(8))"
            let other = "ed-\(UUID().uuidString.prefix(8))"
            _ = try await accounts.addAccount(name: name, password: "password di", plan: .premium)
            _ = try await accounts.addAccount(name: other, password: "password ed", plan: .premium)
            let phone = try await signIn(try CardboxStore.inMemory(), to: url, user: name, password: "password di")
            _ = try phone.setPlan(.premium)
            let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            let cards = try phone.addCards(
                to: deck.id, (0..<30).map { CardDraft(front: "w\($0)", back: "v", tags: ["verbs"]) })
            try phone.deleteTag("verbs")
            #expect(try await DeviceSync(testing: phone).sync().snapshot == false)
            // Another account's data is never in this account's copy.
            let stranger = try await signIn(try CardboxStore.inMemory(), to: url, user: other, password: "password ed")
            _ = try stranger.createList(name: "Secret")
            _ = try await DeviceSync(testing: stranger).sync()

            let path = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-\(UUID()).sqlite").path
            let laptop = try await signIn(
                try CardboxStore.open(path: path), to: url, user: name, password: "password di")
            let pulls = try await requests(url, route: "/v1/sync/pull")
            let report = try await DeviceSync(testing: laptop).sync()
            #expect(report.snapshot && report.pulled == 0)
            // The snapshot holds everything pushed before it was asked for: it was the sync's pull.
            #expect(try await requests(url, route: "/v1/sync/pull") == pulls)
            #expect(try laptop.syncLink()?.lastSync != nil && laptop.allowance().plan == .premium)
            #expect(try laptop.canonicalDump() == phone.canonicalDump())
            #expect(try laptop.lists().isEmpty && laptop.cards(in: deck.id).count == 30)
            #expect(try DeviceSync(testing: laptop).status().pending == 0)
            // Both ways after it: the laptop's edit reaches the phone, and the phone's the laptop.
            _ = try laptop.editCard(cards[0].id, CardChanges(back: "from the laptop"))
            _ = try phone.editCard(cards[1].id, CardChanges(back: "from the phone"))
            for store in [laptop, phone, laptop] { _ = try await DeviceSync(testing: store).sync() }
            #expect(try phone.card(cards[0].id).back == "from the laptop")
            #expect(try laptop.card(cards[1].id).back == "from the phone")
            #expect(try laptop.canonicalDump() == phone.canonicalDump())
            // A device that has synced before never takes a snapshot again.
            #expect(try await DeviceSync(testing: laptop).sync().snapshot == false)
        }
    }

    @Test("a snapshot whose bytes are not the ones the server hashed is refused; the sync goes on without it")
    func damagedSnapshot() async throws {
        // A server that answers the snapshot route with bytes that do not match its hash.
        let router = Router()
        router.get("v1/sync/snapshot") { _, _ in
            Response(
                status: .ok,
                headers: [
                    .contentType: "application/vnd.sqlite3", SyncAPI.cursorHeader: "7",
                    SyncAPI.snapshotHashHeader: sha256Hex(Data("other bytes".utf8)),
                ],
                body: .init(byteBuffer: ByteBuffer(string: "SQLite format 3\0 and then some damage")))
        }
        try await LoopbackServer.start(router).serving { bound in
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-\(UUID()).sqlite").path
            await #expect(
                throws: CardboxError.invalid(
                    field: "snapshot", reason: "arrived damaged: its SHA-256 is not the one the server sent")
            ) {
                _ = try await ServerConnection(
                    server: "http://127.0.0.1:\(bound)", token: "t", transport: TestTransport.devices
                ).snapshot(to: path)
            }
            let store = try CardboxStore.inMemory()
            try store.saveSyncLink(SyncLink(server: "http://127.0.0.1:\(bound)", user: "u", token: "t"))
            // The sync goes on record by record (this server has nothing more to say, so it fails there).
            await #expect(throws: SyncClientError.self) { try await DeviceSync(testing: store).sync() }
            #expect(try store.holdsNothingOfItsOwn())
            #expect(try store.syncLink()?.received == 0)
        }
    }

    @Test(
        "the free plan's 25 cards hold across devices; refused changes stay pending; premium lifts it",
        arguments: ["sqlite-memory", "postgres"])
    func planLimitAcrossDevices(_ implementation: String) async throws {
        try await withServer(implementation) { url, database, accounts in
            let (account, devices) = try await newAccount("cy", devices: 2, url: url, accounts: accounts)
            let (phone, laptop) = (devices[0], devices[1])
            let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            _ = try phone.addCards(to: deck.id, (0..<20).map { CardDraft(front: "p\($0)", back: "p") })
            _ = try await DeviceSync(testing: phone).sync()
            // Offline, the laptop sees none of them and adds ten of its own: 30 of 25 once merged.
            let own = try laptop.createDeck(name: "French", frontLanguage: "fr", backLanguage: "en")
            _ = try laptop.addCards(to: own.id, (0..<10).map { CardDraft(front: "l\($0)", back: "l") })
            let hardware = try laptop.createList(name: "Hardware")
            _ = try laptop.addItem(to: hardware.id, title: "Nails", description: "", quantity: 100)
            let seed001 = "Card limit exceeded. You have 20 cards out of 25 allowed. 5 cards remaining."
            await #expect {
                try await DeviceSync(testing: laptop).sync()
            } throws: { error in
                (error as? SyncClientError)?.errorDescription?.contains(seed001) == true
            }
            let status = try DeviceSync(testing: laptop).status()
            #expect(status.pending > 10 && status.lastError?.contains(seed001) == true)
            // The phone's cards still arrived; the laptop's own stay pending, not lost.
            #expect(try laptop.cards(in: deck.id).count == 20 && laptop.cards(in: own.id).count == 10)
            // Only the cards wait for room: the deck, list and item made beside them went through.
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try phone.lists().map(\.name) == ["Hardware"] && phone.cards(in: own.id).isEmpty)
            #expect(try phone.list(hardware.id).items?.map(\.title) == ["Nails"])
            try await database.setPlan(.premium, account: account.id)
            _ = try await DeviceSync(testing: laptop).sync()
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try DeviceSync(testing: laptop).status().pending == 0)
            #expect(try laptop.allowance().plan == .premium && phone.allowance().plan == .premium)
            #expect(try phone.cards(in: own.id).count == 10)
            // Each device wrote the new plan; one more round and both hold the same writes.
            _ = try await DeviceSync(testing: laptop).sync()
            #expect(try phone.canonicalDump() == laptop.canonicalDump())
        }
    }

    @Test("a sync cut short after some of its batches does not pull them back when it runs again")
    func interruptedSyncKeepsItsPlace() async throws {
        try await withServer("sqlite-memory") { url, _, accounts in
            let phone = try await newAccount("ivo", plan: .premium, devices: 1, url: url, accounts: accounts).devices[0]
            for index in 0..<25 { _ = try phone.createList(name: "List \(index)") }
            var sync = DeviceSync(testing: phone)
            sync.batchSize = 10
            // Cut short once two batches of three are in (its own task cancelled, as by Ctrl-C).
            let cut = Task { [sync] in
                try await sync.sync(progress: { step in
                    if step.phase == .push && step.done >= 20 { withUnsafeCurrentTask { $0?.cancel() } }
                })
            }
            if case .success = await cut.result { Issue.record("the sync was not cut short") }
            #expect(try phone.syncLink()?.received ?? 0 > 0)
            // The last batch (6 records: 25 lists and the account) may have reached the server before
            // the cut or not: at most it comes back, never the two batches whose receipts came.
            let again = try await sync.sync()
            #expect(again.pulled <= 6, "pulled \(again.pulled) of its own records back")
            #expect(try DeviceSync(testing: phone).status().pending == 0)
        }
    }

    @Test(
        "an exchange hands back nothing when only the device's own push came after its cursor, else the rest",
        arguments: ["sqlite-memory", "postgres"])
    func exchangeSkipsOwnEcho(_ implementation: String) async throws {
        try await withServer(implementation) { url, database, accounts in
            let (account, devices) = try await newAccount("eli", devices: 2, url: url, accounts: accounts)
            let (phone, laptop) = (devices[0], devices[1])
            let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            _ = try await DeviceSync(testing: phone).sync()
            // The phone has pulled everything: its next exchange has nothing to hand back.
            _ = try phone.renameDeck(deck.id, to: "Español")
            var link = try #require(try phone.syncLink())
            let connection = try ServerConnection(server: url, token: link.token, transport: TestTransport.devices)
            let own = try await connection.exchange(
                try phone.changes(since: link.sent).changes, batch: UUID(), after: link.received, limit: 100)
            #expect(own.changes.isEmpty && !own.hasMore)
            #expect(try await own.cursor == database.cursor(account: account.id))
            link.received = own.cursor
            try phone.saveSyncLink(link)
            // The laptop pushes; the phone's next exchange brings the laptop's list.
            _ = try laptop.createList(name: "Groceries")
            _ = try await DeviceSync(testing: laptop).sync()
            _ = try phone.renameDeck(deck.id, to: "Spanish")
            let mixed = try await connection.exchange(
                try phone.changes(since: link.sent).changes, batch: UUID(), after: link.received, limit: 100)
            #expect(mixed.changes.rows.contains { $0.entity == .itemList })
            #expect(try await mixed.cursor == database.cursor(account: account.id))
            // Whole syncs after: both devices hold the same.
            for store in [phone, laptop, phone] { _ = try await DeviceSync(testing: store).sync() }
            #expect(try phone.canonicalDump() == laptop.canonicalDump())
            #expect(try laptop.deck(deck.id).name == "Spanish")
        }
    }

    @Test(
        "a push is read while its token is checked: a revoked or unknown device's push or exchange, small or large, gets 401 and writes nothing",
        arguments: ["sqlite-memory", "postgres"])
    func pushWaitsForItsTokensCheck(_ implementation: String) async throws {
        try await withServer(implementation) { url, database, accounts in
            let (account, devices) = try await newAccount(
                "ida", plan: .premium, devices: 1, url: url, accounts: accounts)
            let phone = devices[0]
            let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            _ = try await DeviceSync(testing: phone).sync()
            let before = try await database.cursor(account: account.id)
            _ = try phone.renameDeck(deck.id, to: "Español")
            let small = try phone.changes(since: try #require(try phone.syncLink()).sent).changes
            // Past the body size a push may send before its token has passed (read only after).
            _ = try phone.addCards(to: deck.id, (0..<400).map { CardDraft(front: "word \($0)", back: "Wort \($0)") })
            let large = try phone.changes(since: try #require(try phone.syncLink()).sent).changes
            #expect(large.jsonText.utf8.count > 65_536 && small.jsonText.utf8.count < 65_536)
            let token = try #require(try phone.syncLink()).token
            let device = try #require(DeviceToken(token)).device
            // A device nobody signed in: its token names the account but no device of it.
            let unknown = DeviceToken.mint(account: account.id, device: UUID()).text
            #expect(try await database.revokeDevice(device, account: account.id, now: Date()))
            // The token passed its last check here, so its next push is read before its check comes
            // back; whatever is wrong with the push, the answer is the check's 401, then as before.
            for (path, body) in [
                ("/v1/sync/push?batch=\(UUID())", "{not json"), ("/v1/sync/push?batch=nope", small.jsonText),
                ("/v1/sync/exchange?batch=\(UUID())&after=-1", small.jsonText),
            ] {
                let answer = try await rawPost(url + path, token: token, body: body)
                #expect(answer.status == 401 && answer.body.contains("sign in first"))
            }
            for token in [token, unknown] {
                let connection = try ServerConnection(server: url, token: token, transport: TestTransport.devices)
                for changes in [small, large] {
                    let refusals = [
                        await refusal { _ = try await connection.push(changes, batch: UUID()) },
                        await refusal {
                            _ = try await connection.exchange(changes, batch: UUID(), after: before, limit: 100)
                        },
                    ]
                    for refused in refusals {
                        #expect(refused?.status == 401 && refused?.message.contains("sign in first") == true)
                    }
                }
            }
            #expect(try await database.cursor(account: account.id) == before)
            let stored = try await database.pull(account: account.id, after: 0, limit: 1_000).changes
            #expect(
                !stored.rows.contains { $0.entity == .card } && stored.rows.contains { $0.id == deck.id.description })
        }
    }

    @Test(
        "a push of unknown length (chunked) waits for its token's check, then goes through; with a bad token, 401",
        arguments: ["sqlite-memory", "postgres"])
    func chunkedPush(_ implementation: String) async throws {
        try await withServer(implementation, network: true) { url, database, accounts in
            let (account, devices) = try await newAccount("jo", devices: 1, url: url, accounts: accounts)
            let phone = devices[0]
            _ = try phone.createList(name: "Groceries")
            let link = try #require(try phone.syncLink())
            let changes = try phone.changes(since: link.sent).changes.jsonText
            let forged = DeviceToken.mint(account: account.id, device: UUID()).text
            let refused = try await rawPost(
                url + "/v1/sync/push?batch=\(UUID())", token: forged, body: changes, chunked: true)
            #expect(refused.status == 401)
            #expect(try await database.cursor(account: account.id) == 0)
            let taken = try await rawPost(
                url + "/v1/sync/exchange?batch=\(UUID())&after=0", token: link.token, body: changes, chunked: true)
            #expect(taken.status == 200 && taken.body.contains("\"pushed\""))
            #expect(try await database.cursor(account: account.id) > 0)
        }
    }

    @Test(
        "a push after the plan went from premium to free is held to the free plan's 25 cards, though the server last saw the account unlimited",
        arguments: ["sqlite-memory", "postgres"])
    func downgradedPlan(_ implementation: String) async throws {
        try await withServer(implementation) { url, database, accounts in
            let (account, devices) = try await newAccount(
                "kim", plan: .premium, devices: 1, url: url, accounts: accounts)
            let phone = devices[0]
            let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            _ = try await DeviceSync(testing: phone).sync()
            // The phone still holds the premium plan: its cards are written here, and refused there.
            _ = try phone.addCards(to: deck.id, (0..<26).map { CardDraft(front: "w\($0)", back: "w") })
            try await database.setPlan(.free, account: account.id)
            await #expect {
                try await DeviceSync(testing: phone).sync()
            } throws: { error in
                (error as? SyncClientError)?.errorDescription?.contains(
                    "Card limit exceeded. You have 0 cards out of 25")
                    == true
            }
            let stored = try await database.pull(account: account.id, after: 0, limit: 1_000).changes
            #expect(!stored.rows.contains { $0.entity == .card })
        }
    }

    @Test("a device waiting for news hears of another device's push at once", arguments: ["sqlite-memory", "postgres"])
    func news(_ implementation: String) async throws {
        // Polls far apart (ten minutes), so only the push itself can wake the device within two, however
        // starved of CPU the machine is.
        var options = ServerOptions()
        options.newsPollInterval = .seconds(600)
        try await withServer(implementation, options: options, network: true) { url, _, accounts in
            let devices = try await newAccount("dee", devices: 2, url: url, accounts: accounts).devices
            let (phone, laptop) = (devices[0], devices[1])
            _ = try await DeviceSync(testing: laptop).sync()
            let link = try #require(try laptop.syncLink())
            #expect(try await metric(url, "cardbox_event_streams") == 0)
            let (opened, open) = AsyncStream.makeStream(of: Void.self)
            // Waited for until the stream is open, or has failed (then `listening` says how).
            let listening = Task {
                defer { open.finish() }
                return try await ServerConnection(server: url, token: link.token, transport: TestTransport.devices)
                    .news(after: link.received) {
                        open.finish()
                    }
            }
            for await _ in opened {}
            #expect(try await metric(url, "cardbox_event_streams") == 1)
            _ = try phone.createList(name: "Groceries")
            let start = ContinuousClock.now
            _ = try await DeviceSync(testing: phone).sync()
            let told = try await listening.value
            #expect(ContinuousClock.now - start < .seconds(120))
            #expect(told.map { $0 > link.received } == true)
            _ = try await DeviceSync(testing: laptop).sync()
            #expect(try laptop.lists().map(\.name) == ["Groceries"])
        }
    }

    @Test(
        "a server that stops, cancelled or gracefully, ends its event streams at once, not a poll interval later",
        arguments: [false, true])
    func stoppingEndsNews(gracefully: Bool) async throws {
        var options = ServerOptions()
        options.newsPollInterval = .seconds(600)
        var stopping = ContinuousClock.now
        var listening: Task<Int64?, any Error>?
        try await withServer("sqlite-memory", options: options, network: true, gracefully: gracefully) {
            url, _, accounts in
            _ = try await accounts.addAccount(name: "fen", password: "password fen")
            let laptop = try await signIn(try CardboxStore.inMemory(), to: url, user: "fen", password: "password fen")
            let link = try #require(try laptop.syncLink())
            let (opened, open) = AsyncStream.makeStream(of: Void.self)
            listening = Task {
                defer { open.finish() }
                return try await ServerConnection(server: url, token: link.token, transport: TestTransport.devices)
                    .news(after: link.received) {
                        open.finish()
                    }
            }
            for await _ in opened {}
            stopping = .now
        }
        #expect(ContinuousClock.now - stopping < .seconds(120))
        listening?.cancel()
    }

    @Test("a change set larger than a request may be goes as several batches; a pull page ends at a size too")
    func largeChangeSets() async throws {
        try await withServer("sqlite-memory") { url, _, accounts in
            _ = try await accounts.addAccount(name: "ida", password: "password ida")
            let phone = try await signIn(try CardboxStore.inMemory(), to: url, user: "ida", password: "password ida")
            let laptop = try await signIn(try CardboxStore.inMemory(), to: url, user: "ida", password: "password ida")
            let list = try phone.createList(name: "Notes")
            _ = try phone.addItems(
                to: list.id,
                (0..<40).map { ItemDraft(title: "note \($0)", description: String(repeating: "é", count: 2_000)) })
            let changes = try phone.changes().changes
            // Requests of at most 20 kB: the 41 records (about 4 kB each) go as several pieces.
            let connection = try ServerConnection(
                server: url, token: try #require(try phone.syncLink()).token, transport: TestTransport.devices,
                requestBytes: 20_000)
            let pieces = connection.pieces(of: changes)
            #expect(pieces.count > 8 && pieces.allSatisfy { $0.utf8.count <= 20_000 })
            #expect(try pieces.map { try ChangeSet.parse($0).rows.count }.reduce(0, +) == changes.rows.count)
            _ = try await connection.push(changes, batch: UUID())
            _ = try await DeviceSync(testing: laptop).sync()
            #expect(try laptop.list(list.id).items?.count == 40)
        }
        // A pull page holds at most `limit` records, and ends before passing its size.
        let records = try (1...5).map {
            try PulledRecord(
                seq: Int64($0), entity: "item", id: UUID().uuidString.lowercased(), record: nil, hlc: 1, replica: "r")
        }
        let page = PullPage(records, account: UUID(), after: 0, limit: 4, maximumBytes: records[0].bytes * 2 + 1)
        #expect(page.changes.tombstones.count == 2 && page.cursor == 2 && page.hasMore)
        let one = PullPage(records, account: UUID(), after: 0, limit: 4, maximumBytes: 1)
        #expect(one.changes.tombstones.count == 1 && one.hasMore)
        let all = PullPage(Array(records.prefix(3)), account: UUID(), after: 0, limit: 4)
        #expect(all.changes.tombstones.count == 3 && all.cursor == 3 && !all.hasMore)
    }

    @Test("an item's image travels by its SHA-256: uploaded once, fetched by the other device")
    func images() async throws {
        try await withServer("sqlite-memory") { url, database, accounts in
            let account = try await accounts.addAccount(name: "eve", password: "password eve")
            let phone = try await signIn(try CardboxStore.inMemory(), to: url, user: "eve", password: "password eve")
            let laptop = try await signIn(try CardboxStore.inMemory(), to: url, user: "eve", password: "password eve")
            let list = try phone.createList(name: "Groceries")
            let item = try phone.addItem(to: list.id, title: "Milk")
            let image = try phone.addItemImage(to: item.id, data: ImageStoreContractTests.png)
            let sent = try await DeviceSync(testing: phone).sync()
            #expect(sent.imagesSent == 1)
            #expect(try await database.image(image.sha256, account: account.id)?.data == ImageStoreContractTests.png)
            let received = try await DeviceSync(testing: laptop).sync()
            #expect(received.imagesReceived == 1)
            #expect(try laptop.imageData(sha256: image.sha256).data == ImageStoreContractTests.png)
            #expect(try laptop.missingImageHashes().isEmpty)
            // A second sync sends nothing again.
            // Asked once per set of images: a sync with the same images asks the server nothing.
            let asked = try await imageChecks(url)
            #expect(asked >= 1)
            #expect(try await DeviceSync(testing: phone).sync().imagesSent == 0)
            #expect(try await imageChecks(url) == asked)
            // Bytes that are not an image, or not the hash named, are refused with a JSON 400.
            let token = try #require(try phone.syncLink()).token
            let wrong = try await rawRequest(
                .PUT, url + "/v1/images/\(image.sha256)", body: Data("plain text".utf8), token: token)
            #expect(wrong.status == 400 && wrong.body.contains("error"))
            // More bytes than an image may have: a JSON 413 naming the limit, whatever the size.
            for size in [Limits.imageBytes + 1, Limits.imageBytes + 2, 6_000_000] {
                let large = try await rawRequest(
                    .PUT, url + "/v1/images/\(image.sha256)", body: Data(count: size), token: token)
                #expect(large.status == 413 && large.body.contains("at most 5 MB"))
            }
            // Another account cannot read it.
            _ = try await accounts.addAccount(name: "mallory", password: "password mallory")
            let stranger = try await signIn(
                try CardboxStore.inMemory(), to: url, user: "mallory", password: "password mallory")
            let strangerToken = try #require(try stranger.syncLink()).token
            #expect(
                try await ServerConnection(server: url, token: strangerToken, transport: TestTransport.devices).image(
                    image.sha256) == nil)
        }
    }

    @Test(
        "each account has its own request rate; past it, 429 with Retry-After",
        arguments: ["sqlite-memory", "postgres"])
    func rateLimit(_ implementation: String) async throws {
        // A burst of two, then one request each 10 s: the rest of 40 wait, however slow the machine.
        var options = ServerOptions()
        options.requestsPerSecond = 0.1
        try await withServer(implementation, options: options) { url, _, accounts in
            let (fayName, gusName) = ("fay-\(UUID().uuidString.prefix(8))", "gus-\(UUID().uuidString.prefix(8))")
            _ = try await accounts.addAccount(name: fayName, password: "password fay")
            _ = try await accounts.addAccount(name: gusName, password: "password gus")
            let fay = try await ServerConnection(server: url, token: nil, transport: TestTransport.devices).signIn(
                user: fayName, password: "password fay", device: "d")
            let gus = try await ServerConnection(server: url, token: nil, transport: TestTransport.devices).signIn(
                user: gusName, password: "password gus", device: "d")
            var refused = 0
            for _ in 0..<40 {
                do {
                    _ = try await ServerConnection(server: url, token: fay.token, transport: TestTransport.devices)
                        .plan()
                } catch SyncClientError.refused(status: 429, let message) {
                    refused += 1
                    #expect(message.contains("too many requests"))
                }
            }
            #expect(refused >= 1)
            // A push is read beside its token's check, and refused with the same 429.
            let empty = ChangeSet(accountId: fay.account.id, replicaId: UUID().uuidString.lowercased())
            await #expect {
                for _ in 0..<5 {
                    _ = try await ServerConnection(server: url, token: fay.token, transport: TestTransport.devices)
                        .push(empty, batch: UUID())
                }
            } throws: { error in
                guard case SyncClientError.refused(429, let message) = error else { return false }
                return message.contains("too many requests")
            }
            #expect(
                try await ServerConnection(server: url, token: gus.token, transport: TestTransport.devices).plan()
                    == .free)
        }
    }

    @Test(
        "only a token whose last check passed may start its push before the check: another secret, or a failed check, may not"
    )
    func recentCallers() {
        let recent = RecentCallers()
        let token = DeviceToken.mint(account: UUID(), device: UUID())
        let other = DeviceToken.mint(account: token.account, device: token.device)
        #expect(!recent.passed(token.device, token.secretHash))
        recent.note(token.device, secretHash: token.secretHash, passed: true)
        #expect(recent.passed(token.device, token.secretHash) && !recent.passed(other.device, other.secretHash))
        recent.note(token.device, secretHash: token.secretHash, passed: false)
        #expect(!recent.passed(token.device, token.secretHash))
        // What the server remembers is bounded: a new key past the capacity starts it again.
        let memory = BoundedMemory<Int, Bool>(capacity: 2)
        memory[1] = true
        memory[2] = false
        memory[2] = true
        #expect(memory[1] == true && memory[2] == true)
        memory[3] = true
        #expect(memory[1] == nil && memory[2] == nil && memory[3] == true)
    }

    @Test("the rate is a token bucket per account: bursts of 20 seconds' worth, then the average")
    func tokenBucket() async {
        let limiter = RateLimiter(perSecond: 2)
        let start = ContinuousClock.now
        let account = UUID()
        for _ in 0..<40 { #expect(await limiter.take(account, now: start) == nil) }
        #expect(await limiter.take(account, now: start) == 1)
        #expect(await limiter.take(UUID(), now: start) == nil)
        // Half a second later, one more token.
        #expect(await limiter.take(account, now: start + .milliseconds(500)) == nil)
        #expect(await limiter.take(account, now: start + .milliseconds(500)) != nil)
    }

    @Test("with a certificate and key it speaks HTTPS")
    func tls() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-tls-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificate = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout", key,
            "-out", certificate,
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try await withServer("sqlite-memory", tls: (certificate, key)) { url, _, accounts in
            #expect(url.hasPrefix("https://"))
            _ = try await accounts.addAccount(name: "hal", password: "password hal")
            var configuration = HTTPClient.Configuration()
            configuration.tlsConfiguration = .makeClientConfiguration()
            configuration.tlsConfiguration?.certificateVerification = .none
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            let signedIn = try await ServerConnection(server: url, token: nil, transport: client).signIn(
                user: "hal", password: "password hal", device: "d")
            #expect(signedIn.account.name == "hal")
            // Plain HTTP to the HTTPS port gets no answer.
            let plain = url.replacingOccurrences(of: "https://", with: "http://")
            await #expect(throws: SyncClientError.self) {
                try await ServerConnection(server: plain, token: nil, transport: TestTransport.devices).signIn(
                    user: "hal", password: "password hal", device: "d")
            }
            try await client.shutdown()
        }
    }

    @Test("every request is scoped to its token's account; bad requests get a JSON 4xx and change nothing")
    func scopedAndRefused() async throws {
        try await withServer("sqlite-memory") { url, database, accounts in
            let ana = try await accounts.addAccount(name: "ana", password: "password ana")
            let ben = try await accounts.addAccount(name: "ben", password: "password ben")
            let anaStore = try await signIn(try CardboxStore.inMemory(), to: url, user: "ana", password: "password ana")
            _ = try anaStore.createDeck(name: "Private", frontLanguage: "es", backLanguage: "en")
            _ = try await DeviceSync(testing: anaStore).sync()
            let benStore = try await signIn(try CardboxStore.inMemory(), to: url, user: "ben", password: "password ben")
            let benLink = try #require(try benStore.syncLink())
            let asBen = try ServerConnection(server: url, token: benLink.token, transport: TestTransport.devices)
            // Ben's pulls see none of Ana's records, whatever cursor he asks from.
            #expect(
                try await asBen.pull(after: 0, limit: 100).changes.rows.allSatisfy {
                    $0.id != ana.id.uuidString.lowercased()
                })
            #expect(try await asBen.pull(after: 0, limit: 100).changes.isEmpty)
            // Ben pushing Ana's change set (her account id in it) is refused whole.
            let anaChanges = try anaStore.changes().changes
            await #expect(throws: SyncClientError.self) { try await asBen.push(anaChanges, batch: UUID()) }
            // No token, a forged one, a revoked one: 401.
            for token in [nil, "cbx1.forged", benLink.token] as [String?] {
                if token == benLink.token {
                    let device = try await database.devices(account: ben.id)[0]
                    _ = try await database.revokeDevice(device.id, account: ben.id, now: Date())
                }
                await #expect(throws: SyncClientError.self) {
                    try await ServerConnection(server: url, token: token, transport: TestTransport.devices).pull(
                        after: 0, limit: 10)
                }
            }
            // Malformed bodies: a clear error, nothing applied.
            let anaLink = try #require(try anaStore.syncLink())
            let before = try await database.pull(account: ana.id, after: 0, limit: 1_000).cursor
            for body in ["{", "[]", #"{"format": "cardbox-changes", "version": 99}"#] {
                let answer = try await rawPost(url + "/v1/sync/push?batch=\(UUID())", body: body, token: anaLink.token)
                #expect(answer.status == 400 && answer.body.contains("\"error\""))
            }
            let missingBatch = try await rawPost(url + "/v1/sync/push", body: "{}", token: anaLink.token)
            #expect(missingBatch.status == 400 && missingBatch.body.contains("batch"))
            // An exchange whose page is asked for wrongly merges nothing of its (valid) change set.
            _ = try anaStore.createDeck(name: "Pending", frontLanguage: "fr", backLanguage: "en")
            let pending = try anaStore.changes(since: anaLink.sent).changes.jsonText
            for query in ["after=0&limit=0", "after=-1&limit=10", "after=x"] {
                let answer = try await rawPost(
                    url + "/v1/sync/exchange?batch=\(UUID())&\(query)", body: pending, token: anaLink.token)
                #expect(answer.status == 400 && answer.body.contains("\"error\""), "\(query)")
            }
            #expect(try await database.pull(account: ana.id, after: 0, limit: 1_000).cursor == before)
            // Ben's token cannot pull Ana's records through an exchange either.
            let benAgain = try await signIn(try CardboxStore.inMemory(), to: url, user: "ben", password: "password ben")
            let benPage = try await ServerConnection(
                server: url, token: try #require(try benAgain.syncLink()).token, transport: TestTransport.devices
            )
            .exchange(try benAgain.changes().changes, batch: UUID(), after: 0, limit: 100)
            #expect(
                benPage.changes.rows.allSatisfy { $0.entity == .account && $0.id == ben.id.uuidString.lowercased() })
            // Sign-up is closed unless the server opens it.
            let signUp = try await rawPost(url + "/v1/accounts", body: #"{"user":"eve","password":"password eve"}"#)
            #expect(signUp.status == 403)
            // A sign-in whose body lacks a member is refused naming it.
            let noDevice = try await rawPost(url + "/v1/sessions", body: #"{"user":"ana","password":"password ana"}"#)
            #expect(noDevice.status == 400)
            #expect(
                try WireCoding.decode(ErrorReply.self, from: Data(noDevice.body.utf8)).error
                    == "device: is required")
        }
    }
}

/// How many times devices asked the server which images it lacks (from its metrics).
func imageChecks(_ url: String) async throws -> Int { try await requests(url, route: "/v1/images/missing") }

/// The metrics token of servers `withServer` runs in process (a token the others ignore).
let inProcessMetricsToken = "in-process-metrics-0123456789"

/// How many requests the server has answered on `route` (from its metrics).
func requests(_ url: String, route: String) async throws -> Int {
    let metrics = try await rawRequest(.GET, url + "/metrics", body: Data(), token: inProcessMetricsToken).body
    let line = metrics.split(separator: "\n").first {
        $0.hasPrefix("cardbox_request_duration_seconds_count{") && $0.contains("route=\"\(route)\"")
    }
    return line.flatMap { Int(Double($0.split(separator: " ").last ?? "") ?? 0) } ?? 0
}

/// The value of a metric without labels (nil: `/metrics` has no such line).
func metric(_ url: String, _ name: String) async throws -> Double? {
    let metrics = try await rawRequest(.GET, url + "/metrics", body: Data(), token: inProcessMetricsToken).body
    let line = metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }
    return line.flatMap { Double($0.split(separator: " ").last ?? "") }
}

/// Posts text and returns the status and body as they came.
func rawPost(_ url: String, body: String, token: String? = nil) async throws -> (status: Int, body: String) {
    try await rawRequest(.POST, url, body: Data(body.utf8), token: token)
}

/// Sends a request and returns the status and body as they came.
func rawRequest(
    _ method: HTTPMethod, _ url: String, body: Data, token: String? = nil, headers: [(String, String)] = []
) async throws -> (status: Int, body: String) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    request.body = .bytes(ByteBuffer(bytes: body))
    if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await TestTransport.devices.send(request, timeout: .seconds(30))
    let bytes = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), String(buffer: bytes))
}
