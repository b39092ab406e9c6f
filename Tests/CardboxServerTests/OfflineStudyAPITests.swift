import CardboxCore
import CardboxServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import CardboxHTTP

/// `/api/v1/decks/{deck}/offline` and `/answers`, in process.
@Suite("The API of offline study: the day a page keeps, and its outbox")
struct OfflineStudyAPITests {
    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    @Test("the day's cards and the scheduler's settings; answers applied once, a malformed one named")
    func dayAndOutbox() async throws {
        try await PageFormsTests.withPages { client, _, session in
            let headers: HTTPFields = [.authorization: "Bearer \(session)", .contentType: "application/json"]
            func send(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil) async throws -> TestResponse
            {
                try await client.execute(
                    uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
            }
            let deck = try Self.json(
                try await send(
                    .post, "/api/v1/decks", #"{"name": "Spanish", "frontLanguage": "es", "backLanguage": "en"}"#))
            let deckId = try #require((deck["deck"] as? [String: Any])?["id"] as? String)
            for front in ["uno", "dos", "tres"] {
                #expect(
                    try await send(.post, "/api/v1/decks/\(deckId)/cards", #"{"front": "\#(front)", "back": "x"}"#)
                        .status
                        == .created)
            }
            let day = try Self.json(try await send(.get, "/api/v1/decks/\(deckId)/offline"))
            let settings = try #require(day["settings"] as? [String: Any])
            #expect((settings["weights"] as? [Double])?.count == 21)
            #expect(settings["learningSteps"] as? [Double] == [60, 600] && settings["fuzz"] as? Bool == true)
            let cards = try #require(day["cards"] as? [[String: Any]])
            #expect(cards.compactMap { $0["question"] as? String }.sorted() == ["dos", "tres", "uno"])
            #expect(cards.allSatisfy { $0["state"] as? String == "new" } && (day["dayEnds"] as? Double ?? 0) > 0)

            let card = try #require(cards.first?["id"] as? String)
            let answer =
                #"{"answers": [{"id": "\#(UUID().uuidString)", "card": "\#(card)", "rating": 3, "answeredAt": "\#(Self.time(Date().addingTimeInterval(-60)))", "durationMs": 1200}]}"#
            let first = try await send(.post, "/api/v1/decks/\(deckId)/answers", answer)
            #expect(first.status == .ok)
            #expect(try Self.json(first)["outcomes"] as? [String] == ["applied"])
            let again = try await send(.post, "/api/v1/decks/\(deckId)/answers", answer)
            #expect(try Self.json(again)["outcomes"] as? [String] == ["already-applied"])
            let after = try Self.json(try await send(.get, "/api/v1/decks/\(deckId)/offline"))
            let learned = (after["cards"] as? [[String: Any]])?.first { $0["id"] as? String == card }
            #expect(learned?["state"] as? String == "learning" && learned?["reps"] as? Int == 1)

            let missing =
                #"{"answers": [{"id": "\#(UUID().uuidString)", "card": "\#(card)", "answeredAt": "2026-01-01T00:00:00Z"}]}"#
            let refused = try await send(.post, "/api/v1/decks/\(deckId)/answers", missing)
            #expect(refused.status == .badRequest)
            #expect(String(buffer: refused.body).contains("answers[0].rating"))
        }
    }
}
