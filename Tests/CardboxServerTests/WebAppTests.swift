import AsyncHTTPClient
import CardboxCore
import CardboxExchange
import CardboxImaging
import CardboxServer
import CardboxStore
import CardboxSync
import CardboxSyncClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import CardboxHTTP

/// A browser without a screen: keeps the session cookie, follows no redirect by itself (so each
/// answer can be checked), and posts forms as a page would.
final class TestBrowser: @unchecked Sendable {
    let base: String
    private let client = HTTPClient(
        eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    /// This browser's way to the server: into its router, or over the network with no redirect followed.
    private var transport: TestTransport { TestTransport(network: client) }
    var cookie: String?
    /// Headers sent with every request (a browser's `Origin`, say).
    var headers: [(String, String)] = []

    struct Answer {
        var status: Int
        var location: String?
        var body: String
        var setCookie: String?
        var cacheControl: String? = nil
    }

    init(_ base: String) { self.base = base }

    deinit { try? client.syncShutdown() }

    func get(_ path: String) async throws -> Answer { try await send(.GET, path, body: nil) }

    func post(_ path: String, _ fields: [String: String]) async throws -> Answer {
        let body = fields.map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }.joined(separator: "&")
        return try await send(.POST, path, body: body)
    }

    /// Posts a file as a page's multipart form would, beside the form's other fields; its address
    /// carries the form's CSRF token, as the page's form's does.
    /// A form with a file, posted as a browser posts it from a page of `site` (this server's own, or
    /// "cross-site": a forgery), saying so in `Sec-Fetch-Site`; such a form holds no CSRF token.
    func postFile(
        _ path: String, _ fields: [String: String], file: (name: String, data: Data), site: String = "same-origin"
    ) async throws -> Answer {
        headers.append(("Sec-Fetch-Site", site))
        defer { headers.removeLast() }
        let boundary = "----cardbox\(UUID().uuidString)"
        var body = Data()
        for (key, value) in fields where key != "csrf" {
            body.append(
                Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(key)\"\r\n\r\n\(value)\r\n".utf8))
        }
        body.append(
            Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"photo\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                    .utf8))
        body.append(file.data)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return try await send(.POST, path, body: body, contentType: "multipart/form-data; boundary=\(boundary)")
    }

    /// Posts JSON as the page's script does (`/api/v1` with the session cookie and `X-CSRF-Token`).
    func postJSON(_ path: String, _ json: String, csrf: String) async throws -> Answer {
        headers.append(("X-CSRF-Token", csrf))
        defer { headers.removeLast() }
        return try await send(.POST, path, body: Data(json.utf8), contentType: "application/json")
    }

    /// The CSRF token a page of this session carries in its forms.
    func csrf() async throws -> String {
        let page = try await get("/decks").body
        guard let range = page.range(of: #"name="csrf" value="[0-9a-f]+""#, options: .regularExpression) else {
            throw CardboxError.invalid(field: "page", reason: "has no form with a CSRF token")
        }
        return String(page[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
    }

    private func send(_ method: HTTPMethod, _ path: String, body: String?) async throws -> Answer {
        try await send(method, path, body: body.map { Data($0.utf8) }, contentType: "application/x-www-form-urlencoded")
    }

    private func send(_ method: HTTPMethod, _ path: String, body: Data?, contentType: String) async throws -> Answer {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        if let cookie { request.headers.add(name: "Cookie", value: cookie) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await transport.send(request, timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 22))
        let setCookie = response.headers.first(name: "Set-Cookie")
        if let setCookie, let pair = setCookie.split(separator: ";").first {
            cookie = pair.hasSuffix("=") ? nil : String(pair)
        }
        return Answer(
            status: Int(response.status.code), location: response.headers.first(name: "Location"), body: text,
            setCookie: setCookie, cacheControl: response.headers.first(name: "Cache-Control"))
    }

    private static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// HTML-escapes `text` as the templates do, to look for it in a page.
func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        .replacingOccurrences(of: "'", with: "&#39;")
}

@Suite("The web app")
struct WebAppTests {
    /// The setup link's token of the servers `withWebServer` starts.
    static let setupToken = "5e7c0a1b2c3d4e5f60718293a4b5c6d7"

    /// A server with copies of accounts in a new folder (the web app works on them).
    static func withWebServer(
        openSignup: Bool = false, trustedProxies: Set<String> = [], network: Bool = false,
        _ body: (_ url: String, _ database: any ServerDatabase, _ accounts: AccountService) async throws -> Void
    ) async throws {
        var options = ServerOptions(openSignup: openSignup)
        options.trustedProxies = trustedProxies
        options.replicaFolder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("cardbox-web-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: options.replicaFolder!) }
        try await withServer("sqlite-memory", options: options, network: network, setupToken: setupToken, body)
    }

    /// A browser signed in to a new account.
    static func signedIn(_ url: String, _ accounts: AccountService, plan: Plan = .free) async throws -> TestBrowser {
        let name = "ana-\(UUID().uuidString.prefix(8))"
        _ = try await accounts.addAccount(name: name, password: "correct horse", plan: plan)
        let browser = TestBrowser(url)
        let answer = try await browser.post("/signin", ["user": name, "password": "correct horse"])
        #expect(answer.status == 303 && answer.location == "/decks")
        return browser
    }

    /// A premium account with a browser signed in on its pages and a phone (a device store) signed in to sync.
    static func browserAndPhone(_ url: String, _ accounts: AccountService, plan: Plan = .premium) async throws -> (
        TestBrowser, CardboxStore
    ) {
        let name = "ana-\(UUID().uuidString.prefix(8))"
        _ = try await accounts.addAccount(name: name, password: "correct horse", plan: plan)
        let browser = TestBrowser(url)
        let answer = try await browser.post("/signin", ["user": name, "password": "correct horse"])
        #expect(answer.status == 303)
        let phone = try await signIn(CardboxStore.inMemory(), to: url, user: name, password: "correct horse")
        return (browser, phone)
    }

    /// A device token of a new premium account named `name`, for `/api/v1`.
    static func apiToken(_ accounts: AccountService, _ name: String) async throws -> String {
        try await apiCaller(accounts, name).token
    }

    /// A new account named `name` on `plan`, with a device token of it for `/api/v1`.
    static func apiCaller(_ accounts: AccountService, _ name: String, plan: Plan = .premium) async throws -> (
        account: ServerAccount, token: String
    ) {
        let account = try await accounts.addAccount(name: name, password: "correct horse", plan: plan)
        return (account, try await accounts.signIn(name: name, password: "correct horse", deviceName: "script").token)
    }

    /// Makes a deck (Spanish to English) through `/api/v1`: the status and body of the answer.
    static func apiCreateDeck(_ url: String, token: String, _ name: String) async throws -> (status: Int, body: String)
    {
        try await rawPost(
            url + "/api/v1/decks", body: #"{"name": "\#(name)", "frontLanguage": "es", "backLanguage": "en"}"#,
            token: token)
    }

    /// The account's card limit as `/api/v1/decks` gives it (absent: none).
    static func apiCardLimit(_ url: String, token: String) async throws -> JSONValue? {
        try json(try await rawRequest(.GET, url + "/api/v1/decks", body: Data(), token: token).body)["allowance"]?[
            "cardLimit"]
    }

    /// Makes a deck on the decks page and answers its path.
    static func createDeck(_ browser: TestBrowser, _ name: String) async throws -> String {
        let answer = try await browser.post(
            "/decks", ["csrf": try await browser.csrf(), "name": name, "front": "es", "back": "en"])
        #expect(answer.status == 303)
        return try #require(answer.location)
    }

    @Test("behind a trusted reverse proxy, the browser's host comes as X-Forwarded-Host and a form passes")
    func forwardedHost() async throws {
        try await Self.withWebServer(trustedProxies: ["127.0.0.1", "::1"], network: true) { url, _, _ in
            let proxied = TestBrowser(url)
            proxied.headers = [("Origin", "https://cards.example.com"), ("X-Forwarded-Host", "cards.example.com")]
            // It passes the check, and is refused for its short password.
            let behindProxy = try await proxied.post(
                "/setup?token=\(Self.setupToken)", ["user": "admin", "password": "short"])
            #expect(behindProxy.status == 400 && behindProxy.body.contains("password"))
        }
    }

    @Test("the setup link makes the first account and signs it in; then setup is closed")
    func firstRun() async throws {
        try await Self.withWebServer(network: true) { url, database, _ in
            let browser = TestBrowser(url)
            #expect(try await browser.get("/").location == "/setup")
            // A page of another site opened on this machine cannot post the form (nor sign-in's).
            for header in [("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site"), ("Origin", "null")] {
                let elsewhere = TestBrowser(url)
                elsewhere.headers = [header]
                for form in ["/setup", "/signin"] {
                    let refused = try await elsewhere.post(form, ["user": "eve", "password": "correct horse"])
                    #expect(refused.status == 403 && refused.body.contains("came from another site"))
                }
            }
            #expect(try await database.accounts().isEmpty)
            // X-Forwarded-Host from a client that is no trusted proxy is its own word: refused.
            let setup = "/setup?token=\(Self.setupToken)"
            let proxied = TestBrowser(url)
            proxied.headers = [("Origin", "https://cards.example.com"), ("X-Forwarded-Host", "cards.example.com")]
            let notProxy = try await proxied.post(setup, ["user": "admin", "password": "short"])
            #expect(notProxy.status == 403 && notProxy.body.contains("came from another site"))
            // The server's own page says it is: same origin.
            browser.headers = [("Origin", url), ("Sec-Fetch-Site", "same-origin")]
            let weak = try await browser.post(setup, ["user": "admin", "password": "short"])
            #expect(weak.status == 400 && weak.body.contains("password"))
            #expect(try await database.accounts().isEmpty)
            let made = try await browser.post(setup, ["user": "admin", "password": "correct horse"])
            #expect(made.status == 303 && made.location == "/decks")
            let cookie = try #require(made.setCookie)
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && !cookie.contains("Secure"))
            #expect(try await browser.get("/decks").body.contains("<h1>Decks</h1>"))
            #expect(try await database.accounts().map(\.name) == ["admin"])
            // Setup is over: the page sends to sign-in, and posting it again makes nobody.
            let stranger = TestBrowser(url)
            #expect(try await stranger.get("/setup").location == "/signin")
            #expect(try await stranger.post(setup, ["user": "eve", "password": "correct horse"]).status == 403)
            #expect(try await database.accounts().count == 1)
        }
    }

    @Test("sign-up: offered and open only on a server started with --open-signup; a taken name is refused")
    func signUp() async throws {
        try await Self.withWebServer { url, database, _ in
            let browser = TestBrowser(url)
            #expect(!(try await browser.get("/signin").body.contains("/signup")))
            #expect(try await browser.get("/signup").status == 403)
            let closed = try await browser.post("/signup", ["user": "ana", "password": "correct horse"])
            #expect(closed.status == 403 && closed.body.contains("sign-up is closed"))
            #expect(try await database.accounts().isEmpty)
        }
        try await Self.withWebServer(openSignup: true) { url, _, _ in
            let browser = TestBrowser(url)
            #expect(try await browser.get("/signin").body.contains(#"href="/signup""#))
            let made = try await browser.post("/signup", ["user": "ana", "password": "correct horse"])
            #expect(made.status == 303 && made.location == "/decks")
            #expect(try await browser.get("/decks").body.contains("No decks yet"))
            let other = TestBrowser(url)
            let taken = try await other.post("/signup", ["user": "ana", "password": "another one"])
            #expect(taken.status == 400 && taken.body.contains(#"value="ana""#))
            let short = try await other.post("/signup", ["user": "bo", "password": "short"])
            #expect(short.status == 400 && short.body.contains("password"))
        }
    }

    @Test("pages need a session; a wrong password says so; signing out revokes the browser's device")
    func sessions() async throws {
        try await Self.withWebServer { url, database, accounts in
            let anonymous = TestBrowser(url)
            #expect(try await anonymous.get("/decks").location == "/signin")
            _ = try await accounts.addAccount(name: "ana", password: "correct horse")
            let wrong = try await anonymous.post("/signin", ["user": "ana", "password": "wrong horse"])
            #expect(wrong.status == 401 && wrong.body.contains(#"role="alert""#) && anonymous.cookie == nil)

            let browser = try await Self.signedIn(url, accounts)
            let stolen = try #require(browser.cookie)
            let account = try await browser.get("/account")
            #expect(account.body.contains("this browser"))
            let out = try await browser.post("/signout", ["csrf": try await browser.csrf()])
            #expect(out.location == "/signin" && browser.cookie == nil)
            // The old cookie no longer opens anything.
            let replay = TestBrowser(url)
            replay.cookie = stolen
            #expect(try await replay.get("/decks").location == "/signin")
            _ = database
        }
    }

    @Test("the account page: a password change (old and new) signs out every other session; so does one button")
    func sessionControls() async throws {
        try await Self.withWebServer { url, _, accounts in
            let name = "ana-\(UUID().uuidString.prefix(8))"
            _ = try await accounts.addAccount(name: name, password: "correct horse")
            func browser() async throws -> TestBrowser {
                let browser = TestBrowser(url)
                _ = try await browser.post("/signin", ["user": name, "password": "correct horse"])
                return browser
            }
            let (laptop, phone, tablet) = (try await browser(), try await browser(), try await browser())
            // A wrong current password, or two new ones that differ, change nothing.
            let wrong = try await laptop.post(
                "/account/password",
                [
                    "csrf": try await laptop.csrf(), "current": "wrong horse", "new": "new horse 1",
                    "repeat": "new horse 1",
                ])
            #expect(wrong.status == 400 && wrong.body.contains("current password: is not this account&#39;s password"))
            let differ = try await laptop.post(
                "/account/password",
                [
                    "csrf": try await laptop.csrf(), "current": "correct horse", "new": "new horse 1",
                    "repeat": "new horse 2",
                ])
            #expect(differ.status == 400 && differ.body.contains("the two new passwords differ"))
            #expect(try await phone.get("/decks").status == 200)
            let changed = try await laptop.post(
                "/account/password",
                [
                    "csrf": try await laptop.csrf(), "current": "correct horse", "new": "new horse 1",
                    "repeat": "new horse 1",
                ])
            #expect(changed.location == "/account?changed=password")
            // This browser stays; the others are out, and the old password no longer signs in.
            let page = try await laptop.get("/account?changed=password").body
            #expect(page.contains("Password changed.") && page.contains("this browser"))
            #expect(try await phone.get("/decks").location == "/signin")
            #expect(try await tablet.get("/decks").location == "/signin")
            let old = try await TestBrowser(url).post("/signin", ["user": name, "password": "correct horse"])
            #expect(old.status == 401)
            // Signed-out devices leave the list; a device is renamed; one button signs out the rest.
            #expect(page.components(separatedBy: "<li><strong>").count == 2)
            let again = TestBrowser(url)
            _ = try await again.post("/signin", ["user": name, "password": "new horse 1"])
            let own = try await again.get("/account").body
            let id = try #require(own.firstMatch(of: /devices\/([0-9a-f-]{36})\/rename/).map { String($0.1) })
            let rename = "/account/devices/\(id)/rename"
            #expect(
                try await again.post(rename, ["csrf": try await again.csrf(), "name": "Kitchen tablet"]).status == 303)
            #expect(try await again.post(rename, ["csrf": try await again.csrf(), "name": " "]).status == 400)
            #expect(try await laptop.get("/account").body.contains("<strong>Kitchen tablet</strong>"))
            let out = try await laptop.post("/account/devices/sign-out-others", ["csrf": try await laptop.csrf()])
            #expect(out.location == "/account?changed=devices")
            #expect(try await again.get("/decks").location == "/signin")
            #expect(try await laptop.get("/decks").status == 200)
        }
    }

    @Test("a form without the session's CSRF token changes nothing")
    func csrf() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts)
            for token in ["", "0123", String(repeating: "a", count: 64)] {
                let answer = try await browser.post(
                    "/decks", ["csrf": token, "name": "Spanish", "front": "es", "back": "en"])
                #expect(answer.status == 403)
            }
            #expect(try await browser.get("/decks").body.contains("No decks yet"))
            let tooLarge = try await browser.post(
                "/decks",
                ["csrf": try await browser.csrf(), "name": String(repeating: "a", count: WebPage.formLimit + 1)])
            #expect(tooLarge.status == 413 && tooLarge.body.contains("1 MiB at most"))
        }
    }

    @Test("what a person types shows as text, never as markup")
    func escaping() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts)
            let deck = try await Self.createDeck(browser, "<b>Spanish</b>")
            let hostile = #"<script>alert("x")</script>"#
            _ = try await browser.post(
                deck + "/cards", ["csrf": try await browser.csrf(), "front": hostile, "back": "it's <i>x</i>"])
            for page in [deck, deck + "/study", "/decks"] {
                let body = try await browser.get(page).body
                #expect(!body.contains("<script>alert") && !body.contains("<b>Spanish") && !body.contains("<i>x"))
            }
            let body = try await browser.get(deck).body
            #expect(body.contains(escaped(hostile)) && body.contains(escaped("<b>Spanish</b>")))
            // A quote or bracket followed by a combining mark is one Swift Character with it; it is
            // still escaped, so it cannot end an attribute (the deck's name is the value of its
            // settings form's field) or open a tag.
            let marked = "Spanish\"\u{301} autofocus data-x=\"<\u{301}b>"
            let markedDeck = try await Self.createDeck(browser, marked)
            let markedPage = try await browser.get(markedDeck).body
            #expect(!markedPage.contains("\"\u{301} autofocus") && !markedPage.contains("<\u{301}b>"))
            #expect(markedPage.contains(#"value="Spanish&quot;\#u{301} autofocus data-x=&quot;&lt;\#u{301}b&gt;""#))
        }
    }

    @Test("the 26th card of a free account shows seed 001's message and keeps what was typed")
    func cardLimit() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts)
            let deck = try await Self.createDeck(browser, "Spanish")
            let csrf = try await browser.csrf()
            for index in 1...Limits.freeCardLimit {
                let added = try await browser.post(
                    deck + "/cards", ["csrf": csrf, "front": "word \(index)", "back": "b"])
                #expect(added.status == 303)
            }
            #expect(try await browser.get("/decks").body.contains("25 of 25 cards used — 0 left"))
            let refused = try await browser.post(deck + "/cards", ["csrf": csrf, "front": "perro", "back": "dog"])
            let message = JSONErrorMiddleware.answer(
                for: CardboxError.cardLimitExceeded(currentCount: 25, limit: 25, remainingCards: 0, adding: 1)
            ).message
            #expect(refused.status == 400 && refused.body.contains(escaped(message)))
            #expect(refused.body.contains(#"value="perro""#))
            #expect(refused.body.contains(#"<a href="/account#plan" class="button small" id="upgrade">Upgrade</a>"#))
            #expect(!Self.cardFronts(try await browser.get(deck).body).contains("perro"))
        }
    }

    @Test("a suggestion accepted past the card limit is refused on the suggestions tab, with the way to lift it")
    func suggestionAtLimit() async throws {
        try await Self.withWebServer { url, _, accounts in
            let (browser, phone) = try await Self.browserAndPhone(url, accounts, plan: .free)
            let deckId = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en").id
            let gato = try phone.addSuggestion(
                to: deckId, SuggestionDraft(front: "el gato", back: "cat"), image: ImageStoreContractTests.png)
            _ = try await DeviceSync(testing: phone).sync()
            let deck = "/decks/\(deckId)"
            let csrf = try await browser.csrf()
            for index in 1...Limits.freeCardLimit {
                _ = try await browser.post(deck + "/cards", ["csrf": csrf, "front": "word \(index)", "back": "b"])
            }
            let refused = try await browser.post(deck + "/suggestions/\(gato.id)/accept", ["csrf": csrf])
            #expect(refused.status == 400)
            #expect(refused.body.contains(#"id="tab-suggestions" aria-current="page""#))
            #expect(refused.body.contains("<strong>el gato</strong>") && refused.body.contains(#"id="upgrade""#))
        }
    }

    @Test("a deck's page shows its cards 50 at a time, with the pages to go through")
    func paging() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts, plan: .premium)
            let deck = try await Self.createDeck(browser, "Spanish")
            let csrf = try await browser.csrf()
            for index in 1...55 {
                _ = try await browser.post(deck + "/cards", ["csrf": csrf, "front": "word \(index)", "back": "b"])
            }
            let first = try await browser.get(deck).body
            #expect(Self.cardFronts(first).count == 50 && first.contains("page 1 of 2"))
            let second = try await browser.get(deck + "?page=2").body
            #expect(Self.cardFronts(second).count == 5 && second.contains("page 2 of 2"))
            #expect(!first.contains("?page=0") && !second.contains("?page=3"))
        }
    }

    @Test("a deck, a card and an answer made on pages reach a device; a device's card shows on the page")
    func syncsWithDevices() async throws {
        try await Self.withWebServer { url, _, accounts in
            let name = "ana-\(UUID().uuidString.prefix(8))"
            _ = try await accounts.addAccount(name: name, password: "correct horse", plan: .premium)
            let browser = TestBrowser(url)
            _ = try await browser.post("/signin", ["user": name, "password": "correct horse"])
            let deck = try await Self.createDeck(browser, "Spanish")
            _ = try await browser.post(
                deck + "/cards", ["csrf": try await browser.csrf(), "front": "hola", "back": "hello"])
            let study = try await browser.get(deck + "/study").body
            #expect(study.contains("hola") && study.contains(">Good"))
            let card = try #require(study.range(of: #"name="card" value="[0-9a-f-]+""#, options: .regularExpression))
            let cardId = String(study[card].dropFirst(#"name="card" value=""#.count).dropLast())
            let answered = try await browser.post(
                deck + "/study", ["csrf": try await browser.csrf(), "card": cardId, "rating": "3"])
            #expect(answered.location == deck + "/study?answered")
            #expect(try await browser.get(deck + "/study?answered").body.contains("Undo the last answer"))

            let laptop = try await signIn(
                CardboxStore.inMemory(), to: url, user: name, password: "correct horse")
            _ = try await DeviceSync(testing: laptop).sync()
            let cards = try laptop.cards(in: nil)
            #expect(cards.map(\.front) == ["hola"] && cards.first?.reps == 1)

            _ = try laptop.addCard(to: try #require(cards.first?.deckId), CardDraft(front: "perro", back: "dog"))
            _ = try await DeviceSync(testing: laptop).sync()
            #expect(Self.cardFronts(try await browser.get(deck).body).contains("perro"))
        }
    }

    @Test(
        "a deck's page asked for again is the one just made, until anything on it changes: a form, a device, a session")
    func pageKeptWhileUnchanged() async throws {
        try await Self.withWebServer { url, _, accounts in
            let name = "ana-\(UUID().uuidString.prefix(8))"
            _ = try await accounts.addAccount(name: name, password: "correct horse", plan: .premium)
            let (browser, other) = (TestBrowser(url), TestBrowser(url))
            for session in [browser, other] {
                _ = try await session.post("/signin", ["user": name, "password": "correct horse"])
            }
            let phone = try await signIn(CardboxStore.inMemory(), to: url, user: name, password: "correct horse")
            let deck = try await Self.createDeck(browser, "Spanish")
            let first = try await browser.get(deck).body
            #expect(try await browser.get(deck).body == first)
            // Each change shows on the page asked for right after it, within the second a page is kept.
            _ = try await browser.post(
                deck + "/cards", ["csrf": try await browser.csrf(), "front": "hola", "back": "hi"])
            #expect(Self.cardFronts(try await browser.get(deck).body) == ["hola"])
            _ = try await DeviceSync(testing: phone).sync()
            let deckId = try #require(try phone.decks().first?.id)
            _ = try phone.addCard(to: deckId, CardDraft(front: "perro", back: "dog"))
            _ = try await DeviceSync(testing: phone).sync()
            #expect(Set(Self.cardFronts(try await browser.get(deck).body)) == ["hola", "perro"])
            // Another session of the account gets a page with its own forms' token.
            let (theirs, theirToken, ourToken) = (
                try await other.get(deck).body, try await other.csrf(), try await browser.csrf()
            )
            #expect(theirToken != ourToken && theirs.contains(theirToken) && !theirs.contains(ourToken))
        }
    }

    @Test("suggestions from a device show with their pictures; accept, reject and skip them on the deck's page")
    func suggestions() async throws {
        try await Self.withWebServer { url, _, accounts in
            let (browser, phone) = try await Self.browserAndPhone(url, accounts)
            let deckId = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en").id
            let picture = try ImageIngest.sample(width: 300, height: 200, format: .heic)
            let gato = try phone.addSuggestion(
                to: deckId, SuggestionDraft(front: "el gato", back: "cat", context: "Another pet"), image: picture)
            let casa = try phone.addSuggestion(
                to: deckId, SuggestionDraft(front: "la casa", back: "house"), image: ImageStoreContractTests.png)
            let script = try phone.addSuggestion(
                to: deckId, SuggestionDraft(front: "<script>x</script>", back: "y"), image: ImageStoreContractTests.png)
            _ = try phone.addSuggestion(to: deckId, SuggestionDraft(front: "el árbol", back: "tree"))  // no picture yet
            _ = try await DeviceSync(testing: phone).sync()
            let deck = "/decks/\(deckId)"
            let page = try await browser.get(deck + "?tab=suggestions").body
            let hash = try #require(gato.imageHash)
            #expect(page.contains(#"id="tab-suggestions" aria-current="page">Suggestions"#))
            #expect(page.contains("<strong>el gato</strong>") && page.contains("Another pet"))
            #expect(page.contains("src=\"/images/\(hash)/thumbnail\""))
            #expect(page.contains(escaped("<script>x</script>")) && !page.contains("<script>x</script>"))
            #expect(!page.contains("el árbol"))

            // The picture came from the phone: the server's copy fetches its bytes when first shown.
            let thumbnail = try await browser.get("/images/\(hash)/thumbnail")
            #expect(thumbnail.status == 200)
            let full = try await browser.get("/images/\(hash)")
            #expect(full.status == 200)  // a HEIC is sent as JPEG: browsers but Safari show no HEIC
            let eve = try await Self.signedIn(url, accounts)
            #expect(try await eve.get("/images/\(hash)").status == 404)
            #expect(try await browser.get("/images/not-a-hash").status == 400)

            let csrf = try await browser.csrf()
            let accepted = try await browser.post(deck + "/suggestions/\(gato.id)/accept", ["csrf": csrf])
            #expect(accepted.status == 303 && accepted.location == deck + "?tab=suggestions")
            #expect(try await browser.post(deck + "/suggestions/\(casa.id)/reject", ["csrf": csrf]).status == 303)
            #expect(try await browser.post(deck + "/suggestions/\(script.id)/skip", ["csrf": csrf]).status == 303)
            #expect(try await browser.post(deck + "/suggestions/\(script.id)/frobnicate", ["csrf": csrf]).status == 404)
            #expect(
                try await eve.post(deck + "/suggestions/\(script.id)/accept", ["csrf": try await eve.csrf()]).status
                    == 404)
            // A card now.
            let cards = try await browser.get(deck).body
            #expect(Self.cardFronts(cards).contains("el gato") && cards.contains("</strong> <span>cat</span>"))
            let left = try await browser.get(deck + "?tab=suggestions").body
            #expect(!left.contains("la casa") && !left.contains(escaped("<script>x</script>")))
            #expect(left.contains("No suggestions to review."))
            // Seed 000's other lists: waiting (no picture yet) and rejected. A skipped suggestion is
            // recorded as rejected (until rejected suggestions are reset): it is listed there only.
            let waiting = try await browser.get(deck + "?tab=waiting").body
            #expect(waiting.contains("<strong>el árbol</strong>") && waiting.contains("waiting for a picture"))
            #expect(!waiting.contains(escaped("<script>x</script>")) && !waiting.contains(">skipped<"))
            #expect(waiting.contains("Waiting\n<span class=\"muted\">1</span>"))
            let rejected = try await browser.get(deck + "?tab=rejected").body
            #expect(rejected.contains("<strong>la casa</strong>") && rejected.contains(escaped("<script>x</script>")))
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try phone.cards(in: deckId).map(\.front) == ["el gato"])
            #expect(
                try phone.rejectedSuggestions(in: deckId).map(\.front).sorted() == ["<script>x</script>", "la casa"])
        }
    }

    @Test("a deck's five lists: archive, restore, favorite, delete, archive due; filters and search; clear and reset")
    func deckLists() async throws {
        try await Self.withWebServer { url, _, accounts in
            let (browser, phone) = try await Self.browserAndPhone(url, accounts)
            let deckId = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en").id
            let arbol = try phone.addCard(to: deckId, CardDraft(front: "el Árbol", back: "tree", tags: ["nature"]))
            let gato = try phone.addCard(to: deckId, CardDraft(front: "el gato", back: "cat", tags: ["pets"]))
            let due = try phone.addCard(to: deckId, CardDraft(front: "ayer", back: "yesterday"))
            _ = try phone.editCard(due.id, CardChanges(dueAt: .some(Date(timeIntervalSinceNow: -86_400))))
            _ = try phone.addSuggestion(
                to: deckId, SuggestionDraft(front: "el perro", back: "dog"), image: ImageStoreContractTests.png)
            _ = try await DeviceSync(testing: phone).sync()
            let deck = "/decks/\(deckId)"
            let csrf = try await browser.csrf()
            func fronts(_ path: String) async throws -> [String] {
                Self.cardFronts(try await browser.get(path).body)
            }
            #expect(try await fronts(deck) == ["el Árbol", "el gato", "ayer"])
            // Seed 001's filters and a search (any case, accents kept).
            #expect(try await fronts(deck + "?tag=pets") == ["el gato"])
            #expect(try await fronts(deck + "?q=%C3%A1rbol") == ["el Árbol"])
            #expect(try await fronts(deck + "?q=CAT") == ["el gato"])
            // As a browser's filter form sends them: a space as "+", names encoded too.
            #expect(try await fronts(deck + "?tab=current&q=el+%C3%A1rbol&ta%67=nature&language=") == ["el Árbol"])
            #expect(try await browser.get(deck + "?q=zzz").body.contains("No cards match."))
            let favorite = try await browser.post(
                deck + "/cards/\(gato.id)/favorite", ["csrf": csrf, "tab": "current"])
            #expect(favorite.status == 303 && favorite.location == deck)
            #expect(try await fronts(deck + "?favorites=1") == ["el gato"])
            // Archive and restore (archived newest first), delete, archive due.
            _ = try await browser.post(deck + "/cards/\(arbol.id)/archive", ["csrf": csrf, "tab": "current"])
            _ = try await browser.post(deck + "/cards/\(gato.id)/archive", ["csrf": csrf, "tab": "current"])
            #expect(try await fronts(deck + "?tab=archived") == ["el gato", "el Árbol"])
            let restored = try await browser.post(
                deck + "/cards/\(gato.id)/restore", ["csrf": csrf, "tab": "archived"])
            #expect(restored.location == deck + "?tab=archived")
            #expect(try await fronts(deck) == ["el gato", "ayer"])
            _ = try await browser.post(deck + "/flows/archive-due", ["csrf": csrf, "tab": "current"])
            #expect(try await fronts(deck) == ["el gato"])
            _ = try await browser.post(deck + "/cards/\(arbol.id)/delete", ["csrf": csrf, "tab": "archived"])
            #expect(try await fronts(deck + "?tab=archived") == ["ayer"])
            #expect(try await browser.post(deck + "/cards/\(gato.id)/explode", ["csrf": csrf]).status == 404)
            // Suggestions: cleared; rejected ones reset.
            _ = try await browser.post(deck + "/flows/clear-suggestions", ["csrf": csrf, "tab": "suggestions"])
            #expect(try await browser.get(deck + "?tab=suggestions").body.contains("No suggestions to review."))
            _ = try phone.rejectSuggestion(
                try phone.addSuggestion(
                    to: deckId, SuggestionDraft(front: "la casa", back: "house"), image: ImageStoreContractTests.png
                ).id)
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try await browser.get(deck + "?tab=rejected").body.contains("<li><strong>la casa</strong>"))
            let reset = try await browser.post(deck + "/flows/reset-rejected", ["csrf": csrf, "tab": "rejected"])
            #expect(reset.location == deck + "?tab=rejected")
            #expect(try await browser.get(deck + "?tab=rejected").body.contains("No rejected suggestions."))
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try phone.card(gato.id).isFavorite && !phone.card(gato.id).isArchived)
            #expect(try phone.rejectedSuggestions(in: deckId).isEmpty)
            // Seed 001's delete all, from the deck's settings: its cards go, on every device; the
            // deck stays.
            #expect(try await browser.get(deck).body.contains("/flows/delete-all-cards"))
            let emptied = try await browser.post(deck + "/flows/delete-all-cards", ["csrf": csrf, "tab": "current"])
            #expect(emptied.status == 303 && emptied.location == deck)
            _ = try await DeviceSync(testing: phone).sync()
            #expect(
                try phone.cards(in: deckId).isEmpty
                    && phone.cards(in: deckId, filter: CardFilter(archived: true)).isEmpty)
            #expect(try phone.decks().map(\.id) == [deckId])
        }
    }

    @Test("/api/v1: a deck's cards through filters, moved and archived by a device token")
    func apiDeckLists() async throws {
        try await Self.withWebServer { url, _, accounts in
            let token = try await Self.apiToken(accounts, "uma")
            let made = try await Self.apiCreateDeck(url, token: token, "Spanish")
            let deck = try #require(Self.json(made.body)["deck"]?["id"]?.stringValue)
            for (front, tag) in [("hola", "greeting"), ("adiós", "greeting"), ("perro", "animal")] {
                _ = try await rawPost(
                    url + "/api/v1/decks/\(deck)/cards",
                    body: #"{"front": "\#(front)", "back": "x", "tags": ["\#(tag)"]}"#,
                    token: token)
            }
            let greetings = try Self.json(
                try await rawRequest(
                    .GET, url + "/api/v1/decks/\(deck)/cards?tag=greeting&limit=1", body: Data(), token: token
                )
                .body)
            #expect(greetings["total"] == .int(2) && greetings["cards"]?.jsonText.contains("hola") == true)
            let found = try Self.json(
                try await rawRequest(.GET, url + "/api/v1/decks/\(deck)/cards?q=ADI", body: Data(), token: token).body)
            let id = try #require(
                found["cards"]?.jsonText.split(separator: "\"").drop { $0 != "id" }.dropFirst(2).first)
            // Ids in lowercase, as in every address (the service worker matches them so).
            #expect(id == id.lowercased() && deck == deck.lowercased())
            let archived = try await rawPost(url + "/api/v1/decks/\(deck)/cards/\(id)/archive", body: "", token: token)
            #expect(try archived.status == 200 && Self.json(archived.body)["counts"]?["archivedCards"] == .int(1))
            let flow = try await rawPost(url + "/api/v1/decks/\(deck)/flows/clear-suggestions", body: "", token: token)
            #expect(try flow.status == 200 && Self.json(flow.body)["moved"] == .int(0))
            #expect(
                try await rawPost(url + "/api/v1/decks/\(deck)/flows/explode", body: "", token: token).status == 404)
            let bad = try await rawRequest(
                .GET, url + "/api/v1/decks/\(deck)/cards?limit=0", body: Data(), token: token)
            #expect(bad.status == 400)
        }
    }

    @Test("the style sheet and script load from addresses named by their content, kept a year")
    func assets() async throws {
        try await Self.withWebServer { url, _, _ in
            let browser = TestBrowser(url)
            let page = try await browser.get("/signin").body
            #expect(
                page.contains(#"href="\#(WebAssets.cssPath)""#) && page.contains(#"src="\#(WebAssets.javascriptPath)""#)
            )
            #expect(WebAssets.cssPath == "/static/app-\(sha256Hex(Data(WebAssets.css.utf8)).prefix(12)).css")
            let css = try await browser.get(WebAssets.cssPath)
            #expect(css.status == 200 && css.body == WebAssets.css)
            #expect(css.cacheControl == "public, max-age=31536000, immutable")
            #expect(try await browser.get(WebAssets.javascriptPath).body == WebAssets.javascript)
            #expect(try await browser.get("/static/app.css").status == 404)
        }
    }

    @Test(
        "cloze cards on the web: a front with deletions adds one card each, studied hidden then shown; the API says all"
    )
    func cloze() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts)
            let deck = try await Self.createDeck(browser, "Spanish")
            let added = try await browser.post(
                deck + "/cards",
                ["csrf": try await browser.csrf(), "front": "El {{c1::gato}} <{{c2::duerme::verb}}>", "back": "extra"])
            #expect(added.status == 303)
            let list = try await browser.get(deck).body
            #expect(list.contains("El [...] &lt;duerme&gt;") && list.contains("cloze c1") && list.contains("cloze c2"))
            #expect(list.contains(#"data-cloze-for="front""#))
            let study = try await browser.get(deck + "/study").body
            #expect(study.contains(#"El <span class="cloze">[...]</span> &lt;duerme&gt;"#))
            #expect(study.contains(#"id="cloze-answer">El <span class="cloze">gato</span> &lt;duerme&gt;"#))
            #expect(study.contains(#"<p class="back" id="back">extra</p>"#))
            let card = try #require(study.range(of: #"name="card" value="[0-9a-f-]+""#, options: .regularExpression))
            let cardId = String(study[card].dropFirst(#"name="card" value=""#.count).dropLast())
            _ = try await browser.post(
                deck + "/study", ["csrf": try await browser.csrf(), "card": cardId, "rating": "4"])
            #expect(
                try await browser.get(deck + "/study?answered").body.contains(
                    #"El gato &lt;<span class="cloze">[verb]</span>&gt;"#))

            let (_, token) = try await Self.apiCaller(accounts, "api")
            let apiDeck = try await Self.apiCreateDeck(url, token: token, "Frases")
            let deckId = try #require(try Self.json(apiDeck.body)["deck"]?["id"]?.stringValue)
            let made = try await rawPost(
                url + "/api/v1/decks/\(deckId)/cards", body: #"{"front": "{{c1::uno}} {{c2::dos}}"}"#, token: token)
            #expect(made.status == 201)
            let body = try Self.json(made.body)
            guard case .array(let cards)? = body["cards"] else {
                throw CardboxError.storage("no cards in \(made.body)")
            }
            #expect(cards.map { $0["clozeNumber"] } == [.int(1), .int(2)])
            #expect(body["card"]?["clozeNumber"] == .int(1))
        }
    }

    @Test("the card editor: every field, tags found or created, favorite, picture added and removed; refusals kept")
    func cardEditor() async throws {
        try await Self.withWebServer { url, _, accounts in
            let (browser, phone) = try await Self.browserAndPhone(url, accounts)
            let deck = try await Self.createDeck(browser, "Spanish")
            _ = try await browser.post(
                deck + "/cards",
                ["csrf": try await browser.csrf(), "front": "hola", "back": "hello", "tags": "greeting"])
            let list = try await browser.get(deck).body
            let link = try #require(list.range(of: deck + #"/cards/[0-9a-f-]{36}"#, options: .regularExpression))
            let editor = String(list[link])
            let page = try await browser.get(editor).body
            #expect(page.contains(">hola</textarea>") && page.contains(#"value="greeting""#))
            #expect(page.contains(#"<option value="es" selected>Spanish"#) && !page.contains("current-image"))
            // The type is chosen from the ones Cardbox knows (a cloze card is made from its text).
            #expect(
                page.contains(
                    #"<select id="cardType" name="cardType"><option value="basic" selected>basic</option>"#
                        + #"<option value="reversed">reversed</option><option value="vocabulary">vocabulary</option>"#
                        + #"<option value="phrase">phrase</option></select>"#))
            let csrf = try await browser.csrf()
            var fields = [
                "csrf": csrf, "front": "¡hola!", "back": "hi", "frontLanguage": "ca", "backLanguage": "en",
                "cardType": "phrase", "notes": "said when meeting", "tags": "greeting, informal", "isFavorite": "true",
            ]
            let photo = try ImageIngest.sample(width: 320, height: 240, format: .png)
            let saved = try await browser.postFile(editor, fields, file: ("image", photo))
            #expect(saved.status == 303 && saved.location == deck)
            _ = try await DeviceSync(testing: phone).sync()
            let card = try #require(try phone.cards(in: nil).first)
            #expect(card.front == "¡hola!" && card.back == "hi" && card.notes == "said when meeting")
            #expect(card.frontLanguage == "ca" && card.backLanguage == "en" && card.cardType == "phrase")
            #expect(card.tags.sorted() == ["greeting", "informal"] && card.isFavorite && card.imageHash != nil)
            #expect(try phone.tags().map(\.name).sorted() == ["greeting", "informal"])
            let withImage = try await browser.get(editor).body
            #expect(withImage.contains(#"id="current-image""#) && withImage.contains("Remove the picture"))

            // A refusal says why beside what was typed, and changes nothing.
            fields["front"] = ""
            fields["back"] = "typed, not lost"
            let empty = try await browser.postFile(editor, fields, file: ("image", Data()))
            #expect(empty.status == 400 && empty.body.contains("front") && empty.body.contains("typed, not lost"))
            fields["front"] = "hola"
            fields["frontLanguage"] = "xx"
            let language = try await browser.postFile(editor, fields, file: ("image", Data()))
            #expect(language.status == 400 && language.body.contains("is not an ISO 639-1 language code"))
            let text = try await browser.postFile(
                editor, fields.merging(["frontLanguage": "es"]) { $1 }, file: ("image", Data("no".utf8)))
            #expect(text.status == 400 && text.body.contains("is not a JPEG, PNG or HEIC image"))
            let banana = try await browser.postFile(
                editor, fields.merging(["frontLanguage": "es", "cardType": "banana"]) { $1 }, file: ("image", Data()))
            #expect(banana.status == 400 && banana.body.contains("&#39;banana&#39; is not a card type"))
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try phone.card(card.id) == card)

            // An empty file input keeps the picture; "remove" drops it; unticked favorite unmarks.
            fields["frontLanguage"] = "es"
            fields["isFavorite"] = nil
            fields["removeImage"] = "true"
            #expect(try await browser.postFile(editor, fields, file: ("image", Data())).status == 303)
            _ = try await DeviceSync(testing: phone).sync()
            let plain = try phone.card(card.id)
            #expect(plain.imageHash == nil && !plain.isFavorite && plain.front == "hola" && plain.frontLanguage == "es")

            // Another account's browser cannot see or change it; without the CSRF token nothing changes.
            let eve = try await Self.signedIn(url, accounts)
            #expect(try await eve.get(editor).status == 404)
            #expect(
                try await eve.postFile(
                    editor, fields.merging(["csrf": try await eve.csrf()]) { $1 }, file: ("image", Data())
                ).status == 404)
            #expect(
                try await browser.postFile(editor, fields, file: ("image", Data()), site: "cross-site").status == 403)
        }
    }

    @Test("/api/v1: a card read, changed field by field, and given a picture by a device token")
    func apiCardEditor() async throws {
        try await Self.withWebServer { url, _, accounts in
            let token = try await Self.apiToken(accounts, "uma")
            let made = try await Self.apiCreateDeck(url, token: token, "Spanish")
            let deck = try #require(Self.json(made.body)["deck"]?["id"]?.stringValue)
            let added = try await rawPost(
                url + "/api/v1/decks/\(deck)/cards", body: #"{"front": "perro", "back": "dog"}"#, token: token)
            let id = try #require(Self.json(added.body)["card"]?["id"]?.stringValue)
            let path = url + "/api/v1/decks/\(deck)/cards/\(id)"
            let read = try await rawRequest(.GET, path, body: Data(), token: token)
            #expect(try read.status == 200 && Self.json(read.body)["card"]?["front"] == .string("perro"))
            let changed = try await rawPost(
                path, body: #"{"notes": "a pet", "tags": ["animal"], "isFavorite": true, "backLanguage": "fr"}"#,
                token: token)
            let card = try Self.json(changed.body)["card"]
            #expect(changed.status == 200 && card?["notes"] == .string("a pet") && card?["front"] == .string("perro"))
            #expect(card?["isFavorite"] == .bool(true) && card?["backLanguage"] == .string("fr"))
            #expect(card?["tags"] == .array([.string("animal")]))
            let misspelt = try await rawPost(path, body: #"{"note": "x"}"#, token: token)
            #expect(misspelt.status == 400 && misspelt.body.contains("note"))
            let wrongType = try await rawPost(path, body: #"{"isFavorite": "yes"}"#, token: token)
            #expect(wrongType.status == 400 && wrongType.body.contains("isFavorite"))
            let photo = try ImageIngest.sample(width: 64, height: 64, format: .jpeg)
            let pictured = try await rawRequest(.PUT, path + "/image", body: photo, token: token)
            let hash = try #require(try Self.json(pictured.body)["card"]?["imageHash"]?.stringValue)
            #expect(
                try await rawRequest(.GET, url + "/api/v1/images/\(hash)", body: Data(), token: token).status == 200)
            let notImage = try await rawRequest(.PUT, path + "/image", body: Data("text".utf8), token: token)
            #expect(notImage.status == 400)
            let removed = try await rawPost(path, body: #"{"removeImage": true}"#, token: token)
            #expect(try Self.json(removed.body)["card"]?["imageHash"]?.stringValue == nil)
            // Another account's token finds no such card.
            let eve = try await Self.apiToken(accounts, "eve")
            #expect(try await rawRequest(.GET, path, body: Data(), token: eve).status == 404)
            #expect(try await rawPost(path, body: #"{"notes": "mine"}"#, token: eve).status == 404)
        }
    }

    @Test("preset decks: added whole from the decks page, or refused whole past the free plan's limit")
    func presets() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts)
            let (spanish, french, german) = (
                try PresetDeck.named("spanish-basics"), try PresetDeck.named("french-basics"),
                try PresetDeck.named("german-basics")
            )
            // A preset larger than the plan's room says so before adding, instead of an Add button.
            let offered = try await browser.get("/decks").body
            for preset in PresetDeck.catalog {
                let fits = preset.cards.count <= 25
                #expect(offered.contains(#"action="/presets/\#(preset.slug)""#) == fits, "\(preset.slug)")
                let note = "\(preset.name) has \(preset.cards.count) cards; the free plan has room for 25"
                #expect(offered.contains(note) == !fits, "\(preset.slug)")
            }
            #expect(
                spanish.cards.count > 25
                    && offered.contains("Spanish Basics has 30 cards; the free plan has room for 25"))
            // Posted anyway, 30 cards do not fit the free plan's 25: none is added, and seed 001's message says why.
            let refused = try await browser.post("/presets/spanish-basics", ["csrf": try await browser.csrf()])
            let message = JSONErrorMiddleware.answer(
                for: CardboxError.cardLimitExceeded(
                    currentCount: 0, limit: 25, remainingCards: 25, adding: spanish.cards.count)
            ).message
            #expect(refused.status == 400 && refused.body.contains(escaped(message)))
            #expect(try await browser.get("/decks").body.contains("No decks yet"))
            let added = try await browser.post("/presets/french-basics", ["csrf": try await browser.csrf()])
            let deck = try #require(added.location)
            let page = try await browser.get(deck).body
            #expect(page.contains(escaped(french.name)) && Self.cardFronts(page).count == french.cards.count)
            // A preset already added is not offered again; the room left is counted after it.
            let after = try await browser.get("/decks").body
            #expect(!after.contains(#"action="/presets/french-basics""#))
            let room = 25 - french.cards.count
            #expect(
                after.contains("\(german.name) has \(german.cards.count) cards; the free plan has room for \(room)"))
            let past = try await browser.post("/presets/german-basics", ["csrf": try await browser.csrf()])
            #expect(past.status == 400 && past.body.contains("Card limit exceeded"))
            #expect(!(try await browser.get("/decks").body.contains(escaped(german.name) + "</strong></a>")))
            let unknown = try await browser.post("/presets/klingon", ["csrf": try await browser.csrf()])
            #expect(unknown.status == 400 && unknown.body.contains("unknown preset"))
            #expect(try await browser.post("/presets/french-basics", ["csrf": "0"]).status == 403)
        }
    }

    @Test("a deck's stats: reviews per day, retention and the forecast drawn as SVG; the same as JSON")
    func stats() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts, plan: .premium)
            let deck = try await Self.createDeck(browser, "Spanish")
            let csrf = try await browser.csrf()
            for front in ["hola", "adiós"] {
                _ = try await browser.post(deck + "/cards", ["csrf": csrf, "front": front, "back": "x"])
            }
            let study = try await browser.get(deck + "/study").body
            let card = try #require(study.range(of: #"name="card" value="[0-9a-f-]+""#, options: .regularExpression))
            let cardId = String(study[card].dropFirst(#"name="card" value=""#.count).dropLast())
            _ = try await browser.post(deck + "/study", ["csrf": csrf, "card": cardId, "rating": "3"])
            let answer = try await browser.get(deck + "/stats?days=7")
            #expect(answer.status == 200)
            let page = answer.body
            for chart in ["reviews-chart", "retention-chart", "forecast-chart"] {
                #expect(page.contains(#"<svg id="\#(chart)" class="chart""#))
            }
            // One review today: the last of the 7 bars says so in its tooltip, the 6 before it none.
            let reviews = try #require(page.components(separatedBy: "reviews-chart").dropFirst().first)
            let tooltips = reviews.components(separatedBy: "</svg>")[0].components(separatedBy: "<title>").dropFirst()
            #expect(tooltips.count == 7 && tooltips.last?.hasPrefix("1 reviews on ") == true)
            #expect(tooltips.dropLast().allSatisfy { $0.hasPrefix("0 reviews on ") })
            #expect(page.contains("<strong>1</strong> new") && page.contains("<strong>1</strong> learning"))
            // The workload ahead: a bar a day for the span, and the simulation's totals (the new card
            // and the one in learning come up on the first day).
            let workload = try #require(page.components(separatedBy: "workload-chart").dropFirst().first)
            let days = workload.components(separatedBy: "</svg>")[0].components(separatedBy: "<title>").dropFirst()
            #expect(days.count == 7 && days.first?.contains("1 new") == true)
            #expect(page.contains("Simulated at desired retention 0.90 for the next 7 days:"))
            #expect(page.contains("1 new cards"))
            #expect(try await browser.get(deck + "/stats?days=5").status == 400)
            let eve = try await Self.signedIn(url, accounts)
            #expect(try await eve.get(deck + "/stats").status == 404)
        }
    }

    @Test("the deck settings offer a recommended desired retention, filled in for Save to keep")
    func recommendedRetention() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts, plan: .premium)
            let deck = try await Self.createDeck(browser, "Spanish")
            let csrf = try await browser.csrf()
            _ = try await browser.post(deck + "/cards", ["csrf": csrf, "front": "hola", "back": "hello"])
            let plain = try await browser.get(deck).body
            // The link brings the answer back to where it was asked.
            #expect(
                plain.contains(
                    #"<a href="\#(deck)/recommended-retention#retention-advice">Recommend a retention</a>"#))
            // No reviews yet: it says so, rather than recommending the lowest bound.
            let none = try await browser.get(deck + "/recommended-retention")
            #expect(none.status == 200 && none.body.contains("No reviews yet: study some of this deck"))
            #expect(!none.body.contains("Recommended: <strong>"))
            #expect(none.body.contains(#"<details class="settings" id="deck-settings" open>"#))
            let study = try await browser.get(deck + "/study").body
            let card = try #require(study.range(of: #"name="card" value="[0-9a-f-]+""#, options: .regularExpression))
            let cardId = String(study[card].dropFirst(#"name="card" value=""#.count).dropLast())
            _ = try await browser.post(deck + "/study", ["csrf": csrf, "card": cardId, "rating": "3"])
            let page = try await browser.get(deck + "/recommended-retention")
            #expect(page.status == 200)
            let advice = try #require(
                page.body.range(of: #"Recommended: <strong>0\.[0-9]{2}</strong>"#, options: .regularExpression))
            let value = String(page.body[advice].dropFirst("Recommended: <strong>".count).prefix(4))
            #expect((0.7...0.95).contains(try #require(Double(value))))
            #expect(
                page.body.contains(
                    #"name="desiredRetention" type="number" min="0.7" max="0.99" step="0.01" value="\#(value)""#))
            #expect(page.body.contains(#"<details class="settings" id="deck-settings" open>"#))
            let eve = try await Self.signedIn(url, accounts)
            #expect(try await eve.get(deck + "/recommended-retention").status == 404)
        }
    }

    @Test("Optimize fits FSRS to a deck's reviews, shows the old and new fit, and keeps the parameters only when asked")
    func optimize() async throws {
        try await Self.withWebServer { url, _, accounts in
            let name = "fit-\(UUID().uuidString.prefix(8))"
            _ = try await accounts.addAccount(name: name, password: "correct horse", plan: .premium)
            // A device studies 300 cards over 23 days, then syncs: 600 reviews a day or more apart.
            let clock = MovableClock()
            clock.advance(by: -30 * 86_400)  // the reviews end a week ago: the server refuses the future
            let ids = UUIDv7Generator()
            let phone = try await signIn(
                try CardboxStore.inMemory(
                    environment: StoreEnvironment(
                        now: { clock.now }, newID: { ids.next(now: clock.now) },
                        makeRandom: { SystemRandomNumberGenerator() })),
                to: url, user: name, password: "correct horse")
            _ = try await DeviceSync(testing: phone).sync()  // the account's plan: premium, past 25 cards
            let deck = try phone.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
            let cards = try (0..<300).map { try phone.addCard(to: deck.id, CardDraft(front: "w\($0)", back: "-")).id }
            for (round, gap) in [(0, 0), (1, 3), (2, 20)] {
                clock.advance(by: Double(gap) * 86_400)
                for (index, card) in cards.enumerated() {
                    _ = try phone.answer(card, rating: round == 0 || index % (round == 1 ? 9 : 3) != 0 ? 3 : 1)
                }
            }
            _ = try await DeviceSync(testing: phone).sync()
            let browser = TestBrowser(url)
            _ = try await browser.post("/signin", ["user": name, "password": "correct horse"])
            let path = "/decks/\(deck.id)"
            let csrf = try await browser.csrf()
            #expect(try await browser.get(path).body.contains(#"action="\#(path)/optimize""#))
            let fitted = try await browser.post(path + "/optimize", ["csrf": csrf])
            #expect(fitted.status == 200)
            #expect(fitted.body.contains("Fitted to 600 reviews: log loss "), "\(fitted.body)")
            let kept = try #require(
                fitted.body.range(of: #"name="parameters" value="[0-9.,e-]+""#, options: .regularExpression))
            let parameters = String(fitted.body[kept].dropFirst(#"name="parameters" value=""#.count).dropLast())
            #expect(parameters.split(separator: ",").count == 21)
            // Nothing is kept before Keep: a second fit starts from the same defaults.
            let again = try await browser.post(path + "/optimize", ["csrf": csrf])
            let before = { (page: String) in
                page.range(of: #"log loss [0-9.]+"#, options: .regularExpression).map { String(page[$0]) }
            }
            #expect(before(again.body) == before(fitted.body))
            #expect(
                try await browser.post(path + "/parameters", ["csrf": csrf, "parameters": parameters]).status == 303)
            let afterKeeping = try await browser.post(path + "/optimize", ["csrf": csrf])
            #expect(before(afterKeeping.body) != before(fitted.body), "the fit now starts from the kept parameters")
            let bad = try await browser.post(path + "/parameters", ["csrf": csrf, "parameters": "1,2"])
            #expect(bad.status == 400 && bad.body.contains("parameters"))
            #expect(try await browser.post(path + "/optimize", ["csrf": "0"]).status == 403)
            let empty = try await Self.createDeck(browser, "Empty")
            let refused = try await browser.post(empty + "/optimize", ["csrf": csrf])
            #expect(refused.status == 400 && refused.body.contains("not enough reviews to optimize"))
        }
    }

    @Test("/api/v1: presets listed and added; a deck's stats")
    func apiPresetsAndStats() async throws {
        try await Self.withWebServer { url, _, accounts in
            let token = try await Self.apiToken(accounts, "uma")
            let listed = try Self.json(
                try await rawRequest(.GET, url + "/api/v1/presets", body: Data(), token: token).body)
            #expect(Self.elements(listed["presets"]).count == PresetDeck.catalog.count)
            let made = try await rawPost(url + "/api/v1/presets/german-basics", body: "", token: token)
            let german = try PresetDeck.named("german-basics")
            #expect(try made.status == 201 && Self.json(made.body)["cards"] == .int(Int64(german.cards.count)))
            let deck = try #require(try Self.json(made.body)["deck"]?["id"]?.stringValue)
            let stats = try Self.json(
                try await rawRequest(.GET, url + "/api/v1/decks/\(deck)/stats?days=14", body: Data(), token: token).body
            )
            #expect(stats["days"] == .int(14) && Self.elements(stats["reviewsPerDay"]).count == 14)
            #expect(stats["cardCounts"]?["new"] == .int(Int64(german.cards.count)))
            let bad = try await rawRequest(.GET, url + "/api/v1/decks/\(deck)/stats?days=0", body: Data(), token: token)
            #expect(bad.status == 400)
        }
    }

    @Test("import a file and see the report (all or nothing); download a backup, ListAll JSON and a deck as TSV/CSV")
    func importAndExport() async throws {
        try await Self.withWebServer { url, _, accounts in
            let (browser, phone) = try await Self.browserAndPhone(url, accounts)
            let words = Data("hola\thello\nperro\tdog\n".utf8)
            var fields = ["csrf": try await browser.csrf(), "deck": "Spanish", "front": "es", "back": "en"]
            let imported = try await browser.postFile("/exchange/import", fields, file: ("file", words))
            #expect(imported.status == 200 && imported.body.contains("<li>created: 2 cards, 1 deck</li>"))
            let again = try await browser.postFile("/exchange/import", fields, file: ("file", words))
            #expect(again.body.contains("<li>skipped: 2 cards</li>"))
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try phone.cards(in: nil).map(\.front).sorted() == ["hola", "perro"])
            // A file with one bad row brings nothing in, and the page says where.
            let bad = Data("gato\tcat\n\tno front\n".utf8)
            let refused = try await browser.postFile("/exchange/import", fields, file: ("file", bad))
            #expect(refused.status == 400 && refused.body.contains("line 2"))
            fields["deck"] = ""
            let noDeck = try await browser.postFile("/exchange/import", fields, file: ("file", words))
            #expect(noDeck.status == 400 && noDeck.body.contains("no deck: name the deck to import into"))
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try phone.cards(in: nil).count == 2)
            let forged = try await browser.postFile(
                "/exchange/import", fields, file: ("file", words), site: "cross-site")
            #expect(forged.status == 403)

            let deck = try #require(try phone.decks().first?.id)
            let tsv = try await browser.get("/exchange/export/tsv?deck=\(deck)")
            #expect(tsv.status == 200 && tsv.body.hasSuffix("hola\thello\t\t\nperro\tdog\t\t\n"))
            let backup = try await browser.get("/exchange/export/backup")
            #expect(backup.status == 200 && backup.body.contains("perro"))
            #expect(try BackupFormat.read(Data(backup.body.utf8), file: "backup").tables["card"]?.count == 2)
            #expect(try await browser.get("/exchange/export/listall").status == 200)
            #expect(try await browser.get("/exchange/export/csv").status == 400)
            #expect(try await browser.get("/exchange/export/zip").status == 404)
            let eve = try await Self.signedIn(url, accounts)
            #expect(try await eve.get("/exchange/export/tsv?deck=\(deck)").status == 404)
        }
    }

    @Test("/api/v1: a file imported from the request's body; an export downloaded")
    func apiImportAndExport() async throws {
        try await Self.withWebServer { url, _, accounts in
            let token = try await Self.apiToken(accounts, "uma")
            let words = Data("#separator:tab\n#deck column:3\nhola\thello\tSpanish\n".utf8)
            let imported = try await rawRequest(.POST, url + "/api/v1/import?front=es", body: words, token: token)
            #expect(try imported.status == 200 && Self.json(imported.body)["created"]?["card"] == .int(1))
            let wrong = try await rawRequest(.POST, url + "/api/v1/import?onDuplicate=merge", body: words, token: token)
            #expect(wrong.status == 400 && wrong.body.contains("onDuplicate"))
            let lists = try await rawRequest(.GET, url + "/api/v1/export/listall", body: Data(), token: token)
            #expect(lists.status == 200 && lists.body.contains("\"version\""))
        }
    }

    @Test("/api/v1: lists, items, boards, a deck's settings and the account's devices, by a device token")
    func apiListsBoardsAccount() async throws {
        try await Self.withWebServer { url, _, accounts in
            let token = try await Self.apiToken(accounts, "uma")
            let api = url + "/api/v1"
            func post(_ path: String, _ body: String) async throws -> (status: Int, json: JSONValue?) {
                let answer = try await rawPost(api + path, body: body, token: token)
                return (answer.status, try? Self.json(answer.body))
            }
            func delete(_ path: String) async throws -> Int {
                try await rawRequest(.DELETE, api + path, body: Data(), token: token).status
            }
            func get(_ path: String) async throws -> JSONValue {
                try Self.json(try await rawRequest(.GET, api + path, body: Data(), token: token).body)
            }
            // Lists and items (seed 002).
            let list = try #require(
                try await post("/lists", #"{"name": "Groceries"}"#).json?["list"]?["id"]?.stringValue)
            let other = try #require(
                try await post("/lists", #"{"name": "Hardware"}"#).json?["list"]?["id"]?.stringValue)
            let milk = try await post("/lists/\(list)/items", #"{"title": "Milk", "quantity": 2}"#)
            #expect(milk.status == 201 && milk.json?["item"]?["quantity"] == .int(2))
            let item = try #require(milk.json?["item"]?["id"]?.stringValue)
            _ = try await post("/lists/\(list)/items", #"{"title": "Bread"}"#)
            let edited = try await post("/lists/\(list)/items/\(item)", #"{"quantity": null, "description": "oat"}"#)
            #expect(edited.json?["item"]?["quantity"] == nil || edited.json?["item"]?["quantity"] == .null)
            #expect(edited.json?["item"]?["description"] == .string("oat"))
            #expect(
                try await post("/lists/\(list)/items/\(item)/cross", "{}").json?["item"]?["isCrossedOut"] == .bool(true)
            )
            #expect(try await post("/settings", #"{"showCrossedOutItems": false}"#).status == 200)
            let shown = try await get("/lists/\(list)")
            #expect(Self.elements(shown["list"]?["items"]).count == 1 && shown["showCrossedOutItems"] == .bool(false))
            let moved = try await post("/lists/\(list)/items/\(item)/move", #"{"list": "\#(other)"}"#)
            #expect(moved.json?["item"]?["listId"]?.stringValue == other)
            #expect(
                try await post("/lists/\(other)/move", #"{"position": 0}"#).json?["list"]?["orderNumber"] == .int(0))
            #expect(try await post("/lists/\(list)/rename", #"{"name": ""}"#).status == 400)
            #expect(try await delete("/lists/\(list)/items/\(item)") == 404)  // it is in the other list
            #expect(try await delete("/lists/\(other)/items/\(item)") == 204)
            let photo = try ImageIngest.sample(width: 64, height: 64, format: .png)
            let bread = try #require(
                Self.elements(try await get("/lists/\(list)")["list"]?["items"]).first?["id"]?.stringValue)
            let image = try await rawRequest(
                .PUT, api + "/lists/\(list)/items/\(bread)/images", body: photo, token: token)
            let imageId = try #require(try Self.json(image.body)["image"]?["id"]?.stringValue)
            #expect(image.status == 201)
            #expect(try await delete("/lists/\(list)/items/\(bread)/images/\(imageId)") == 204)
            #expect(Self.elements(try await get("/lists")["lists"]).count == 2)
            #expect(try await delete("/lists/\(other)") == 204)

            // Boards (seed 003): a card moves across columns and is archived.
            let board = try await post("/boards", #"{"title": "Trip"}"#)
            let boardId = try #require(board.json?["board"]?["id"]?.stringValue)
            let todo = try #require(
                try await post("/boards/\(boardId)/columns", #"{"title": "To do"}"#).json?["column"]?["id"]?.stringValue
            )
            let done = try #require(
                try await post("/boards/\(boardId)/columns", #"{"title": "Done"}"#).json?["column"]?["id"]?.stringValue)
            let added = try await post("/boards/\(boardId)/columns/\(todo)/cards", #"{"title": "Book flights"}"#)
            let card = try #require(
                Self.elements(Self.elements(added.json?["board"]?["columns"]).first?["cards"]).first?["id"]?.stringValue
            )
            let across = try await post(
                "/boards/\(boardId)/cards/\(card)/move", #"{"column": "\#(done)", "position": 0}"#)
            #expect(Self.cards(in: across.json?["board"], column: 1).count == 1)
            #expect(try await post("/boards/\(boardId)/cards/\(card)/archive", "{}").status == 200)
            let visible = try await get("/boards/\(boardId)")
            #expect(Self.cards(in: visible["board"], column: 1).isEmpty)
            #expect(try await post("/boards/\(boardId)/columns/\(done)/move", #"{"position": 0}"#).status == 200)
            #expect(
                try await post("/boards/\(boardId)/rename", #"{"title": "Holiday"}"#).json?["board"]?["boardTitle"]
                    == .string("Holiday"))
            #expect(try await delete("/boards/\(boardId)/cards/\(card)") == 204)

            // A deck's settings, and the account's devices.
            let deck = try #require(
                try await post("/decks", #"{"name": "Spanish", "frontLanguage": "es", "backLanguage": "en"}"#).json?[
                    "deck"]?["id"]?.stringValue)
            let set = try await post("/decks/\(deck)/settings", #"{"name": "Español", "queuedSuggestions": 5}"#)
            #expect(
                set.json?["deck"]?["queuedSuggestions"] == .int(5) && set.json?["deck"]?["name"] == .string("Español"))
            let study =
                #"{"desiredRetention": 0.8, "learningSteps": "1m", "relearningSteps": "10m", "maximumInterval": 365, "newCardsPerDay": 5, "reviewsPerDay": 50, "enableFuzz": false}"#
            let studied = try await post(
                "/decks/\(deck)/settings", #"{"name": "Español", "queuedSuggestions": 5, "study": \#(study)}"#)
            #expect(studied.json?["deck"]?["study"]?["desiredRetention"] == .double(0.8))
            #expect(studied.json?["deck"]?["study"]?["newCardsPerDay"] == .int(5))
            let partial = try await post(
                "/decks/\(deck)/settings",
                #"{"name": "Español", "queuedSuggestions": 5, "study": {"desiredRetention": 0.8}}"#)
            #expect(partial.status == 400)
            #expect(try await delete("/decks/\(deck)") == 204)
            let laptop = try await accounts.signIn(name: "uma", password: "correct horse", deviceName: "laptop").device
            #expect(Self.elements(try await get("/account/devices")["devices"]).count == 2)
            #expect(try await post("/account/devices/\(laptop.id.uuidString)/revoke", "").status == 204)

            // Another account reaches none of it; a misspelt field changes nothing.
            let eve = try await Self.apiToken(accounts, "eve")
            #expect(try await rawRequest(.GET, api + "/lists/\(list)", body: Data(), token: eve).status == 404)
            #expect(try await rawRequest(.DELETE, api + "/boards/\(boardId)", body: Data(), token: eve).status == 404)
            #expect(
                try await rawPost(api + "/lists/\(list)/rename", body: #"{"nmae": "x"}"#, token: token).status == 400)
            // A method the path does not take: 405, naming the one it does.
            let wrong = try await rawRequest(.PUT, api + "/lists/\(list)", body: Data(), token: token)
            #expect(wrong.status == 405 && wrong.body.contains("takes DELETE, GET"))
        }
    }

    @Test("the account page: each device's last sync, whether changes wait for it, and a refused push's message")
    func accountSyncStatus() async throws {
        try await Self.withWebServer { url, database, accounts in
            let name = "ana-\(UUID().uuidString.prefix(8))"
            let account = try await accounts.addAccount(name: name, password: "correct horse", plan: .free)
            let browser = TestBrowser(url)
            _ = try await browser.post("/signin", ["user": name, "password": "correct horse"])
            // The server notes a sync after answering it: the page may take a moment to show it.
            func accountPage(showing expected: (String) -> Bool) async throws -> String {
                var page = ""
                for _ in 0..<50 {
                    page = try await browser.get("/account").body
                    if expected(page) { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return page
            }
            let phone = try await signIn(CardboxStore.inMemory(), to: url, user: name, password: "correct horse")
            let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            for index in 1...25 { _ = try phone.addCard(to: deck.id, CardDraft(front: "word \(index)", back: "x")) }
            _ = try await DeviceSync(testing: phone).sync()
            var page = try await accountPage { $0.contains("up to date") }
            #expect(page.contains("last sync") && page.contains("up to date") && !page.contains("Its changes wait"))
            // A deck the browser deletes waits for the phone's next sync.
            _ = try await browser.post("/decks/\(deck.id)/delete", ["csrf": try await browser.csrf()])
            page = try await browser.get("/account").body
            #expect(page.contains("changes made since wait for its next sync"))
            // The phone, offline, passes the free plan's limit: its push is refused, and the page says why.
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try phone.cards(in: nil).isEmpty)
            // (A device that took itself for premium: the server holds the account to its plan.)
            _ = try phone.setPlan(.premium)
            let french = try phone.createDeck(name: "French", frontLanguage: "fr", backLanguage: "en")
            for index in 1...30 { _ = try phone.addCard(to: french.id, CardDraft(front: "mot \(index)", back: "x")) }
            _ = try? await DeviceSync(testing: phone).sync()
            page = try await accountPage { $0.contains("Its changes wait") }
            #expect(page.contains("Its changes wait: Card limit exceeded"))
            try await database.setPlan(.premium, account: account.id)
            _ = try await DeviceSync(testing: phone).sync()
            page = try await accountPage { !$0.contains("Its changes wait") }
            // The refusal is gone once a push goes through.
            #expect(!page.contains("Its changes wait") && page.contains("last sync"))
        }
    }

    @Test("a deck's settings: rename, suggestions to keep queued (a device gets them), delete")
    func deckSettings() async throws {
        try await Self.withWebServer { url, _, accounts in
            let (browser, phone) = try await Self.browserAndPhone(url, accounts)
            let deck = try await Self.createDeck(browser, "Spanish")
            // A page far past the last is an empty page, not a crash (the offset would overflow).
            for page in ["9223372036854775807", "200000000000000000"] {
                #expect(try await browser.get(deck + "?page=\(page)").status == 200)
            }
            let csrf = try await browser.csrf()
            let saved = try await browser.post(
                deck + "/settings", ["csrf": csrf, "name": "Español", "queuedSuggestions": "5"])
            #expect(saved.status == 303 && saved.location == deck)
            let page = try await browser.get(deck).body
            #expect(
                page.contains("<h1>Español</h1>")
                    && page.contains(#"name="queuedSuggestions" type="number" min="0" value="5""#))
            let wrong = try await browser.post(
                deck + "/settings", ["csrf": csrf, "name": "Español", "queuedSuggestions": "-1"])
            #expect(wrong.status == 400 && wrong.body.contains("must be 0 or more"))
            let notNumber = try await browser.post(
                deck + "/settings", ["csrf": csrf, "name": "Español", "queuedSuggestions": "x"])
            #expect(notNumber.status == 400 && notNumber.body.contains("must be a whole number"))
            // Study settings, in the same form: checked whole before anything is saved.
            let study = [
                "csrf": csrf, "name": "Español", "queuedSuggestions": "5", "desiredRetention": "0.85",
                "newCardsPerDay": "10", "reviewsPerDay": "150", "learningSteps": "2m,15m", "relearningSteps": "5m",
                "maximumInterval": "3650",
            ]
            let refused = try await browser.post(
                deck + "/settings", study.merging(["desiredRetention": "1.5", "name": "Other"]) { $1 })
            // A refusal names the field as the form does and keeps every edit, the form open.
            #expect(
                refused.status == 400 && refused.body.contains("Desired retention: must be from 0.7 to 0.99, got 1.5"))
            #expect(refused.body.contains(#"id="deck-settings" open"#))
            #expect(refused.body.contains(#"name="name" required maxlength="100" value="Other""#))
            #expect(refused.body.contains(#"value="1.5""#) && refused.body.contains(#"value="2m,15m""#))
            let notSteps = try await browser.post(
                deck + "/settings", study.merging(["learningSteps": "1 minute", "reviewsPerDay": "120"]) { $1 })
            #expect(notSteps.status == 400)
            #expect(notSteps.body.contains("Learning steps: &#39;1 minute&#39; is not a step like 1m, 10m"))
            #expect(notSteps.body.contains(#"value="1 minute""#) && notSteps.body.contains(#"value="120""#))
            let longest = try await browser.post(deck + "/settings", study.merging(["maximumInterval": "0"]) { $1 })
            #expect(longest.body.contains("Longest interval: must be from 1 to 36500 days, got 0"))
            #expect(try await browser.post(deck + "/settings", study).status == 303)
            #expect(
                try await browser.get(deck).body.contains(
                    #"name="desiredRetention" type="number" min="0.7" max="0.99" step="0.01" value="0.85""#))
            // A name another deck has refuses the whole form: the new retention is not kept either.
            _ = try await Self.createDeck(browser, "Taken")
            let taken = try await browser.post(
                deck + "/settings", study.merging(["desiredRetention": "0.9", "name": "Taken"]) { $1 })
            #expect(taken.status == 400 && taken.body.contains("already exists"))
            #expect(
                try await browser.get(deck).body.contains(
                    #"name="desiredRetention" type="number" min="0.7" max="0.99" step="0.01" value="0.85""#))
            _ = try await DeviceSync(testing: phone).sync()
            let synced = try #require(try phone.decks().first { $0.name != "Taken" })
            #expect(synced.name == "Español" && synced.queuedSuggestions == 5)
            #expect(synced.study.desiredRetention == 0.85 && synced.study.newCardsPerDay == 10)
            #expect(synced.study.reviewsPerDay == 150 && synced.study.learningSteps == "2m,15m")
            #expect(
                synced.study.relearningSteps == "5m" && synced.study.maximumInterval == 3650 && !synced.study.enableFuzz
            )
            let deleted = try await browser.post(deck + "/delete", ["csrf": csrf])
            #expect(deleted.status == 303 && deleted.location == "/decks")
            #expect(try await browser.get(deck).status == 404)
            _ = try await DeviceSync(testing: phone).sync()
            #expect(try phone.decks().map(\.name) == ["Taken"])
        }
    }

    @Test("/api/v1: a deck's suggestions, reviewed by a device token; images and thumbnails by hash")
    func apiSuggestions() async throws {
        try await Self.withWebServer { url, _, accounts in
            let token = try await Self.apiToken(accounts, "ivo")
            let phone = try await signIn(CardboxStore.inMemory(), to: url, user: "ivo", password: "correct horse")
            let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en").id
            let gato = try phone.addSuggestion(
                to: deck, SuggestionDraft(front: "el gato", back: "cat"),
                image: try ImageIngest.sample(width: 64, height: 48, format: .png))
            _ = try await DeviceSync(testing: phone).sync()
            let listed = try Self.json(
                try await rawRequest(.GET, url + "/api/v1/decks/\(deck)/suggestions", body: Data(), token: token).body)
            #expect(listed["suggestions"]?.jsonText.contains(#""front":"el gato""#) == true)
            let image = try await rawRequest(
                .GET, url + "/api/v1/images/\(gato.imageHash!)", body: Data(), token: token)
            #expect(image.status == 200 && image.body.hasPrefix("\u{FFFD}PNG"))
            let thumbnail = try await rawRequest(
                .GET, url + "/api/v1/images/\(gato.imageHash!)/thumbnail", body: Data(), token: token)
            #expect(thumbnail.status == 200)
            let accepted = try await rawPost(
                url + "/api/v1/decks/\(deck)/suggestions/\(gato.id)/accept", body: "", token: token)
            #expect(accepted.status == 200)
            #expect(try Self.json(accepted.body)["suggestions"] == .array([]))
            let again = try await rawPost(
                url + "/api/v1/decks/\(deck)/suggestions/\(gato.id)/accept", body: "", token: token)
            #expect(again.status == 404)
        }
    }

    @Test("item images: uploaded from the item's form, counted in the list, thumbnails and full size; refusals shown")
    func itemImages() async throws {
        try await Self.withWebServer { url, _, accounts in
            let ana = try await Self.signedIn(url, accounts)
            let made = try await ana.post("/lists", ["csrf": try await ana.csrf(), "name": "Receipts"])
            let list = try #require(made.location)
            _ = try await ana.post(list + "/items", ["csrf": try await ana.csrf(), "title": "Lamp"])
            let page = try await ana.get(list).body
            let itemPath = try #require(page.range(of: #"/items/[0-9a-f-]{36}/images"#, options: .regularExpression))
            let item = list + String(page[itemPath].dropLast("/images".count))
            let photo = try ImageIngest.sample(width: 640, height: 480, format: .jpeg)
            let uploaded = try await ana.postFile(
                item + "/images", ["csrf": try await ana.csrf()], file: ("image", photo))
            #expect(uploaded.status == 303 && uploaded.location == list)
            let shown = try await ana.get(list).body
            #expect(shown.contains(#"<span class="muted image-count">1 image</span>"#))
            let thumbnail = try #require(
                shown.range(of: #"/images/[0-9a-f]{64}/thumbnail"#, options: .regularExpression))
            #expect(try await ana.get(String(shown[thumbnail])).status == 200)
            // Not an image, or no file: the list says why, and nothing is added.
            let text = try await ana.postFile(
                item + "/images", ["csrf": try await ana.csrf()], file: ("image", Data("just text".utf8)))
            #expect(text.status == 400 && text.body.contains("is not a JPEG, PNG or HEIC image"))
            let none = try await ana.post(item + "/images", ["csrf": try await ana.csrf()])
            #expect(none.status == 400 && none.body.contains("multipart/form-data"))
            let forged = try await ana.postFile(item + "/images", [:], file: ("image", photo), site: "cross-site")
            #expect(forged.status == 403)
            // Another account cannot add to or remove from this item.
            let eve = try await Self.signedIn(url, accounts)
            let foreign = try await eve.postFile(
                item + "/images", ["csrf": try await eve.csrf()], file: ("image", photo))
            #expect(foreign.status == 404)
            let remove = try #require(shown.range(of: #"/images/[0-9a-f-]{36}/delete"#, options: .regularExpression))
            let removePath = item + String(shown[remove])
            #expect(try await eve.post(removePath, ["csrf": try await eve.csrf()]).status == 404)
            #expect(try await ana.post(removePath, ["csrf": try await ana.csrf()]).status == 303)
            #expect(!(try await ana.get(list).body.contains("image-count")))
        }
    }

    @Test("one account's pages never reach another account's deck")
    func scoped() async throws {
        try await Self.withWebServer { url, _, accounts in
            let ana = try await Self.signedIn(url, accounts)
            let deck = try await Self.createDeck(ana, "Private")
            let eve = try await Self.signedIn(url, accounts)
            for path in [deck, deck + "/study"] {
                let answer = try await eve.get(path)
                #expect(answer.status == 404 && !answer.body.contains("Private"))
            }
            let posted = try await eve.post(deck + "/cards", ["csrf": try await eve.csrf(), "front": "x", "back": "y"])
            #expect(posted.status == 404)
            #expect(Self.cardFronts(try await ana.get(deck).body).isEmpty)
        }
    }

    @Test("the server's copy holds the account to its plan after another device pushed a plan of its own")
    func copyKeepsTheAccountsPlan() async throws {
        try await Self.withWebServer { url, database, accounts in
            let (account, token) = try await Self.apiCaller(accounts, "ana-\(UUID().uuidString.prefix(8))", plan: .free)
            #expect(try await Self.apiCreateDeck(url, token: token, "Spanish").status == 201)
            #expect(try await Self.apiCardLimit(url, token: token) == .int(25))
            // A device that does not follow the account's plan (an older one, a script) pushes its
            // own: the plan is a field of the account's record, and the copy pulls it.
            let rogue = try CardboxStore.inMemory(account: account.id)
            _ = try rogue.setPlan(.premium)
            _ = try await database.push(
                try rogue.changes().changes, batch: UUID(), account: account.id, cardLimit: nil, now: Date())
            // What the web shows is the plan the server holds for the account, whatever the copy pulled.
            #expect(try await Self.apiCardLimit(url, token: token) == .int(25))
            // The copy's next write holds it to the account's plan again.
            #expect(try await Self.apiCreateDeck(url, token: token, "French").status == 201)
            #expect(try await Self.apiCardLimit(url, token: token) == .int(25))
        }
    }

    @Test("a web write that fails after the copy took the account's new plan leaves that plan to be read again")
    func failedWriteForgetsThePlan() async throws {
        try await Self.withWebServer { url, database, accounts in
            let (account, token) = try await Self.apiCaller(accounts, "ana-\(UUID().uuidString.prefix(8))")
            #expect(try await Self.apiCreateDeck(url, token: token, "Spanish").status == 201)
            #expect(try await Self.apiCardLimit(url, token: token) == nil)
            // Moved to the free plan, the copy takes it before the write, which then fails.
            try await database.setPlan(.free, account: account.id)
            #expect(try await Self.apiCreateDeck(url, token: token, "Spanish").status == 409)
            #expect(try await Self.apiCardLimit(url, token: token) == .int(25))
            // Back on premium, the next write sets the copy's plan again.
            try await database.setPlan(.premium, account: account.id)
            #expect(try await Self.apiCreateDeck(url, token: token, "French").status == 201)
            #expect(try await Self.apiCardLimit(url, token: token) == nil)
        }
    }

    @Test("/api/v1: a device token makes a deck, adds a card, studies it and undoes; the answers are JSON")
    func api() async throws {
        try await Self.withWebServer { url, _, accounts in
            _ = try await accounts.addAccount(name: "ana", password: "correct horse")
            let token = try await accounts.signIn(name: "ana", password: "correct horse", deviceName: "script").token
            let made = try await Self.apiCreateDeck(url, token: token, "Spanish")
            #expect(made.status == 201)
            let deck = try #require(Self.json(made.body)["deck"]?["id"]?.stringValue)
            let card = try await rawPost(
                url + "/api/v1/decks/\(deck)/cards", body: #"{"front": "hola", "back": "hello", "tags": ["greeting"]}"#,
                token: token)
            #expect(card.status == 201)
            let cardId = try #require(Self.json(card.body)["card"]?["id"]?.stringValue)
            let next = try Self.json(
                try await rawRequest(.GET, url + "/api/v1/decks/\(deck)/study", body: Data(), token: token).body)
            #expect(next["next"]?["card"]?["front"]?.stringValue == "hola")
            #expect(next["next"]?["nextDue"]?["3"] != nil)
            let wrongCard = try await rawPost(
                url + "/api/v1/decks/\(deck)/study", body: #"{"card": "\#(UUID())", "rating": 3}"#, token: token)
            #expect(wrongCard.status == 400)
            let badRating = try await rawPost(
                url + "/api/v1/decks/\(deck)/study", body: #"{"card": "\#(cardId)", "rating": 5}"#, token: token)
            #expect(badRating.status == 400)
            let answered = try await rawPost(
                url + "/api/v1/decks/\(deck)/study", body: #"{"card": "\#(cardId)", "rating": 3}"#, token: token)
            #expect(try answered.status == 200 && Self.json(answered.body)["card"]?["reps"] == .int(1))
            let undone = try await rawPost(url + "/api/v1/decks/\(deck)/study/undo", body: "", token: token)
            #expect(try undone.status == 200 && Self.json(undone.body)["card"]?["reps"] == .int(0))
            let listed = try Self.json(
                try await rawRequest(.GET, url + "/api/v1/decks", body: Data(), token: token).body)
            #expect(listed["allowance"]?["cardLimit"] == .int(25) && listed["allowance"]?["cardCount"] == .int(1))
            // Another account's token does not reach the deck; no token reaches nothing.
            _ = try await accounts.addAccount(name: "eve", password: "correct horse")
            let eve = try await accounts.signIn(name: "eve", password: "correct horse", deviceName: "script").token
            #expect(try await rawRequest(.GET, url + "/api/v1/decks/\(deck)", body: Data(), token: eve).status == 404)
            #expect(try await rawRequest(.GET, url + "/api/v1/decks", body: Data()).status == 401)
            // A body past its limit is refused as too large, and adds nothing.
            let huge = String(repeating: "a", count: 2 << 20)
            let tooLarge = try await rawPost(
                url + "/api/v1/decks/\(deck)/cards", body: #"{"front": "\#(huge)"}"#, token: token)
            #expect(tooLarge.status == 413)
            #expect(
                try Self.json(try await rawRequest(.GET, url + "/api/v1/decks", body: Data(), token: token).body)[
                    "allowance"]?["cardCount"] == .int(1))
        }
    }

    @Test("/api/v1 with the session cookie: a change needs the page's X-CSRF-Token")
    func apiWithCookie() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts)
            let cookie = try #require(browser.cookie)
            let csrf = try await browser.csrf()
            func post(_ headers: [(String, String)]) async throws -> Int {
                let body = Data(#"{"name": "Spanish", "frontLanguage": "es", "backLanguage": "en"}"#.utf8)
                return try await rawRequest(
                    .POST, url + "/api/v1/decks", body: body, headers: [("Cookie", cookie)] + headers
                ).status
            }
            #expect(try await post([]) == 403)
            #expect(try await post([("X-CSRF-Token", "0")]) == 403)
            #expect(try await post([("X-CSRF-Token", csrf)]) == 201)
        }
    }

    @Test("/v1/sync with the session cookie: the browser's replica pulls, and pushes with the page's CSRF token")
    func syncWithCookie() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts)
            let cookie = try #require(browser.cookie)
            let csrf = try await browser.csrf()
            let page = try await browser.get("/decks").body
            let account = try #require(
                page.range(of: #"data-account="[0-9a-f-]{36}""#, options: .regularExpression).map {
                    String(page[$0].dropFirst(#"data-account=""#.count).dropLast())
                })
            let pulled = try await browser.get("/v1/sync/pull?after=0")
            #expect(pulled.status == 200)
            let cursor = try #require(Self.json(pulled.body)["cursor"])
            var list = RowChange(
                entity: .itemList, id: UUID().uuidString.lowercased(),
                created: WriteClock(HLCTimestamp(milliseconds: 1_000, counter: 0), "web-a"), fields: [:])
            for (name, value) in [
                ("name", JSONValue.string("Market")), ("placement", .object(["position": .string("a0")])),
                ("isArchived", .bool(false)), ("createdAt", .int(1_000)), ("modifiedAt", .int(1_000)),
            ] {
                list.fields[name] = FieldChange(value: value, clock: list.created)
            }
            let changes = ChangeSet(
                accountId: try #require(UUID(uuidString: account)), replicaId: "web-a", rows: [list])
            func push(_ headers: [(String, String)]) async throws -> Int {
                try await rawRequest(
                    .POST, url + "/v1/sync/push?batch=\(UUID())", body: Data(changes.jsonText.utf8),
                    headers: [("Cookie", cookie), ("Content-Type", "application/json")] + headers
                ).status
            }
            #expect(try await push([]) == 403)
            #expect(try await push([("X-CSRF-Token", "0")]) == 403)
            #expect(try Self.json(try await browser.get("/v1/sync/pull?after=0").body)["cursor"] == cursor)
            #expect(try await push([("X-CSRF-Token", csrf)]) == 200)
            #expect(try await browser.get("/lists").body.contains("Market"))
            // Signed out, the cookie syncs nothing.
            _ = try await browser.post("/signout", ["csrf": csrf])
            #expect(
                try await rawRequest(.GET, url + "/v1/sync/pull?after=0", body: Data(), headers: [("Cookie", cookie)])
                    .status == 401)
        }
    }

    @Test("lists: add items, cross one out (hidden until shown, seed 002's setting), reorder, move, links in text")
    func lists() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts)
            let csrf = try await browser.csrf()
            let made = try await browser.post("/lists", ["csrf": csrf, "name": "Groceries"])
            let list = try #require(made.location)
            let other = try #require(try await browser.post("/lists", ["csrf": csrf, "name": "Hardware"]).location)
            for (title, quantity) in [("Milk", "2"), ("Bread", ""), ("Eggs", "12")] {
                let added = try await browser.post(
                    list + "/items", ["csrf": csrf, "title": title, "quantity": quantity, "description": ""])
                #expect(added.status == 303)
            }
            let refused = try await browser.post(list + "/items", ["csrf": csrf, "title": "Jam", "quantity": "many"])
            #expect(refused.status == 400 && refused.body.contains(#"value="Jam""#))
            var page = try await browser.get(list).body
            #expect(page.contains("× 2") && page.contains("× 12"))
            let ids = Self.itemIds(page)
            #expect(ids.count == 3)

            // Crossed out: hidden by default, shown (struck through) once the setting says so.
            _ = try await browser.post(list + "/items/\(ids[1])/cross", ["csrf": csrf])
            page = try await browser.get(list).body
            #expect(!page.contains(">Bread<") && page.contains("Show crossed-out items"))
            _ = try await browser.post(list + "/crossed-out", ["csrf": csrf, "show": "true"])
            page = try await browser.get(list).body
            #expect(page.contains(">Bread<") && page.contains(#"class="crossed""#))

            // Reorder: Eggs first; then Milk moves to the other list.
            _ = try await browser.post(list + "/items/\(ids[2])/move", ["csrf": csrf, "position": "0"])
            #expect(Self.itemIds(try await browser.get(list).body) == [ids[2], ids[0], ids[1]])
            let otherId = String(other.split(separator: "/").last!)
            _ = try await browser.post(list + "/items/\(ids[0])/move", ["csrf": csrf, "list": otherId])
            #expect(Self.itemIds(try await browser.get(other).body) == [ids[0]])
            // An item is changed only under its own list's path.
            let stray = try await browser.post(list + "/items/\(ids[0])/delete", ["csrf": csrf])
            #expect(stray.status == 404)

            // A description's web address is a link; anything else stays text.
            _ = try await browser.post(
                other + "/items/\(ids[0])",
                [
                    "csrf": csrf, "title": "Milk", "quantity": "",
                    "description": "See https://example.org/milk. <b>x</b>",
                ])
            page = try await browser.get(other).body
            #expect(page.contains(#"<a href="https://example.org/milk" rel="noopener noreferrer nofollow""#))
            #expect(page.contains("&lt;b&gt;x&lt;/b&gt;") && !page.contains("<b>x"))
            #expect(!page.contains("× ") && page.contains("Milk"))
        }
    }

    @Test("a row's arrows take it past the row shown beside it, hidden rows counted; none past either end")
    func arrowsCountHiddenRows() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts)
            let csrf = try await browser.csrf()
            let list = try #require(try await browser.post("/lists", ["csrf": csrf, "name": "Groceries"]).location)
            for title in ["Milk", "Salt", "Bread"] {
                _ = try await browser.post(
                    list + "/items", ["csrf": csrf, "title": title, "quantity": "", "description": ""])
            }
            let ids = Self.itemIds(try await browser.get(list).body)
            _ = try await browser.post(list + "/items/\(ids[1])/cross", ["csrf": csrf])
            var page = try await browser.get(list).body
            // Salt is crossed out and hidden: Milk's down arrow takes it past Bread (place 2 of 3).
            #expect(Self.arrow(page, "Milk", "up") == nil && Self.arrow(page, "Milk", "down") == "2")
            #expect(Self.arrow(page, "Bread", "up") == "0" && Self.arrow(page, "Bread", "down") == nil)
            let down = try await browser.post(
                list + "/items/\(ids[0])/move",
                ["csrf": csrf, "position": try #require(Self.arrow(page, "Milk", "down"))])
            #expect(down.status == 303)
            page = try await browser.get(list).body
            #expect(Self.itemIds(page) == [ids[2], ids[0]])
            // Drag and drop sends a row's place among all its siblings.
            #expect(page.contains(#"data-order="1""#) && page.contains(#"data-order="2""#))
            // The crossed-out setting is set only from a list that exists.
            let unknown = try await browser.post("/lists/\(UUID())/crossed-out", ["csrf": csrf, "show": "true"])
            #expect(unknown.status == 404)
            #expect(!(try await browser.get(list).body.contains(">Salt<")))

            // A board: an archived card between two others counts, and the last column has no right arrow.
            let board = try #require(try await browser.post("/boards", ["csrf": csrf, "title": "Trip"]).location)
            for title in ["To do", "Done"] {
                _ = try await browser.post(board + "/columns", ["csrf": csrf, "title": title])
            }
            let columns = Self.ids(try await browser.get(board).body, #"data-drop-column="([0-9a-f-]+)""#)
            for title in ["Pack", "Book", "Go"] {
                _ = try await browser.post(board + "/columns/\(columns[0])/cards", ["csrf": csrf, "title": title])
            }
            let cards = Self.ids(try await browser.get(board).body, #"id="card-([0-9a-f-]+)""#)
            _ = try await browser.post(board + "/cards/\(cards[1])/archive", ["csrf": csrf, "archived": "true"])
            page = try await browser.get(board).body
            #expect(Self.arrow(page, "Pack", "down") == "2" && Self.arrow(page, "Go", "down") == nil)
            #expect(page.contains(#"data-drop-column="\#(columns[0])" data-count="3""#))
            #expect(!page.contains("Move column To do left") && page.contains("Move column To do right"))
            #expect(page.contains("Move column Done left") && !page.contains("Move column Done right"))
            let moved = try await browser.post(
                board + "/cards/\(cards[0])/move",
                ["csrf": csrf, "column": columns[0], "position": try #require(Self.arrow(page, "Pack", "down"))])
            #expect(moved.status == 303)
            #expect(Self.ids(try await browser.get(board).body, #"id="card-([0-9a-f-]+)""#) == [cards[2], cards[0]])
        }
    }

    /// The position a row's arrow button sends (nil: the row has no such arrow).
    /// The place a row's arrow (a board's, "Move Pack up") or Move button (a list item's editor,
    /// "Move up: Milk") sends it to.
    static func arrow(_ page: String, _ title: String, _ direction: String) -> String? {
        ids(
            page,
            #"value="(\d+)" class="[^"]*" aria-label="Move (?:\#(direction): \#(title)|\#(title) \#(direction))""#
        ).first
    }

    @Test(
        "boards: columns, a card moved across columns stays there, archive hides it, other boards' cards are out of reach"
    )
    func boards() async throws {
        try await Self.withWebServer { url, _, accounts in
            let browser = try await Self.signedIn(url, accounts)
            let csrf = try await browser.csrf()
            let board = try #require(try await browser.post("/boards", ["csrf": csrf, "title": "Trip"]).location)
            for title in ["To do", "Done"] {
                #expect(try await browser.post(board + "/columns", ["csrf": csrf, "title": title]).status == 303)
            }
            var page = try await browser.get(board).body
            let columns = Self.ids(page, #"data-drop-column="([0-9a-f-]+)""#)
            #expect(columns.count == 2)
            _ = try await browser.post(board + "/columns/\(columns[0])/cards", ["csrf": csrf, "title": "Pack <bags>"])
            page = try await browser.get(board).body
            let card = try #require(Self.ids(page, #"id="card-([0-9a-f-]+)""#).first)
            #expect(page.contains("Pack &lt;bags&gt;"))
            let moved = try await browser.post(
                board + "/cards/\(card)/move", ["csrf": csrf, "column": columns[1], "position": "0"])
            #expect(moved.status == 303)
            page = try await browser.get(board).body
            let done = try #require(page.range(of: #"data-drop-column="\#(columns[1])""#))
            #expect(page[done.upperBound...].contains("card-\(card)"))
            // Columns reorder: Done first.
            _ = try await browser.post(board + "/columns/\(columns[1])/move", ["csrf": csrf, "position": "0"])
            #expect(
                Self.ids(try await browser.get(board).body, #"data-drop-column="([0-9a-f-]+)""#) == columns.reversed())
            // Archived: off the board, back with ?archived.
            _ = try await browser.post(board + "/cards/\(card)/archive", ["csrf": csrf, "archived": "true"])
            #expect(!(try await browser.get(board).body.contains("card-\(card)")))
            #expect(try await browser.get(board + "?archived").body.contains("card-\(card)"))
            // Another board's path does not reach this card or column.
            let other = try #require(try await browser.post("/boards", ["csrf": csrf, "title": "Home"]).location)
            #expect(try await browser.post(other + "/cards/\(card)/delete", ["csrf": csrf]).status == 404)
            #expect(
                try await browser.post(other + "/columns/\(columns[0])/cards", ["csrf": csrf, "title": "x"]).status
                    == 404)
            #expect(try await browser.get(board + "?archived").body.contains("card-\(card)"))
        }
    }

    /// The first capture group of `pattern` at each match in `page`, in order.
    static func ids(_ page: String, _ pattern: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: page, range: NSRange(page.startIndex..., in: page)).compactMap {
            Range($0.range(at: 1), in: page).map { String(page[$0]) }
        }
    }

    /// The ids of the items on a list's page, in order.
    /// The fronts of the cards a deck's page lists, in order (each row links to the card's editor).
    static func cardFronts(_ page: String) -> [String] {
        let row = /<li><strong><a href="\/decks\/[0-9a-f-]+\/cards\/[0-9a-f-]+"[^>]*>([^<]*)<\/a><\/strong>/
        return page.matches(of: row).map { String($0.output.1) }
    }

    static func itemIds(_ page: String) -> [String] {
        ids(page, #"data-move="/lists/[0-9a-f-]+/items/([0-9a-f-]+)/move""#)
    }

    /// The members of a JSON array (none for anything else).
    static func elements(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let values)? = value { return values }
        return []
    }

    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text, field: "answer") }

    /// The cards of a board's column (by place), from the API's JSON.
    static func cards(in board: JSONValue?, column: Int) -> [JSONValue] {
        let columns = elements(board?["columns"])
        return columns.indices.contains(column) ? elements(columns[column]["cards"]) : []
    }
}

extension JSONValue {
    fileprivate subscript(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    fileprivate var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }
}

/// The administrator's Users page: accounts added, plans set and devices signed out from the
/// browser, and no one else's to see.
@Suite("The Users page")
struct UsersPageTests {
    @Test("the first account adds an account, sets its plan (its decks page follows at once) and signs its device out")
    func users() async throws {
        try await WebAppTests.withWebServer { url, database, accounts in
            let owner = try await WebAppTests.signedIn(url, accounts)
            let ownerPage = try await owner.get("/account").body
            #expect(ownerPage.contains("You administer this server") && ownerPage.contains(#"href="/users""#))
            #expect(!ownerPage.contains("cardbox admin user set-plan"))
            let csrf = try await owner.csrf()
            let added = try await owner.post(
                "/users", ["csrf": csrf, "name": "bob", "password": "battery staple", "plan": "free"])
            #expect(added.status == 303 && added.location == "/users?changed=added")
            let taken = try await owner.post(
                "/users", ["csrf": csrf, "name": "BOB", "password": "battery staple", "plan": "free"])
            #expect(taken.status == 400 && taken.body.contains("already exists"))
            let noPlan = try await owner.post(
                "/users", ["csrf": csrf, "name": "carol", "password": "battery staple", "plan": "gold"])
            #expect(noPlan.status == 400 && noPlan.body.contains("&#39;gold&#39; is not one of free, premium"))
            #expect(try await !database.accounts().contains { $0.name == "carol" })

            // Bob signs in: not the administrator, told whom to ask, no Users page.
            let bob = TestBrowser(url)
            #expect(try await bob.post("/signin", ["user": "bob", "password": "battery staple"]).status == 303)
            let bobAccount = try await bob.get("/account").body
            // Told whom to ask and what to say, without the administrator's name (a sign-in name).
            let ownerName = try #require(try await database.accounts().first { $0.isAdministrator }?.name)
            #expect(bobAccount.contains("ask the administrator of this\nserver to move your account, bob, to it."))
            #expect(!bobAccount.contains(ownerName))
            #expect(try await bob.get("/users").status == 403)
            let bobCsrf = try await bob.csrf()
            #expect(
                try await bob.post(
                    "/users", ["csrf": bobCsrf, "name": "eve", "password": "x y z w", "plan": "premium"]
                )
                .status == 403)
            #expect(try await bob.get("/decks").body.contains("0 of 25"))
            // Nor may Bob set a plan or sign a device out through the page's addresses.
            let administrator = try #require(try await database.accounts().first { $0.isAdministrator })
            let administratorPath = "/users/\(administrator.id.uuidString.lowercased())"
            #expect(try await bob.post(administratorPath + "/plan", ["csrf": bobCsrf, "plan": "free"]).status == 403)
            let administratorDevice = try #require(try await database.devices(account: administrator.id).first)
            let revoke = administratorPath + "/devices/\(administratorDevice.id.uuidString.lowercased())/revoke"
            #expect(try await bob.post(revoke, ["csrf": bobCsrf]).status == 403)
            #expect(try await database.devices(account: administrator.id).first?.revokedAt == nil)

            // The plan set on the Users page holds at once on Bob's decks page.
            let bobId = try #require(try await database.accounts().first { $0.name == "bob" }?.id)
            let list = try await owner.get("/users").body
            #expect(list.contains(#"<li id="user-\#(bobId.uuidString.lowercased())"><strong>bob</strong>"#))
            let set = try await owner.post(
                "/users/\(bobId.uuidString.lowercased())/plan", ["csrf": csrf, "plan": "premium"])
            #expect(set.status == 303)
            #expect(try await database.account(bobId)?.plan == .premium)
            #expect(try await !bob.get("/decks").body.contains("of 25"))

            // Bob's browser signed out from the Users page.
            let device = try #require(try await database.devices(account: bobId).first { $0.revokedAt == nil })
            #expect(try await owner.get("/users").body.contains("/devices/\(device.id.uuidString.lowercased())/revoke"))
            let out = try await owner.post(
                "/users/\(bobId.uuidString.lowercased())/devices/\(device.id.uuidString.lowercased())/revoke",
                ["csrf": csrf])
            #expect(out.status == 303 && out.location == "/users?changed=device")
            #expect(try await bob.get("/decks").location == "/signin")
        }
    }
}

/// Two devices that each made "Spanish" before they synced: the pages tell the two apart and merge
/// one into the other.
@Suite("Merging same-named decks, lists and boards on their pages")
struct MergePagesTests {
    @Test("decks say when each was made and merge; lists and boards are told apart and merge")
    func merges() async throws {
        try await WebAppTests.withWebServer { url, _, accounts in
            let (browser, phone) = try await WebAppTests.browserAndPhone(url, accounts)
            let deck = try await WebAppTests.createDeck(browser, "Spanish")
            let csrf = try await browser.csrf()
            _ = try await browser.post(deck + "/cards", ["csrf": csrf, "front": "hola", "back": "hello"])
            let theirs = try phone.createDeck(name: "spanish", frontLanguage: "es", backLanguage: "en")
            _ = try phone.addCard(to: theirs.id, CardDraft(front: "perro", back: "dog"))
            let theirList = try phone.createList(name: "Groceries")
            _ = try phone.addItem(to: theirList.id, title: "Milk")
            let theirBoard = try phone.createBoard(title: "Home")
            _ = try await DeviceSync(testing: phone).sync()
            let list = try #require(try await browser.post("/lists", ["csrf": csrf, "name": "Groceries"]).location)
            let board = try #require(try await browser.post("/boards", ["csrf": csrf, "title": "Home"]).location)

            let decks = try await browser.get("/decks").body
            // Each row says when its deck was made, and so does the other's option in its Merge menu.
            #expect(decks.components(separatedBy: "· made ").count == 5)
            #expect(decks.contains(#"action="/decks/\#(theirs.id)/merge""#))
            let merged = try await browser.post(
                "/decks/\(theirs.id)/merge", ["csrf": csrf, "into": String(deck.split(separator: "/").last!)])
            #expect(merged.status == 303 && merged.location == deck)
            let page = try await browser.get(deck).body
            #expect(WebAppTests.cardFronts(page).sorted() == ["hola", "perro"])
            #expect(!(try await browser.get("/decks").body.contains("· made ")))

            let lists = try await browser.get("/lists").body
            #expect(lists.contains("Groceries · 1 item</option>") && lists.contains("Groceries · 0 items</option>"))
            let listId = String(list.split(separator: "/").last!)
            #expect(
                try await browser.post("/lists/\(theirList.id)/merge", ["csrf": csrf, "into": listId]).location == list)
            #expect(try await browser.get(list).body.contains(">Milk</span>"))

            let boards = try await browser.get("/boards").body
            #expect(boards.contains("Home (1 of 2)") && boards.contains("Home (2 of 2)"))
            let boardId = String(board.split(separator: "/").last!)
            #expect(
                try await browser.post("/boards/\(theirBoard.id)/merge", ["csrf": csrf, "into": boardId]).location
                    == board)
            #expect(!(try await browser.get("/boards").body.contains("of 2)")))
            // Into itself, or into what is not there: refused, nothing changes.
            let refused = try await browser.post("/lists/\(listId)/merge", ["csrf": csrf, "into": listId])
            #expect(refused.status == 400 && refused.body.contains("cannot be merged into itself"))
            #expect(
                try await browser.post("/boards/\(boardId)/merge", ["csrf": csrf, "into": UUID().uuidString]).status
                    == 404)
        }
    }
}
