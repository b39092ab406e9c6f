import CardboxCore
import CardboxServer
import CardboxStore
import CardboxSync
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

@testable import CardboxHTTP

/// What an ordinary account can push to stop a server, pushed: each value that once trapped is
/// refused with a 400 naming its row and field, and the server goes on answering study through the
/// API and the web page. In process, on the router `serve` uses: a trap would stop the test run.
@Suite("Values a device pushes cannot stop the server")
struct HostileValuesTests {
    /// A signed-in account, its session, and a device store of it holding a deck with one card.
    struct Setting {
        let client: any TestClientProtocol
        let session: String
        let device: CardboxStore
        let deck: Deck
        let card: Card

        var bearer: HTTPFields { [.authorization: "Bearer \(session)", .contentType: "application/json"] }

        func send(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil) async throws -> TestResponse {
            try await client.execute(
                uri: path, method: method, headers: bearer, body: body.map { ByteBuffer(string: $0) })
        }

        func push(_ rows: [RowChange]) async throws -> TestResponse {
            let changes = ChangeSet(accountId: device.accountId, replicaId: device.replicaId, rows: rows)
            return try await send(.post, "/v1/sync/push?batch=\(UUID().uuidString)", changes.jsonText)
        }

        /// The device's row of `entity`, under a new id, with `changes` made to its fields.
        func row(_ entity: SyncedEntity, _ changes: [String: JSONValue]) throws -> RowChange {
            let (set, _) = try device.changes()
            var row = try #require(set.rows.first { $0.entity == entity })
            row.id = UUID().uuidString.lowercased()
            for (name, value) in changes {
                let field = try #require(row.fields[name])
                row.fields[name] = FieldChange(value: value, clock: field.clock)
            }
            return row
        }

        /// The card's schedule with `changes` made to its members.
        func schedule(_ changes: [String: JSONValue]) throws -> JSONValue {
            let (set, _) = try device.changes()
            let card = try #require(set.rows.first { $0.entity == .card })
            guard case .object(var members)? = card.fields["schedule"]?.value else {
                throw CardboxError.invalid(field: "schedule", reason: "is not an object")
            }
            members.merge(changes) { $1 }
            return .object(members)
        }
    }

    static func withAccount(_ body: @Sendable (Setting) async throws -> Void) async throws {
        try await SyncStates.with("sqlite-memory") { database in
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4))
            var options = ServerOptions()
            options.replicaFolder = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("cardbox-hostile-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: options.replicaFolder!) }
            let (router, _) = try CardboxApplication.routes(
                database: database, accounts: accounts, options: options, secure: false)
            let account = try await accounts.addAccount(name: "mallory", password: "correct horse")
            let session = try await accounts.signIn(name: "mallory", password: "correct horse", deviceName: "CLI")
                .token
            let device = try CardboxStore.inMemory(account: account.id)
            let deck = try device.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            let card = try device.addCard(to: deck.id, CardDraft(front: "hola", back: "hello"))
            var logger = Logger(label: "cardbox.test-hostile")
            logger.logLevel = .warning
            try await Application(router: router, logger: logger).test(.router) { client in
                let setting = Setting(client: client, session: session, device: device, deck: deck, card: card)
                let (honest, _) = try device.changes()
                let first = try await setting.send(
                    .post, "/v1/sync/push?batch=\(UUID().uuidString)", honest.jsonText)
                #expect(first.status == .ok, "\(String(buffer: first.body))")
                try await body(setting)
            }
        }
    }

    /// The server still answers study through the API (JSON), the offline day and the web page.
    static func expectStudyAnswers(_ setting: Setting) async throws {
        let deck = setting.deck.id
        let api = try await setting.send(.get, "/api/v1/decks/\(deck)/study")
        #expect(api.status == .ok, "\(String(buffer: api.body))")
        let offline = try await setting.send(.get, "/api/v1/decks/\(deck)/offline")
        #expect(offline.status == .ok, "\(String(buffer: offline.body))")
        let page = try await setting.client.execute(
            uri: "/decks/\(deck)/study", method: .get,
            headers: [.cookie: "\(WebSession.cookieName)=\(setting.session)"])
        #expect(page.status == .ok)
    }

    static let largest = JSONValue.int(Int64.max)

    @Test("every schedule value that trapped is refused on push, naming the row and the field")
    func scheduleTriggers() async throws {
        try await Self.withAccount { setting in
            let triggers: [(members: [String: JSONValue], field: String)] = [
                (
                    [
                        "state": .string("review"), "stability": .int(5), "difficulty": .int(5), "reps": Self.largest,
                        "dueAt": .int(1), "lastReviewAt": .int(1), "step": .null,
                    ], "reps"
                ),
                (
                    ["state": .string("review"), "stability": .int(5), "difficulty": .int(5), "lapses": Self.largest],
                    "lapses"
                ),
                (["state": .string("learning"), "step": .int(0), "dueAt": Self.largest], "dueAt"),
                (["state": .string("review"), "stability": .double(1e308), "difficulty": .int(5)], "stability"),
                (["state": .string("learning"), "step": Self.largest], "step"),
                (["state": .string("review"), "difficulty": .double(11)], "difficulty"),
                (["state": .string("review"), "lastReviewAt": .int(-62_135_596_800_000)], "lastReviewAt"),
            ]
            for trigger in triggers {
                let row = try setting.row(.card, ["schedule": try setting.schedule(trigger.members)])
                let response = try await setting.push([row])
                #expect(response.status == .badRequest, "\(trigger.field)")
                #expect(
                    String(buffer: response.body).contains("changes.rows[0].fields.schedule.\(trigger.field)"),
                    "\(String(buffer: response.body))")
            }
            try await Self.expectStudyAnswers(setting)
        }
    }

    @Test("deck settings the engine refuses are refused on push, and study goes on")
    func settingsTriggers() async throws {
        try await Self.withAccount { setting in
            let triggers: [(String, JSONValue)] = [
                ("learningSteps", .string("1e308d")), ("relearningSteps", .string("1e308d")),
                ("learningSteps", .string("nanm")), ("maximumInterval", Self.largest),
                ("desiredRetention", .double(1e-300)), ("fsrsParameters", .string("[]")),
                ("fsrsParameters", .string("[" + Array(repeating: "1e308", count: 21).joined(separator: ",") + "]")),
                ("newCardsPerDay", Self.largest), ("reviewsPerDay", .int(-1)),
            ]
            for (field, value) in triggers {
                let response = try await setting.push([try setting.row(.deck, [field: value])])
                #expect(response.status == .badRequest, "\(field) = \(value)")
                #expect(
                    String(buffer: response.body).contains("changes.rows[0].fields.\(field)"),
                    "\(String(buffer: response.body))")
            }
            // A setting's value is held to its range too.
            let clock = try setting.row(.deck, [:]).created
            let hour = RowChange(
                entity: .setting, id: "dayStartHour", created: clock,
                fields: [
                    "key": FieldChange(value: .string("dayStartHour"), clock: clock),
                    "value": FieldChange(value: .string("99999999999"), clock: clock),
                ])
            let setting400 = try await setting.push([hour])
            #expect(setting400.status == .badRequest)
            #expect(String(buffer: setting400.body).contains("dayStartHour must be an hour from 0 to 23"))
            try await Self.expectStudyAnswers(setting)
        }
    }

    @Test("a device's push cannot change its account's plan or card limit")
    func planIsTheServers() async throws {
        try await Self.withAccount { setting in
            let clock = try setting.row(.deck, [:]).created
            let account = RowChange(
                entity: .account, id: setting.device.accountId.uuidString.lowercased(), created: clock,
                fields: [
                    "plan": FieldChange(value: .string("premium"), clock: clock),
                    "freeCardLimit": FieldChange(value: .int(1_000_000_000), clock: clock),
                ])
            let response = try await setting.push([account])
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            let decks = try await setting.send(.get, "/api/v1/decks")
            let allowance = try #require(
                (try JSONSerialization.jsonObject(with: Data(buffer: decks.body)) as? [String: Any])?["allowance"]
                    as? [String: Any])
            #expect(allowance["plan"] as? String == "free" && allowance["cardLimit"] as? Int == 25)
            // The 26th card is still refused: 24 more fit beside the device's one.
            for index in 0..<24 {
                let added = try await setting.send(
                    .post, "/api/v1/decks/\(setting.deck.id)/cards", #"{"front": "c\#(index)", "back": "x"}"#)
                #expect(added.status == .created)
            }
            let refused = try await setting.send(
                .post, "/api/v1/decks/\(setting.deck.id)/cards", #"{"front": "one too many", "back": "x"}"#)
            #expect(refused.status != .created)
        }
    }

    @Test("offline answers before 1970, of endless duration, or many at one instant change nothing")
    func offlineAnswers() async throws {
        try await Self.withAccount { setting in
            let path = "/api/v1/decks/\(setting.deck.id)/answers"
            func answer(_ time: String, duration: String = "1200", id: UUID = UUID()) -> String {
                #"{"id": "\#(id)", "card": "\#(setting.card.id)", "rating": 3, "answeredAt": "\#(time)", "durationMs": \#(duration)}"#
            }
            let early = try await setting.send(.post, path, #"{"answers": [\#(answer("0001-01-01T00:00:00Z"))]}"#)
            #expect(early.status == .badRequest, "\(String(buffer: early.body))")
            let now = OfflineStudyAPITests.time(Date().addingTimeInterval(-60))
            let endless = try await setting.send(
                .post, path, #"{"answers": [\#(answer(now, duration: "9223372036854775807"))]}"#)
            #expect(endless.status == .badRequest, "\(String(buffer: endless.body))")
            #expect(String(buffer: endless.body).contains("duration"))
            let many = (0..<1_000).map { _ in answer(now) }.joined(separator: ",")
            let burst = try await setting.send(.post, path, #"{"answers": [\#(many)]}"#)
            #expect(burst.status == .ok, "\(String(buffer: burst.body))")
            let outcomes = try #require(
                (try JSONSerialization.jsonObject(with: Data(buffer: burst.body)) as? [String: Any])?["outcomes"]
                    as? [String])
            #expect(outcomes.first == "applied" && outcomes.dropFirst().allSatisfy { $0 == "already-applied" })
            let day = try await setting.send(.get, "/api/v1/decks/\(setting.deck.id)/offline")
            let cards = try #require(
                (try JSONSerialization.jsonObject(with: Data(buffer: day.body)) as? [String: Any])?["cards"]
                    as? [[String: Any]])
            let card = cards.first { $0["id"] as? String == setting.card.id.description }
            #expect(card?["reps"] as? Int == 1)
            try await Self.expectStudyAnswers(setting)
        }
    }
}
