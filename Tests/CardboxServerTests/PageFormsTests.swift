import CardboxCore
import CardboxServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

@testable import CardboxHTTP

/// The pages' routes, in process (no socket: what is checked is what the router does before a
/// handler runs).
@Suite("Every page's form is checked before its handler: a session, then its CSRF token")
struct PageFormsTests {
    /// The router of a server over an in-memory database, with an account signed in from a browser.
    static func withPages(
        _ body: @Sendable (_ client: any TestClientProtocol, _ routes: [String], _ session: String) async throws -> Void
    ) async throws {
        try await SyncStates.with("sqlite-memory") { database in
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4))
            var options = ServerOptions(openSignup: true)
            options.replicaFolder = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("cardbox-forms-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: options.replicaFolder!) }
            let (router, _) = try CardboxApplication.routes(
                database: database, accounts: accounts, options: options, secure: false)
            _ = try await accounts.addAccount(name: "ana", password: "correct horse")
            let session = try await accounts.signIn(name: "ana", password: "correct horse", deviceName: "Browser").token
            // Every page a form posts to, its parameters filled with an id nothing has.
            let routes = router.routes.filter { $0.method == .post }.map { "\($0.path)" }.filter {
                !$0.hasPrefix("/v1/") && !$0.hasPrefix("/api/")
            }.map { path in
                path.split(separator: "/", omittingEmptySubsequences: false).map {
                    $0.hasPrefix(":") ? UUID().uuidString.lowercased() : String($0)
                }.joined(separator: "/")
            }
            var logger = Logger(label: "cardbox.test-pages")
            logger.logLevel = .warning
            try await Application(router: router, logger: logger).test(.router) { client in
                try await body(client, routes, session)
            }
        }
    }

    static let beforeSession: Set<String> = ["/setup", "/signin", "/signup"]

    static func form(_ fields: String, cookie: String? = nil, contentType: String = formType) -> HTTPFields {
        var headers: HTTPFields = [.contentType: contentType]
        if let cookie { headers[.cookie] = "\(WebSession.cookieName)=\(cookie)" }
        return headers
    }

    static let formType = "application/x-www-form-urlencoded"

    @Test(
        "without a session a form goes to sign-in unread, whatever its size; with one, a missing or wrong token is refused"
    )
    func everyRoute() async throws {
        try await Self.withPages { client, routes, session in
            let signedInRoutes = routes.filter { !Self.beforeSession.contains($0) }
            #expect(signedInRoutes.count > 30)
            #expect(Set(routes).isSuperset(of: Self.beforeSession))
            // Larger than any form may be: answered before it is read.
            let large = ByteBuffer(repeating: UInt8(ascii: "a"), count: WebPage.formLimit * 2)
            for path in signedInRoutes {
                try await client.execute(uri: path, method: .post, headers: Self.form(""), body: large) { response in
                    #expect(response.status == .seeOther, "\(path)")
                    #expect(response.headers[.location] == "/signin", "\(path)")
                }
                for body in ["", "csrf=", "csrf=\(String(repeating: "0", count: 64))"] {
                    try await client.execute(
                        uri: path, method: .post, headers: Self.form(body, cookie: session),
                        body: ByteBuffer(string: body + "&name=x&title=x&position=0")
                    ) { response in
                        #expect(response.status == .forbidden, "\(path) \(body)")
                        #expect(String(buffer: response.body).contains("this form has expired"), "\(path)")
                    }
                }
                // A file's form must say it came from this server's page (`Sec-Fetch-Site`, `Origin`):
                // saying nothing, it is refused before the file.
                try await client.execute(
                    uri: path, method: .post,
                    headers: Self.form("", cookie: session, contentType: "multipart/form-data; boundary=x"), body: large
                ) { response in
                    #expect(response.status == .forbidden, "\(path)")
                }
            }
        }
    }

    @Test("the forms before a session (first run, sign-up, sign-in) are refused from another site's page")
    func beforeSession() async throws {
        try await Self.withPages { client, _, _ in
            for path in Self.beforeSession {
                var headers = Self.form("")
                headers[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
                try await client.execute(
                    uri: path + "?token=5e7c0a1b2c3d4e5f60718293a4b5c6d7", method: .post, headers: headers,
                    body: ByteBuffer(string: "user=mallory&password=correct horse")
                ) { response in
                    #expect(response.status == .forbidden, "\(path)")
                    #expect(String(buffer: response.body).contains("this form came from another site"), "\(path)")
                }
            }
        }
    }

    @Test("a form with its session's token reaches its handler, its fields read once")
    func checkedFormReachesHandler() async throws {
        try await Self.withPages { client, _, session in
            let csrf = WebSession.csrfToken(session)
            let body = "csrf=\(csrf)&name=Spanish&front=es&back=en"
            let location = try await client.execute(
                uri: "/decks", method: .post, headers: Self.form(body, cookie: session), body: ByteBuffer(string: body)
            ) { response in
                #expect(response.status == .seeOther)
                return response.headers[.location] ?? ""
            }
            #expect(location.hasPrefix("/decks/"))
            try await client.execute(uri: location, method: .get, headers: Self.form("", cookie: session)) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<h1>Spanish</h1>"))
            }
        }
    }
}
