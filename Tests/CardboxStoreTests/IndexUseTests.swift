import CardboxCore
import CardboxImaging
import Foundation
import GRDB
import Testing

@testable import CardboxStore

/// The hot operations reach their rows through indexes: every statement an operation runs is asked
/// for its plan (`EXPLAIN QUERY PLAN`), and none may read a whole large table. A change of schema
/// or of a query that loses an index fails here, at any store size.
@Suite("Index use")
struct IndexUseTests {
    /// Tables that grow with a person's collection (cards, their tags and reviews, items, board cards).
    static let largeTables = ["card", "cardTag", "reviewLog", "suggestion", "item", "itemImage", "boardCard"]

    /// A store with two decks of cards (tagged, some answered), a list and a board.
    static func sampleStore() throws -> (CardboxStore, DeckID, ListID) {
        let clock = TestClock()
        let store = try TestStore.make(clock: clock)
        _ = try store.setPlan(.premium)
        for name in ["Spanish", "German"] {
            let deck = try store.createDeck(name: name, frontLanguage: "es", backLanguage: "en")
            _ = try store.addCards(
                to: deck.id, (0..<40).map { CardDraft(front: "\(name) \($0)", back: "b", tags: ["t\($0 % 3)"]) })
        }
        let spanish: DeckID = try store.resolve("Spanish")
        for _ in 0..<5 {
            let card = try #require(try store.nextStudyCard(in: spanish))
            _ = try store.answer(card.card.id, rating: 3)
            clock.advance(seconds: 60)
        }
        let list = try store.createList(name: "Groceries")
        for index in 0..<30 { _ = try store.addItem(to: list.id, title: "item \(index)") }
        return (store, spanish, list.id)
    }

    /// The plans of every statement `operation` runs, as "statement → plan line" pairs.
    static func plans(_ store: CardboxStore, of operation: () throws -> Void) throws -> [(String, String)] {
        let statements = try self.statements(store, of: operation)
        return try store.writer.read { db in
            try statements.filter(Self.isQuery).flatMap { sql in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { (sql, $0["detail"] as String) }
            }
        }
    }

    /// Every statement `operation` runs, in order.
    static func statements(_ store: CardboxStore, of operation: () throws -> Void) throws -> [String] {
        let statements = StatementLog()
        try store.writer.writeWithoutTransaction { db in
            db.trace(options: .statement) { event in statements.append(event.expandedDescription) }
        }
        defer { try? store.writer.writeWithoutTransaction { db in db.trace(options: [], nil) } }
        try operation()
        try store.writer.writeWithoutTransaction { db in db.trace(options: [], nil) }
        return statements.all
    }

    static func isQuery(_ sql: String) -> Bool {
        let head = sql.trimmingCharacters(in: .whitespacesAndNewlines).prefix(7).uppercased()
        return ["SELECT ", "UPDATE ", "DELETE ", "INSERT ", "WITH "].contains { head.hasPrefix($0) }
    }

    /// Whether some statement's plan reads through `index`.
    static func uses(_ index: String, _ plans: [(String, String)]) -> Bool {
        plans.contains { $0.1.contains("INDEX \(index) ") || $0.1.hasSuffix("INDEX \(index)") }
    }

    /// Plan lines that read a whole large table (`SCAN card`, also through an index: a walk of every
    /// entry), each with its statement.
    static func fullScans(_ plans: [(String, String)]) -> [String] {
        plans.compactMap { sql, line in
            let words = line.split(separator: " ")
            guard let at = words.firstIndex(of: "SCAN"), at + 1 < words.count,
                largeTables.contains(String(words[at + 1]))
            else { return nil }
            return "\(line)  ←  \(sql)"
        }
    }

    /// Reads of current cards in order (the queue, a card list) that sort the deck's cards instead of
    /// walking an index in order: each index ends with the card's key, which breaks ties.
    static func sortedCardReads(_ plans: [(String, String)]) -> [String] {
        plans.compactMap { sql, line in
            sql.contains("FROM card WHERE") && sql.contains("ORDER BY") && line.contains("TEMP B-TREE")
                ? "\(line)  ←  \(sql)" : nil
        }
    }

    @Test("studying a deck (queue, counts, an answer, undo) reads no large table whole")
    func study() throws {
        let (store, deck, _) = try Self.sampleStore()
        let plans = try Self.plans(store) {
            // The day's first step, with no answers kept yet, counts them from the log.
            try store.write { tx in try tx.db.execute(sql: "DELETE FROM deckDayAnswers") }
            _ = try store.studyCounts(in: deck)
            let next = try #require(try store.nextStudyCard(in: deck))
            _ = try store.answer(next.card.id, inDeck: deck, rating: 3)
            _ = try store.undoLastAnswer(in: deck)
            _ = try store.dueQueue(in: deck, limit: 20)
        }
        #expect(Self.fullScans(plans) == [])
        for index in ["cardQueue", "cardNew", "reviewLogAnswersByDeck", "reviewLogByDeck"] {
            #expect(Self.uses(index, plans), "no statement reads \(index)")
        }
        // The day's answers are read from the deck's kept counts, by its key.
        #expect(
            plans.contains {
                $0.0.contains("FROM deckDayAnswers") && $0.1.contains("deckDayAnswers USING INTEGER PRIMARY KEY")
            }, "the day's answers not read by the deck's key")
        // The new cards are counted at every step off the index alone, not a row per card.
        #expect(plans.contains { $0.1.contains("COVERING INDEX cardNew") }, "new cards counted by their rows")
        #expect(Self.sortedCardReads(plans) == [])
    }

    @Test("a deck's card list, its counts and its statistics read no large table whole")
    func deckViews() throws {
        let (store, deck, _) = try Self.sampleStore()
        let plans = try Self.plans(store) {
            _ = try store.cards(in: deck, limit: 20)
            _ = try store.deckCounts(deck)
            _ = try store.stats(in: deck, days: 30)
        }
        #expect(Self.fullScans(plans) == [])
        for index in ["cardByDeck", "reviewLogByDeck"] {
            #expect(Self.uses(index, plans), "no statement reads \(index)")
        }
        #expect(Self.sortedCardReads(plans) == [])
    }

    @Test("moving an item among its siblings reads no large table whole")
    func move() throws {
        let (store, _, list) = try Self.sampleStore()
        let items = try #require(try store.list(list).items)
        let plans = try Self.plans(store) {
            _ = try store.moveItem(items[25].id, to: 3)
            _ = try store.moveItem(items[2].id, to: nil)
        }
        #expect(Self.fullScans(plans) == [])
        #expect(Self.uses("itemByPosition", plans))
        #expect(!plans.contains { $0.1.contains("TEMP B-TREE") }, "a move sorts siblings instead of walking the index")
    }

    @Test("adding a card on the premium plan reads no large table whole (the cards are not counted)")
    func addOnPremium() throws {
        let (store, deck, _) = try Self.sampleStore()
        let plans = try Self.plans(store) {
            _ = try store.addCard(to: deck, CardDraft(front: "nuevo", back: "new", tags: ["t1"]))
            _ = try store.addCards(to: deck, [CardDraft(front: "otro", back: "other")])
        }
        #expect(Self.fullScans(plans) == [])
    }

    @Test("a card named by its id is found through the index of its id's bytes: read, edit, tag, delete")
    func cardById() throws {
        let (store, deck, _) = try Self.sampleStore()
        let card = try #require(try store.cards(in: deck, limit: 1).first)
        let plans = try Self.plans(store) {
            _ = try store.card(card.id)
            _ = try store.editCard(card.id, CardChanges(back: "changed", tags: ["t2", "new"]))
            _ = try store.setFavorite(card.id, true)
            _ = try store.setArchived(card.id, true)
            try store.deleteCard(card.id)
        }
        #expect(Self.fullScans(plans) == [])
        #expect(Self.uses("sqlite_autoindex_card_1", plans), "no statement finds the card by its id")
        // Never by the virtual `id` column: without an index of its own, that computes every row's id.
        #expect(!plans.contains { $0.0.contains("card WHERE id =") })
    }

    @Test("writing cards, answers, images and suggestions builds no temporary b-tree per row (no CHECK on an IN list)")
    func writesBuildNoTemporaryTable() throws {
        let (store, deck, _) = try Self.sampleStore()
        let photo = try ImageIngest.sample(width: 40, height: 30, format: .png)
        let statements = try Self.statements(store) {
            let card = try store.addCard(to: deck, CardDraft(front: "nuevo", back: "new", tags: ["t1"]), image: photo)
            _ = try store.answer(card.id, inDeck: deck, rating: 3)
            _ = try store.editCard(card.id, CardChanges(back: "changed"))
            _ = try store.addSuggestion(to: deck, SuggestionDraft(front: "gato", back: "cat", category: .opposites))
        }
        let writes = statements.filter {
            ["INSERT", "UPDATE"].contains($0.trimmingCharacters(in: .whitespacesAndNewlines).prefix(6).uppercased())
        }
        #expect(
            ["INTO reviewLog", "INTO image", "INTO suggestion"].allSatisfy { table in
                writes.contains { $0.contains(table) }
            })
        // On a writing connection: a read-only one compiles no CHECK at all.
        let building = try store.writer.writeWithoutTransaction { db in
            try writes.filter { sql in
                try Row.fetchAll(db, sql: "EXPLAIN " + sql).contains { $0["opcode"] == "OpenEphemeral" }
            }
        }
        #expect(building == [], "statements building a temporary b-tree at each run")
    }

    @Test("a sync that sends one changed card reads no large table whole")
    func syncPage() throws {
        let (store, deck, _) = try Self.sampleStore()
        let cursor = try store.changes().cursor
        let card = try #require(try store.cards(in: deck, limit: 1).first)
        _ = try store.editCard(card.id, CardChanges(back: "changed"))
        let plans = try Self.plans(store) {
            let pending = try store.changes(since: cursor).changes
            #expect(pending.rows.map(\.id) == [card.id.storage])
        }
        #expect(Self.fullScans(plans) == [])
        #expect(Self.uses("cardBySyncVersion", plans))
    }
}

/// Statements seen by a connection's trace, which may run on any thread.
/// A large import makes the indexes of cards, tag links and reviews after its rows (sorted once,
/// pages written full) and leaves them as they were: the same names and definitions, consistent
/// with the rows; a small one keeps them in place.
@Suite("Indexes made after a bulk insert")
struct BulkIndexTests {
    static func indexes(_ store: CardboxStore) throws -> [String] {
        try store.writer.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
                    AND tbl_name IN ('card', 'cardTag', 'reviewLog') ORDER BY name
                    """)
        }
    }

    static func imports(_ count: Int) -> [CardImport] {
        (0..<count).map { index in
            var card = CardImport(
                deck: "Bulk", draft: CardDraft(front: "word \(index)", back: "b", tags: ["t\(index % 7)", "all"]),
                source: "line \(index + 1)")
            if index % 100 == 0 {
                card.reviews = [ReviewImport(rating: 3, at: Date(timeIntervalSince1970: 1e9), durationMs: nil)]
            }
            return card
        }
    }

    @Test("a 10,000-card import drops and makes again every secondary index; 9,999 cards keep them")
    func largeImportRebuildsIndexes() throws {
        for (count, rebuilds) in [
            (WriteContext.bulkInsertThreshold, true), (WriteContext.bulkInsertThreshold - 1, false),
        ] {
            let store = try TestStore.make()
            _ = try store.setPlan(.premium)
            let before = try Self.indexes(store)
            #expect(before.count >= 10)
            let statements = try IndexUseTests.statements(store) {
                _ = try store.importCards(Self.imports(count), newDeckLanguages: ("es", "en"), onDuplicate: .skip)
            }
            let dropped = statements.filter { $0.hasPrefix("DROP INDEX") }.count
            #expect(dropped == (rebuilds ? before.count : 0), "\(count) cards")
            #expect(try Self.indexes(store) == before)
            let (integrity, fronts, links, reviews) = try store.writer.read { db in
                (
                    try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM card INDEXED BY cardByFront"),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM cardTag INDEXED BY cardTagByTag"),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reviewLog INDEXED BY reviewLogByCard")
                )
            }
            #expect(integrity == "ok")
            #expect(fronts == count && links == 2 * count && reviews == (count + 99) / 100)
            let queue = try store.dueQueue(in: nil, limit: 5)
            #expect(queue.count == 5)
        }
    }

    @Test("a store larger than the import keeps its indexes in place")
    func smallImportIntoLargeStoreKeepsIndexes() throws {
        let store = try TestStore.make()
        _ = try store.setPlan(.premium)
        _ = try store.importCards(
            Self.imports(WriteContext.bulkInsertThreshold + 1), newDeckLanguages: ("es", "en"), onDuplicate: .copy)
        let statements = try IndexUseTests.statements(store) {
            _ = try store.importCards(
                Self.imports(WriteContext.bulkInsertThreshold), newDeckLanguages: ("es", "en"), onDuplicate: .copy)
        }
        #expect(!statements.contains { $0.hasPrefix("DROP INDEX") })
    }
}

private final class StatementLog: @unchecked Sendable {
    private let lock = NSLock()
    private var statements: [String] = []

    func append(_ sql: String) { lock.withLock { statements.append(sql) } }
    var all: [String] { lock.withLock { statements } }
}
