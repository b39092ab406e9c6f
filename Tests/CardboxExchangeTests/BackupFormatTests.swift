import CardboxCore
import CardboxExchange
import CardboxStore
import Foundation
import Testing

@Suite("Full backups")
struct BackupFormatTests {
    /// A store with every kind of record.
    func fullStore() throws -> CardboxStore {
        let store = try CardboxStore.inMemory()
        _ = try store.setPlan(.free, freeCardLimit: 60)
        _ = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en", queuedSuggestions: 3)
        let card = try store.addCard(
            to: try store.resolve("Spanish"), CardDraft(front: "hola", back: "hello", tags: ["greeting"]), image: png)
        _ = try store.addCard(
            to: try store.resolve("Spanish"), CardDraft(front: "perro", back: "dog", notes: "El perro ladra."))
        _ = try store.answer(card.id, rating: 3, durationMs: 1_500)
        _ = try store.setFavorite(card.id, true)
        let suggestion = try store.addSuggestion(
            to: try store.resolve("Spanish"), SuggestionDraft(front: "gato", back: "cat"), image: png)
        _ = try store.rejectSuggestion(suggestion.id)
        _ = try store.addSuggestion(to: try store.resolve("Spanish"), SuggestionDraft(front: "casa", back: "house"))
        _ = try store.createList(name: "Groceries")
        let milk = try store.addItem(to: try store.resolve("Groceries"), title: "Milk", quantity: 2)
        _ = try store.addItemImage(to: milk.id, data: png + Data([1]))
        _ = try store.crossItem(milk.id)
        _ = try store.createBoard(title: "Home")
        let column = try store.addColumn(to: try store.resolve("Home"), title: "To do")
        let paint = try store.addBoardCard(to: column.id, title: "Paint", description: "fence")
        _ = try store.setBoardCardArchived(paint.id, true)
        _ = try store.setSetting("showCrossedOutItems", to: "true")
        return store
    }

    @Test("backup → restore into an empty store → backup again gives the same content")
    func roundTrip() throws {
        let original = try fullStore()
        var steps: [Int] = []
        let snapshot = try original.snapshot { done, total in
            #expect(total == CardboxStore.backupTables.count)
            steps.append(done)
        }
        #expect(steps == Array(1...CardboxStore.backupTables.count))
        #expect(snapshot.tables["reviewLog"]?.count == 1 && snapshot.tables["image"]?.count == 2)
        #expect(snapshot.tables["rejectedSuggestion"]?.count == 1 && snapshot.tables["usageEvent"]?.isEmpty == false)
        // The store's own integer keys stay out: a tag link names its card and tag by id, as the wire does.
        #expect(snapshot.tables["cardTag"]?.map { Set($0.keys) } == [["cardId", "tagId"]])
        let hola = try #require(try original.cards(in: try original.resolve("Spanish")).first { $0.front == "hola" })
        #expect(snapshot.tables["cardTag"]?.first?["cardId"] == .string(hola.id.description))
        #expect(snapshot.tables["card"]?.contains { $0["key"] != nil } == false)
        let data = try BackupFormat.write(snapshot, createdAt: Date())
        #expect(BackupFormat.matches(data) && !ListAllFormat.matches(data))
        let restored = try CardboxStore.inMemory()
        let report = try restored.restore(try BackupFormat.read(data, file: "backup.json"))
        #expect(report.created["card"] == 2 && report.created["review"] == 1 && report.created["board card"] == 1)
        #expect(try restored.snapshot() == snapshot)
        #expect(try restored.allowance().cardLimit == 60)
        #expect(try restored.card(try original.cards(in: try original.resolve("Spanish"))[0].id).isFavorite)
        #expect(try restored.changes().changes.rows.contains { $0.entity == .card })
    }

    @Test("a restore needs an empty store and changes nothing otherwise")
    func nonEmpty() throws {
        let data = try BackupFormat.write(try fullStore().snapshot(), createdAt: Date())
        let busy = try CardboxStore.inMemory()
        _ = try busy.createList(name: "Mine")
        #expect(throws: CardboxError.self) { try busy.restore(try BackupFormat.read(data, file: "b.json")) }
        #expect(try busy.lists().map(\.name) == ["Mine"] && busy.decks().isEmpty)
    }

    @Test(
        "damaged or foreign backups are refused by name",
        arguments: [
            (
                #"{"format":"cardbox-backup","version":9,"schema":"x","tables":{}}"#,
                "b.json: version: 9 is not supported"
            ),
            (#"{"format":"other","version":1}"#, "b.json: format: is not a Cardbox backup"),
            (
                #"{"format":"cardbox-backup","version":1,"schema":"v1: accounts, decks, cards, lists, boards, history","tables":{"secrets":[]}}"#,
                "b.json: tables.secrets: is not a table of a Cardbox backup"
            ),
            (
                #"{"format":"cardbox-backup","version":1,"schema":"v9: future","tables":{}}"#,
                "backup: was made by a newer Cardbox"
            ),
            (
                #"{"format":"cardbox-backup","version":1,"schema":"v3: archived board cards","tables":{"deck":[{"id":"d","sneaky":1}]}}"#,
                "backup deck: has an unknown column 'sneaky'"
            ),
            (
                #"{"format":"cardbox-backup","version":1,"schema":"v3: archived board cards","account":{"id":"0195f6a2-7c1e-7b3a-9e4f-1a2b3c4d5e6f"},"tables":{}}"#,
                "backup account: has an unknown column 'id'"
            ),
            (
                #"{"format":"cardbox-backup","version":1,"schema":"v3: archived board cards","account":{"freeCardLimit":"lots"},"tables":{}}"#,
                "backup account[0].freeCardLimit: must be a whole number"
            ),
        ])
    func damaged(json: String, message: String) throws {
        let store = try CardboxStore.inMemory()
        #expect {
            _ = try store.restore(try BackupFormat.read(Data(json.utf8), file: "b.json"))
        } throws: { error in
            (error as? CardboxError)?.localizedDescription.hasPrefix(message) == true
        }
        #expect(try store.decks().isEmpty)
    }

    /// A backup of `fullStore()` with one value of one row replaced.
    func tampered(_ table: String, _ column: String, _ value: JSONValue) throws -> StoreSnapshot {
        var snapshot = try fullStore().snapshot()
        var rows = try #require(snapshot.tables[table])
        rows[0][column] = value
        snapshot.tables[table] = rows
        return snapshot
    }

    @Test(
        "every column of a restored row is checked against the schema, naming table, row and column",
        arguments: [
            ("card", "id", JSONValue.string("not-an-id"), "backup card[0].id: 'not-an-id' is not an id"),
            (
                "card", "id", .string("0195F6A2-7C1E-7B3A-9E4F-1A2B3C4D5E6F"),
                "backup card[0].id: '0195F6A2-7C1E-7B3A-9E4F-1A2B3C4D5E6F' is not an id (8-4-4-4-12 lowercase"
            ),
            ("card", "deckId", .string("0195"), "backup card[0].deckId: '0195' is not an id"),
            ("card", "reps", .string("many"), "backup card[0].reps: must be a whole number"),
            ("card", "stability", .string("x"), "backup card[0].stability: must be a number"),
            ("card", "front", .int(3), "backup card[0].front: must be text"),
            ("card", "front", .null, "backup card[0].front: must not be null"),
            ("item", "quantity", .double(1.5), "backup item[0].quantity: must be a whole number"),
            ("image", "data", .string("AAAA"), "backup image[0].data: must be {\"base64\": \"…\"}"),
        ] as [(String, String, JSONValue, String)])
    func columnChecks(table: String, column: String, value: JSONValue, message: String) throws {
        let snapshot = try tampered(table, column, value)
        let store = try CardboxStore.inMemory()
        #expect {
            _ = try store.restore(snapshot)
        } throws: { error in
            (error as? CardboxError)?.localizedDescription.hasPrefix(message) == true
        }
        #expect(try store.decks().isEmpty && store.lists().isEmpty)
    }

    @Test("a card row without its id is refused, naming the column")
    func cardWithoutId() throws {
        var snapshot = try fullStore().snapshot()
        var cards = try #require(snapshot.tables["card"])
        cards[0]["id"] = nil
        snapshot.tables["card"] = cards
        let store = try CardboxStore.inMemory()
        #expect {
            _ = try store.restore(snapshot)
        } throws: { error in
            (error as? CardboxError)?.localizedDescription.hasPrefix("backup card[0].id: is missing") == true
        }
        #expect(try store.decks().isEmpty && store.lists().isEmpty)
    }

    @Test("a backup written before study existed (schema v1) restores due cards as review cards")
    func restoreBeforeStudy() throws {
        let deckId = "0195f6a2-7c1e-7b3a-9e4f-1a2b3c4d5e6f"
        func card(_ id: String, front: String, dueAt: JSONValue) -> [String: JSONValue] {
            [
                "id": .string(id), "deckId": .string(deckId), "front": .string(front), "frontKey": .string(front),
                "back": .string("-"), "cardType": .string("basic"), "notes": .string(""),
                "frontLanguage": .string("es"), "backLanguage": .string("en"), "isFavorite": .int(0),
                "imageHash": .null, "imagePrompt": .null, "jsonContent": .null, "isArchived": .int(0),
                "archivedAt": .null, "isIncomplete": .int(0), "dueAt": dueAt, "createdAt": .int(1_700_000_000_000),
                "modifiedAt": .int(1_700_000_000_000),
            ]
        }
        let v1 = StoreSnapshot(
            tables: [
                "deck": [
                    [
                        "id": .string(deckId), "name": .string("Old"), "nameKey": .string("old"),
                        "frontLanguage": .string("es"), "backLanguage": .string("en"), "queuedSuggestions": .int(0),
                        "createdAt": .int(1_700_000_000_000), "modifiedAt": .int(1_700_000_000_000),
                    ]
                ],
                "card": [
                    card("0195f6a2-7c1e-7b3a-9e4f-000000000001", front: "due", dueAt: .int(1_700_000_100_000)),
                    card("0195f6a2-7c1e-7b3a-9e4f-000000000002", front: "fresh", dueAt: .null),
                ],
            ], account: [:], schema: "v1: accounts, decks, cards, lists, boards, history")
        let store = try CardboxStore.inMemory()
        _ = try store.restore(v1)
        let states = try store.snapshot().tables["card"]?.map { ($0["front"], $0["state"]) } ?? []
        #expect(states.map(\.0) == [.string("due"), .string("fresh")])
        #expect(states.map(\.1) == [.string("review"), .string("new")])
    }
}
