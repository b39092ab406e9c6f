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

/// Every answer carries the same headers, errors and refusals included; a person who mistypes an
/// address reads a page, a program reads JSON (in process: no socket).
@Suite("One response policy for every answer")
struct ResponsePolicyTests {
    static func withRouter(
        secure: Bool, _ body: @Sendable (_ client: any TestClientProtocol) async throws -> Void
    ) async throws {
        try await SyncStates.with("sqlite-memory") { database in
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4))
            var options = ServerOptions(openSignup: true)
            options.replicaFolder = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("cardbox-policy-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: options.replicaFolder!) }
            let (router, _) = try CardboxApplication.routes(
                database: database, accounts: accounts, options: options, secure: secure)
            var logger = Logger(label: "cardbox.test-policy")
            logger.logLevel = .warning
            try await Application(router: router, logger: logger).test(.router) { client in try await body(client) }
        }
    }

    static let html: HTTPFields = [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"]

    @Test("a page, an API error, a mistyped address and a refused request carry the same headers; HSTS over HTTPS")
    func headers() async throws {
        for secure in [false, true] {
            try await Self.withRouter(secure: secure) { client in
                let answers = [
                    try await client.execute(uri: "/signin", method: .get, headers: Self.html),
                    try await client.execute(uri: "/no-such-page", method: .get, headers: Self.html),
                    try await client.execute(uri: "/no-such-page", method: .get),
                    try await client.execute(uri: "/v1/sync/pull", method: .get),
                    try await client.execute(uri: "/api/v1/nope", method: .get, headers: Self.html),
                    try await client.execute(uri: "/decks", method: .get, headers: Self.html),
                ]
                #expect(answers.map(\.status.code) == [200, 404, 404, 401, 404, 303])
                for answer in answers {
                    #expect(answer.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
                    #expect(answer.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
                    #expect((answer.headers[.strictTransportSecurity] != nil) == secure)
                    #expect(answer.headers[values: .contentSecurityPolicy].count == 1)
                }
                // The mistyped address: a page for a browser, JSON for a program and the API's paths.
                #expect(answers[1].headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(String(buffer: answers[1].body).contains("<!doctype html>"))
                #expect(answers[2].headers[.contentType] == "application/json")
                #expect(answers[4].headers[.contentType] == "application/json")
            }
        }
    }
}
