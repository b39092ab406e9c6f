import CardboxCore
import CardboxSync
import Foundation
import GRDB
import Testing

@testable import CardboxStore

@Suite("History, transactions and persistence")
struct HistoryAndPersistenceTests {
    @Test("every mutation records its fields with one HLC timestamp and the replica id")
    func changeRecords() throws {
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try store.addCard(to: "D", CardDraft(front: "hola", back: "hello", tags: ["greeting"]))
        _ = try store.editCard(card.id.uuidString, CardChanges(back: "hi"))
        let changes = try store.changes().map(\.change)
        #expect(changes.map(\.entity) == ["deck", "card", "tag", "cardTag", "card"])
        #expect(changes.allSatisfy { $0.replicaId == store.replicaId })
        #expect(changes[0].rowId == deck.id.storage && changes[0].fields["name"] == .string("D"))
        #expect(changes[1].operation == .insert && changes[1].fields["front"] == .string("hola"))
        #expect(changes[1].timestamp == changes[2].timestamp && changes[2].timestamp == changes[3].timestamp)
        let edit = changes[4]
        #expect(edit.operation == .update && Set(edit.fields.keys) == ["back", "modifiedAt"])
        #expect(edit.timestamp > changes[1].timestamp)
    }

    @Test("a move is recorded as one placement field (parent and position together)")
    func placement() throws {
        let store = try TestStore.make()
        _ = try store.createList(name: "A")
        _ = try store.createList(name: "B")
        let item = try store.addItem(to: "A", title: "milk")
        let before = try store.changes().count
        _ = try store.moveItem(item.id.uuidString, to: 0, inList: "B")
        let move = try #require(try store.changes().dropFirst(before).first?.change)
        #expect(move.entity == "item" && Set(move.fields.keys) == ["placement", "modifiedAt"])
        guard case .object(let placement) = move.fields["placement"] else {
            Issue.record("placement is not an object")
            return
        }
        #expect(Set(placement.keys) == ["listId", "position"])
    }

    @Test("deletes leave tombstones for the row and every row its cascade removed")
    func tombstones() throws {
        let store = try TestStore.make()
        _ = try store.createBoard(title: "B")
        let column = try store.addColumn(to: "B", title: "c")
        let card = try store.addBoardCard(to: column.id.uuidString, title: "x")
        let board = try store.board("B")
        try store.deleteBoard("B")
        let deletes = try store.changes().map(\.change).filter { $0.operation == .delete }
        #expect(deletes.map(\.rowId) == [card.id.storage, column.id.storage, board.id.storage])
        #expect(deletes.map(\.entity) == ["boardCard", "boardColumn", "board"])
        #expect(deletes.allSatisfy { $0.fields.isEmpty })
    }

    @Test("a failed operation changes nothing, history included")
    func rollback() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.setPlan(.free, freeCardLimit: 2)
        let changes = try store.changeCount()
        let drafts = (0..<3).map { CardDraft(front: "w\($0)", back: "-", tags: ["t\($0)"]) }
        #expect(throws: CardboxError.self) { try store.addCards(to: "D", drafts) }
        #expect(try store.changeCount() == changes)
        #expect(try store.rowCount("card") == 0 && store.rowCount("tag") == 0)
    }

    @Test("the schema itself refuses what the rules forbid")
    func schemaConstraints() throws {
        let store = try TestStore.make()
        _ = try store.createList(name: "L")
        #expect(throws: CardboxError.self) {
            try store.write { tx in
                try tx.insert(
                    .item, id: UUID().uuidString.lowercased(),
                    [
                        ("listId", "no-such-list"), ("title", "x"), ("position", "a0"), ("createdAt", 0),
                        ("modifiedAt", 0),
                    ])
            }
        }
        let item = try store.addItem(to: "L", title: "milk", quantity: 2)
        // Each statement on its own, so that each CHECK is what refuses it.
        #expect(throws: CardboxError.self) {
            try store.write { tx in
                try tx.db.execute(
                    sql: "UPDATE item SET quantity = 3000000000 WHERE accountId = ? AND id = ?",
                    arguments: [tx.account, item.id.storage])
                #expect(tx.db.changesCount == 1, "the update must reach the row for the CHECK to be tested")
            }
        }
        #expect(throws: CardboxError.self) {
            try store.write { tx in
                try tx.insert(
                    .itemList, id: UUID().uuidString.lowercased(),
                    [("name", ""), ("position", "a1"), ("createdAt", 0), ("modifiedAt", 0)])
            }
        }
        #expect(try store.lists().count == 1)
        #expect(try store.list("L").items?.map(\.quantity) == [2])
    }

    @Test("data survives closing and reopening the store file, which runs in WAL mode")
    func persistence() throws {
        let path = TestStore.temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        let (accountId, replicaId): (UUID, String)
        do {
            let store = try CardboxStore.open(path: path)
            _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
            _ = try store.addCard(to: "D", CardDraft(front: "hola", back: "hello"))
            _ = try store.createList(name: "L")
            (accountId, replicaId) = (store.accountId, store.replicaId)
        }
        let reopened = try CardboxStore.open(path: path)
        #expect(reopened.accountId == accountId && reopened.replicaId == replicaId)
        #expect(try reopened.cards(in: "D").map(\.front) == ["hola"])
        #expect(try reopened.lists().map(\.name) == ["L"])
        let mode = try reopened.read { try String.fetchOne($0.db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        // HLC timestamps keep increasing across restarts.
        _ = try reopened.createList(name: "M")
        let stamps = try reopened.changes().map(\.change.timestamp)
        #expect(stamps == stamps.sorted())
    }

    @Test("a store file holding two accounts shows each only its own rows")
    func accountScoping() throws {
        let path = TestStore.temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        let alice = try CardboxStore.open(path: path, account: UUID())
        let bob = try CardboxStore.open(path: path, account: UUID())
        let deck = try alice.createDeck(name: "Private", frontLanguage: "es", backLanguage: "en")
        let card = try alice.addCard(to: "Private", CardDraft(front: "secreto", back: "secret", tags: ["mine"]))
        _ = try alice.createList(name: "Groceries")
        #expect(try bob.decks().isEmpty && bob.lists().isEmpty && bob.tags().isEmpty)
        #expect(try bob.cards(in: nil).isEmpty)
        #expect(throws: CardboxError.self) { try bob.card(card.id.uuidString) }
        #expect(throws: CardboxError.self) { try bob.deleteDeck(deck.id.uuidString) }
        #expect(try bob.changes().isEmpty)
        // Bob may use the same deck name: uniqueness is per account.
        _ = try bob.createDeck(name: "Private", frontLanguage: "fr", backLanguage: "en")
        #expect(try alice.deck("Private").frontLanguage == "es")
    }

    @Test("plan changes are recorded like any other change")
    func planHistory() throws {
        let store = try TestStore.make()
        _ = try store.setPlan(.premium)
        _ = try store.setPlan(.free, freeCardLimit: 40)
        let changes = try store.changes().map(\.change).filter { $0.entity == "account" }
        #expect(
            changes.map(\.fields) == [
                ["plan": .string("premium")], ["plan": .string("free"), "freeCardLimit": .int(40)],
            ])
        #expect(try store.allowance().cardLimit == 40)
    }

    @Test("settings persist and unknown keys are refused")
    func settings() throws {
        let store = try TestStore.make()
        #expect(try store.settings() == UserSettings())
        _ = try store.setSetting("exportPreferences", to: #"{"includeImages":false}"#)
        #expect(try store.settings().exportPreferences == .object(["includeImages": .bool(false)]))
        #expect(throws: CardboxError.self) { try store.setSetting("theme", to: "dark") }
        #expect(try store.changes().last?.change.entity == "setting")
    }
}

@Suite("Stored forms")
struct StoredFormTests {
    @Test("ids are stored as lowercase RFC text, formatted without snprintf")
    func uuidText() throws {
        for _ in 0..<1_000 {
            let id = UUID()
            #expect(id.storage == id.uuidString.lowercased())
            #expect(try UUID(stored: id.storage) == id && UUID(stored: id.uuidString) == id)
        }
    }

    @Test("a malformed stored id is an error, never a crash")
    func malformedIds() {
        for text in [
            "", "x", "not-an-id", "0195f6a2-7c1e-7b3a-9e4f-1a2b3c4d5e6", "0195f6a2-7c1e-7b3a-9e4f-1a2b3c4d5e6f0",
            "0195f6a27c1e7b3a9e4f1a2b3c4d5e6f0000", "0195f6a2-7c1e-7b3a-9e4f-1a2b3c4d5e6g",
            "é195f6a2-7c1e-7b3a-9e4f-1a2b3c4d5e6",
        ] {
            #expect(UUID(storedText: text) == nil, "\(text)")
            #expect(throws: CardboxError.self) { try UUID(stored: text) }
        }
    }
}
