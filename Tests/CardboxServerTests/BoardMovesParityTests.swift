import CardboxConvergence
import CardboxCore
import CardboxStore
import CardboxSync
import Foundation
import Testing

/// Moving a board's cards on the browser's replica (`BoardWrites`), natively and in the WebAssembly
/// module under Node, against the store's `moveBoardCard`: the same moves, at the same times, with
/// the same randomness, leave the same records (clocks included) and refuse the same things.
@Suite("Board moves: the browser's replica moves cards as the store does")
struct BoardMovesParityTests {
    /// A move of card `card` (by the order they were made) to `to` in column `column` (by the order
    /// they were made; nil: its own). Column 2 is another board's; card 9 and column 9 are unknown.
    struct Move: Sendable {
        let card: Int
        let to: Int?
        let column: Int?
    }

    static let moves: [Move] = [
        Move(card: 0, to: 2, column: nil), Move(card: 0, to: nil, column: 1), Move(card: 1, to: 0, column: 1),
        Move(card: 2, to: 5, column: nil), Move(card: 2, to: -1, column: nil), Move(card: 3, to: 0, column: 2),
        Move(card: 4, to: nil, column: nil), Move(card: 9, to: 0, column: nil), Move(card: 1, to: 1, column: 9),
        Move(card: 3, to: 2, column: 0), Move(card: 1, to: 0, column: 0),
    ]

    static let unknown = "00000000-0000-4000-8000-000000000009"

    static func run(seed: UInt64) throws -> (
        store: String, replica: String, refusals: [String?], replicaRefusals: [String?], browser: [String: Any]
    ) {
        let setting = ListWritesParityTests.Setting(seed: seed)
        let store = try CardboxStore.inMemory(environment: setting.environment())
        let trip = try store.createBoard(title: "Trip")
        let columns = [
            try store.addColumn(to: trip.id, title: "To do"), try store.addColumn(to: trip.id, title: "Doing"),
            try store.addColumn(to: try store.createBoard(title: "Other").id, title: "Elsewhere"),
        ]
        var cards = try ["tent", "map", "boots", "stove"].map { try store.addBoardCard(to: columns[0].id, title: $0) }
        cards.append(try store.addBoardCard(to: columns[1].id, title: "tickets"))
        _ = try store.setBoardCardArchived(cards[3].id, true)
        var (replica, startTexts) = try ListWritesParityTests.replica(of: store, at: setting.milliseconds)
        let receivedAt = setting.milliseconds
        let id = { (text: CustomStringConvertible) in text.description.lowercased() }
        var outcome: (refusals: [String?], replicaRefusals: [String?]) = ([], [])
        var browserWrites: [[String: Any]] = []
        for move in moves {
            setting.milliseconds += 1_000
            let now = setting.milliseconds
            let card = move.card < cards.count ? id(cards[move.card].id) : unknown
            let column = move.column.map { $0 < columns.count ? id(columns[$0].id) : unknown }
            var (refusal, replicaRefusal): (String?, String?) = (nil, nil)
            do {
                _ = try store.moveBoardCard(
                    try #require(BoardCardID(card)), to: move.to,
                    inColumn: try column.map { try #require(ColumnID($0)) })
            } catch { refusal = error.localizedDescription }
            var random = SeededRandom(seed: seed)
            do throws(CardboxError) {
                try replica.moveBoardCard(id: card, to: move.to, column: column, at: now, random: &random)
            } catch { replicaRefusal = error.message }
            outcome.refusals.append(refusal)
            outcome.replicaRefusals.append(replicaRefusal)
            browserWrites.append([
                "kind": "moveBoardCard",
                "request": ["id": card, "column": column ?? NSNull(), "to": move.to ?? NSNull()] as [String: Any],
                "now": now, "seed": seed,
            ])
        }
        let browser: [String: Any] = [
            "replicaId": store.replicaId, "accountId": store.accountId.uuidString.lowercased(),
            "receivedAt": receivedAt, "changes": startTexts, "writes": browserWrites,
        ]
        return (try store.canonicalDump(), replica.canonicalDump(), outcome.refusals, outcome.replicaRefusals, browser)
    }

    @Test("within and across columns, to the end, archived cards counted; each refusal with the store's words")
    func sameRecords() throws {
        for seed in UInt64(1)...3 {
            let outcome = try Self.run(seed: seed)
            #expect(outcome.replica == outcome.store)
            #expect(outcome.replicaRefusals == outcome.refusals)
            // Out of range three times, another board's column, an unknown card, an unknown column.
            #expect(outcome.refusals.compactMap { $0 }.count == 6)
        }
    }

    @Test("the WebAssembly module under Node: the same records and refusals")
    func sameRecordsInTheBrowser() throws {
        let (browser, folder) = try ReplicaWasmTests.node()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = try Self.run(seed: 2)
        let answer = try browser.send(outcome.browser)
        #expect(answer["dump"] == .string(outcome.store))
        #expect(answer["refusals"] == .array(outcome.replicaRefusals.map { $0.map(JSONValue.string) ?? .null }))
    }
}
