import CardboxCore
import CardboxSync
import Foundation
import GRDB
import Testing

@testable import CardboxStore

@Suite("History, transactions and persistence")
struct HistoryAndPersistenceTests {
    @Test("an insert stamps its rows with the transaction's clock; an update gives the fields it wrote their own")
    func changeCapture() throws {
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try store.addCard(
            to: try store.resolve("D"), CardDraft(front: "hola", back: "hello", tags: ["greeting"]))
        _ = try store.editCard(card.id, CardChanges(back: "hi"))
        let rows = try store.changes().changes.rows
        #expect(Set(rows.map(\.entity)) == [.deck, .card, .tag, .cardTag])
        let deckRow = try #require(rows.first { $0.entity == .deck })
        let cardRow = try #require(rows.first { $0.entity == .card })
        #expect(deckRow.id == deck.id.storage && deckRow.fields["name"]?.value == .string("D"))
        #expect(rows.allSatisfy { $0.created.replicaId == store.replicaId })
        // One transaction, one clock: the card, its new tag and the link share it.
        #expect(Set(rows.filter { $0.entity != .deck }.map(\.created)).count == 1)
        #expect(cardRow.created > deckRow.created)
        #expect(cardRow.fields["front"]?.clock == cardRow.created)
        #expect(cardRow.fields["back"]?.value == .string("hi"))
        #expect(try #require(cardRow.fields["back"]?.clock) > cardRow.created)
        #expect(cardRow.fields["modifiedAt"]?.clock == cardRow.fields["back"]?.clock)
        #expect(cardRow.fields["notes"]?.clock == cardRow.created)
        let tagRow = try #require(rows.first { $0.entity == .tag })
        #expect(rows.first { $0.entity == .cardTag }?.id == "\(card.id.storage)/\(tagRow.id)")
    }

    @Test("changes(since:) returns only what was written after the cursor")
    func cursor() throws {
        let store = try TestStore.make()
        _ = try store.createList(name: "A")
        let (first, cursor) = try store.changes()
        #expect(first.rows.map(\.entity) == [.itemList])
        #expect(try store.changes(since: cursor).changes.isEmpty)
        _ = try store.createList(name: "B")
        #expect(try store.changes(since: cursor).changes.rows.map { $0.fields["name"]?.value } == [.string("B")])
    }

    @Test("changeCount(since:) counts what changes(since:) returns, tombstones and held rows included")
    func changeCount() throws {
        let store = try TestStore.make()
        func expectSameCount(since cursor: HLCTimestamp) throws {
            let changes = try store.changes(since: cursor).changes
            #expect(try store.changeCount(since: cursor) == changes.rows.count + changes.tombstones.count)
        }
        let list = try store.createList(name: "A")
        _ = try store.addItem(to: list.id, title: "milk")
        let cursor = try store.changes().cursor
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.addCard(to: deck.id, CardDraft(front: "hola", back: "hello", tags: ["greeting"]))
        try store.deleteList(list.id)
        // An item another replica placed in a list this store does not have yet is held aside.
        let other = try TestStore.make(account: store.accountId)
        let elsewhere = try other.createList(name: "B")
        _ = try other.addItem(to: elsewhere.id, title: "eggs")
        var onlyTheItem = try other.changes().changes
        onlyTheItem.rows.removeAll { $0.entity != .item }
        #expect(try store.apply(onlyTheItem).held == 1)
        #expect(try store.changes(since: cursor).changes.tombstones.count == 2)
        try expectSameCount(since: .zero)
        try expectSameCount(since: cursor)
        #expect(try store.changeCount(since: store.changes().cursor) == 0)
    }

    @Test("a move is one placement field: parent and position together, one clock")
    func placement() throws {
        let store = try TestStore.make()
        _ = try store.createList(name: "A")
        let listB = try store.createList(name: "B")
        let item = try store.addItem(to: try store.resolve("A"), title: "milk")
        _ = try store.moveItem(item.id, to: 0, inList: try store.resolve("B"))
        let row = try #require(try store.changes().changes.rows.first { $0.entity == .item })
        guard case .object(let placement)? = row.fields["placement"]?.value else {
            Issue.record("placement is not an object")
            return
        }
        #expect(Set(placement.keys) == ["listId", "position"])
        #expect(placement["listId"] == .string(listB.id.storage))
        #expect(try #require(row.fields["placement"]?.clock) > row.created)
    }

    @Test("deletes leave tombstones for the row and every row its cascade removed")
    func tombstones() throws {
        let store = try TestStore.make()
        _ = try store.createBoard(title: "B")
        let column = try store.addColumn(to: try store.resolve("B"), title: "c")
        let card = try store.addBoardCard(to: column.id, title: "x")
        let board = try store.board(try store.resolve("B"))
        try store.deleteBoard(try store.resolve("B"))
        let (changes, _) = try store.changes()
        let deletes = changes.tombstones
        #expect(Set(deletes.map(\.id)) == [card.id.storage, column.id.storage, board.id.storage])
        #expect(Set(deletes.map(\.entity)) == [.boardCard, .boardColumn, .board])
        #expect(Set(deletes.map(\.clock)).count == 1)
        #expect(changes.rows.isEmpty, "deleted rows are not sent")
        #expect(try store.rowCount("fieldClock") == 0)
    }

    @Test("a failed operation changes nothing, history included")
    func rollback() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.setPlan(.free, freeCardLimit: 2)
        let changes = try store.changeCount()
        let drafts = (0..<3).map { CardDraft(front: "w\($0)", back: "-", tags: ["t\($0)"]) }
        #expect(throws: CardboxError.self) { try store.addCards(to: try store.resolve("D"), drafts) }
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
                        (.listId, "no-such-list"), (.title, "x"), (.position, "a0"), (.createdAt, 0),
                        (.modifiedAt, 0),
                    ])
            }
        }
        let item = try store.addItem(to: try store.resolve("L"), title: "milk", quantity: 2)
        // Each statement on its own, so that each CHECK is what refuses it.
        #expect(throws: CardboxError.self) {
            try store.write { tx in
                try tx.db.execute(
                    sql: "UPDATE item SET quantity = 3000000000 WHERE id = ?", arguments: [item.id.storage])
                #expect(tx.db.changesCount == 1, "the update must reach the row for the CHECK to be tested")
            }
        }
        #expect(throws: CardboxError.self) {
            try store.write { tx in
                try tx.insert(
                    .itemList, id: UUID().uuidString.lowercased(),
                    [(.name, ""), (.position, "a1"), (.createdAt, 0), (.modifiedAt, 0)])
            }
        }
        #expect(try store.lists().count == 1)
        #expect(try store.list(try store.resolve("L")).items?.map(\.quantity) == [2])
    }

    @Test("a store closes once its writes are done: no transaction leaves a prepared statement behind")
    func closesAfterWrites() throws {
        let path = TestStore.temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        let store = try CardboxStore.open(path: path)
        let list = try store.createList(name: "Groceries")
        _ = try store.addItem(to: list.id, title: "Milk", description: "", quantity: 2)
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try store.addCard(to: deck.id, CardDraft(front: "hola", back: "hello"))
        _ = try store.answer(card.id, rating: 3)
        // A transaction's inserters once kept it (and their statements) alive: closing then failed.
        #expect(store.close())
    }

    @Test("a new store file, and its log, are its owner's only; a store made before is once it holds a token")
    func ownerOnly() throws {
        let path = TestStore.temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        func permissions(_ file: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        }
        let store = try CardboxStore.open(path: path)
        _ = try store.createList(name: "L")
        #expect(try permissions(path) == 0o600 && permissions(path + "-wal") == 0o600)
        // A store an older release made readable by all becomes its owner's once signed in.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try store.saveSyncLink(SyncLink(server: "http://127.0.0.1:1", user: "ana", token: "cbx1.secret"))
        #expect(try permissions(path) == 0o600)
    }

    @Test(
        "data survives closing and reopening the store file, which runs in WAL mode with one durability however opened")
    func persistence() throws {
        let path = TestStore.temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        let (accountId, replicaId): (UUID, String)
        do {
            let store = try CardboxStore.open(path: path)
            _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
            _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "hola", back: "hello"))
            _ = try store.createList(name: "L")
            (accountId, replicaId) = (store.accountId, store.replicaId)
        }
        let reopened = try CardboxStore.open(path: path)
        #expect(reopened.accountId == accountId && reopened.replicaId == replicaId)
        #expect(try reopened.cards(in: try reopened.resolve("D")).map(\.front) == ["hola"])
        #expect(try reopened.lists().map(\.name) == ["L"])
        let mode = try reopened.read { try String.fetchOne($0.db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        // One durability, whether the store is opened with a pool or one connection, new or not.
        let single = try CardboxStore.open(path: path, concurrentReads: false)
        let newPath = TestStore.temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: newPath).deletingLastPathComponent().path)
        }
        let newSingle = try CardboxStore.open(path: newPath, concurrentReads: false)
        // An empty file, as a store whose creation was cut short leaves it, is made a store in WAL mode.
        let emptyPath = URL(fileURLWithPath: newPath).deletingLastPathComponent().appendingPathComponent("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: emptyPath.path, contents: Data()))
        let fromEmpty = try CardboxStore.open(path: emptyPath.path, concurrentReads: false)
        for store in [reopened, single, newSingle, fromEmpty] {
            #expect(try store.read { try Int.fetchOne($0.db, sql: "PRAGMA synchronous") } == 1)
            #expect(try store.read { try String.fetchOne($0.db, sql: "PRAGMA journal_mode") } == "wal")
        }
        // HLC timestamps keep increasing across restarts.
        _ = try reopened.createList(name: "M")
        let stamps = try reopened.read { try Int64.fetchAll($0.db, sql: "SELECT hlc FROM changeBatch ORDER BY id") }
        #expect(stamps.count == 4 && stamps == stamps.sorted() && Set(stamps).count == stamps.count)
    }

    @Test("a checkpoint folds the write-ahead log into the store file and empties it, and sizes come from the file")
    func checkpointEmptiesTheLog() throws {
        let path = TestStore.temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        let store = try CardboxStore.open(path: path, concurrentReads: false)
        _ = try store.createList(name: "L")
        let logBefore = try #require(StoreFile.size(atPath: path + "-wal"))
        #expect(logBefore > 0)
        try store.checkpoint()
        #expect(StoreFile.size(atPath: path + "-wal") == 0)
        #expect(try store.lists().map(\.name) == ["L"])
        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(StoreFile.size(atPath: path) == fileSize)
        #expect(StoreFile.size(atPath: path + ".missing") == nil)
    }

    @Test("a store file is one account's: opening it for another account is refused, and changes nothing")
    func oneAccountPerFile() throws {
        let path = TestStore.temporaryPath()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        }
        let (alice, bob) = (UUID(), UUID())
        let store = try CardboxStore.open(path: path, account: alice)
        _ = try store.createDeck(name: "Private", frontLanguage: "es", backLanguage: "en")
        #expect(
            throws: CardboxError.invalid(
                field: "account", reason: "this store holds account \(alice.storage), not \(bob.storage)")
        ) {
            _ = try CardboxStore.open(path: path, account: bob)
        }
        let reopened = try CardboxStore.open(path: path)
        #expect(reopened.accountId == alice)
        #expect(try reopened.decks().map(\.name) == ["Private"])
        #expect(try reopened.read { try Int.fetchOne($0.db, sql: "SELECT COUNT(*) FROM account") } == 1)
    }

    @Test("signing in (joining an account) keeps the store's images, their thumbnails and its usage events")
    func joiningKeepsLocalRows() throws {
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        let card = try store.addCard(to: deck.id, CardDraft(front: "gato", back: "cat"), image: TestStore.png)
        let events = try store.rowCount("usageEvent")
        #expect(try store.rowCount("image") == 1 && store.rowCount("imageThumbnail") == 1 && events > 0)

        let joined = try store.joinAccount(UUID())
        #expect(try joined.rowCount("image") == 1 && joined.rowCount("imageThumbnail") == 1)
        #expect(try joined.rowCount("usageEvent") == events)
        let moved = try #require(try joined.cards(in: nil).first)
        #expect(moved.id == card.id && moved.imageHash == card.imageHash)
        #expect(try joined.imageData(sha256: try #require(moved.imageHash)).data == TestStore.png)
    }

    @Test("plan changes are recorded like any other change")
    func planHistory() throws {
        let store = try TestStore.make()
        _ = try store.setPlan(.premium)
        _ = try store.setPlan(.free, freeCardLimit: 40)
        let account = try #require(try store.changes().changes.rows.first { $0.entity == .account })
        #expect(account.fields["plan"]?.value == .string("free") && account.fields["freeCardLimit"]?.value == .int(40))
        #expect(try #require(account.fields["plan"]?.clock) > account.created)
        #expect(try store.allowance().cardLimit == 40)
    }

    @Test("settings persist and unknown keys are refused")
    func settings() throws {
        let store = try TestStore.make()
        #expect(try store.settings() == UserSettings())
        _ = try store.setSetting("exportPreferences", to: #"{"includeImages":false}"#)
        #expect(try store.settings().exportPreferences == .object(["includeImages": .bool(false)]))
        #expect(throws: CardboxError.self) { try store.setSetting("theme", to: "dark") }
        #expect(try store.changes().changes.rows.contains { $0.entity == .setting && $0.id == "exportPreferences" })
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

    @Test("a card id's 16 bytes read back through the store's SQL as the same text; other text has none")
    func idBytes() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { CardboxStore.addFunctions(to: $0) }
        let queue = try DatabaseQueue(configuration: configuration)
        for _ in 0..<200 {
            let text = UUID().uuidString.lowercased()
            let bytes = try #require(StoredID.bytes(text))
            #expect(bytes.count == 16)
            #expect(StoredID.text(bytes) == text)
            let back = try queue.read {
                try Row.fetchOne(
                    $0, sql: "WITH v(uid) AS (SELECT ?) SELECT \(Schema.idText("uid")), cardbox_uuid_text(uid) FROM v",
                    arguments: [bytes])
            }
            #expect(back?[0] == text && back?[1] == text)
            #expect(StoredID.bytes(text.uppercased()) == nil)
        }
        for text in ["", "not-an-id", "0195f6a2-7c1e-7b3a-9e4f-1a2b3c4d5e6", "0195f6a27c1e7b3a9e4f1a2b3c4d5e6f0000"] {
            #expect(StoredID.bytes(text) == nil, "\(text)")
        }
        // Anything but 16 bytes has no text: fewer or more bytes, the id's text itself, NULL.
        let text = UUID().uuidString.lowercased()
        let bytes = try #require(StoredID.bytes(text))
        for value in [bytes.dropLast().databaseValue, (bytes + [0]).databaseValue, text.databaseValue, .null] {
            let read = try queue.read { try Row.fetchOne($0, sql: "SELECT cardbox_uuid_text(?)", arguments: [value]) }
            #expect(read?[0] == DatabaseValue.null, "\(value)")
        }
        #expect(StoredID.text(bytes.dropLast()) == nil)
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
