import CardboxCore
import CardboxSync
import Foundation
import GRDB
import Testing

@testable import CardboxStore

/// A store made by each earlier release (`Fixtures/store-v*.sqlite`, made by `make-store-fixture.sh`)
/// opens with today's code: migrated, every row and sync record kept, still syncing.
@Suite("Store migration")
struct StoreMigrationTests {
    static let fixtures = [
        "store-v10.sqlite", "store-v11.sqlite", "store-v12.sqlite", "store-v13.sqlite", "store-v14.sqlite",
        "store-v15.sqlite", "store-v16.sqlite",
    ]

    /// A connection to a store file of any version, with the store's SQL functions.
    static func queue(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { CardboxStore.addFunctions(to: $0) }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Every column of a table, generated ones included.
    static func columns(_ table: String, _ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_xinfo(?)", arguments: [table]))
    }

    /// SQL reading the id text of `table`'s rows (aliased `alias`) in a file of any version: its `id`
    /// column (text until v14, virtual until v17), then the text of its bytes.
    static func idText(_ table: String, _ alias: String, _ db: Database) throws -> String {
        try columns(table, db).contains("id") ? "\(alias).id" : "cardbox_uuid_text(\(alias).uid)"
    }

    /// A copy of the fixture in a folder of its own, removed by `cleanUp`.
    static func copyOfFixture(_ name: String) throws -> String {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name)").path
        let path = TestStore.temporaryPath()
        try FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        return path
    }

    static func cleanUp(_ path: String) {
        try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// Every row of every table but `storeInfo` (and v15's local counts of the day's answers), as
    /// sorted text lines per table, without `accountId` (the column v11 drops), and with ids where
    /// v12 keeps keys: read straight from the file, whatever its schema.
    static func rowsByTable(_ path: String) throws -> [String: [String]] {
        let queue = try Self.queue(path)
        defer { try? queue.close() }
        return try queue.read { db in
            let tables = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                      AND name NOT IN ('storeInfo', 'grdb_migrations', 'deckDayAnswers')
                    """)
            var result: [String: [String]] = [:]
            for table in tables {
                let entity = SyncedEntity(rawValue: table)
                let stored = try Self.columns(table, db)
                let hidden = (entity.map(CardboxStore.storedOnlyColumns) ?? []).filter(stored.contains)
                let ownId =
                    stored.contains("uid") && !stored.contains("id") ? [", \(try idText(table, "t", db)) AS id"] : []
                let ids = try (entity.map { Array($0.keyReferences) } ?? [])
                    .filter { stored.contains(entity!.storedColumn($0.key)) }
                    .map { wire, parent in
                        let id = try idText(parent.table, "p", db)
                        let key = "t.\(entity!.storedColumn(wire))"
                        return ", (SELECT \(id) FROM \(parent.table) p WHERE p.key = \(key)) AS \(wire)"
                    }
                let sql = "SELECT t.*\((ownId + ids).joined()) FROM \(table) t"
                result[table] = try Row.fetchAll(db, sql: sql).map { row in
                    row.columnNames.filter { $0 != "accountId" && !hidden.contains($0) }.sorted()
                        .map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " ")
                }.sorted()
            }
            return result
        }
    }

    /// Each deck's, card's and tag's rowid (or `key`), by id, and the rowids of reviews and
    /// suggestions in order.
    static func rowids(_ path: String, keyColumn: String) throws -> [String] {
        let queue = try Self.queue(path)
        defer { try? queue.close() }
        return try queue.read { db in
            try ["deck", "card", "tag"].flatMap { table in
                let id = try idText(table, table, db)
                return try String.fetchAll(db, sql: "SELECT \(keyColumn) || ' ' || \(id) FROM \(table) ORDER BY \(id)")
            }
                + ["reviewLog", "suggestion"].flatMap { table in
                    try String.fetchAll(db, sql: "SELECT '\(table) ' || rowid FROM \(table) ORDER BY rowid")
                }
        }
    }

    static func storeInfo(_ path: String) throws -> [String: String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM storeInfo").map {
                    ($0["key"] as String, $0["value"] as String)
                })
        }
    }

    /// What a sync would send: rows and sync records written after the `sync.sent` mark, counted
    /// straight from the file.
    static func pendingCount(_ path: String, since sent: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let tables = Schema.syncedTables + ["account"]
            let counts =
                tables.map { "(SELECT COUNT(*) FROM \($0) WHERE syncVersion > ?1)" }
                + [
                    "(SELECT COUNT(*) FROM tombstone WHERE version > ?1)",
                    "(SELECT COUNT(*) FROM heldRow WHERE version > ?1)",
                ]
            return try Int.fetchOne(db, sql: "SELECT " + counts.joined(separator: " + "), arguments: [sent]) ?? 0
        }
    }

    @Test("a store whose card has a malformed id is refused, naming the id, and left as it was")
    func malformedCardId() throws {
        let path = try Self.copyOfFixture("store-v13.sqlite")
        defer { Self.cleanUp(path) }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE card SET id = 'not-an-id' WHERE key = (SELECT MIN(key) FROM card)")
        }
        try queue.close()
        let before = try Self.rowsByTable(path)
        do {
            _ = try CardboxStore.open(path: path)
            Issue.record("a card id that is not an id migrated")
        } catch let error as CardboxError {
            #expect(error.localizedDescription.contains("card id 'not-an-id' is not an id"), "\(error)")
        }
        #expect(try Self.rowsByTable(path) == before)
    }

    @Test("a store whose check v16 rewrites is not as v15 wrote it is refused, naming the check, and left as it was")
    func unexpectedCheck() throws {
        let path = try Self.copyOfFixture("store-v15.sqlite")
        defer { Self.cleanUp(path) }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try db.execute(
                sql: """
                    PRAGMA writable_schema = ON;
                    UPDATE sqlite_master SET sql = replace(sql, 'image/heic', 'image/webp') WHERE name = 'image';
                    PRAGMA schema_version = \(version + 1);
                    PRAGMA writable_schema = OFF;
                    """)
        }
        try queue.close()
        let before = try Self.rowsByTable(path)
        #expect {
            _ = try CardboxStore.open(path: path)
        } throws: { error in
            error.localizedDescription.contains(
                "table image has no check mimeType IN ('image/jpeg', 'image/png', 'image/heic')")
        }
        #expect(try Self.rowsByTable(path) == before)
        let schema = try DatabaseQueue(path: path)
        defer { try? schema.close() }
        #expect(
            try schema.read { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'card'") }?
                .contains("state IN ('new', 'learning', 'review', 'relearning')") == true)
    }

    @Test("a store of an earlier release migrates with every row, clock, tombstone and image kept", arguments: fixtures)
    func keepsEveryRow(fixture: String) throws {
        let path = try Self.copyOfFixture(fixture)
        defer { Self.cleanUp(path) }
        let before = try Self.rowsByTable(path)
        let infoBefore = try Self.storeInfo(path)
        let rowidsBefore = try Self.rowids(path, keyColumn: "rowid")
        #expect(before["card"]?.count == 7 && before["image"]?.count == 2 && before["tombstone"]?.count == 2)

        let store = try CardboxStore.open(path: path)
        #expect(store.accountId.storage == infoBefore["accountId"])
        #expect(store.close())

        #expect(try Self.rowsByTable(path) == before)
        #expect(try Self.storeInfo(path) == infoBefore)
        // Change pages walk each table in rowid order: the keys v12 gives are the rowids they had.
        #expect(try Self.rowids(path, keyColumn: "key") == rowidsBefore)
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.read { db in
            let withAccount = try String.fetchAll(
                db,
                sql: """
                    SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c
                    WHERE m.type = 'table' AND c.name = 'accountId'
                    """)
            #expect(withAccount.isEmpty, "tables still naming the account: \(withAccount)")
            let linkColumns = try db.columns(in: "cardTag").map { "\($0.name) \($0.type)" }
            #expect(linkColumns.prefix(2) == ["cardKey INTEGER", "tagKey INTEGER"] && linkColumns.count == 5)
            // A tag link is its two keys: no rowid, so no index of them beside the table.
            let linkIndexes = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'cardTag' ORDER BY name")
            #expect(linkIndexes == ["cardTagBySyncVersion", "cardTagByTag"])
            #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT rowid FROM cardTag") }
            // The study queue's two card indexes hold only the cards each is read for (v13): new cards
            // by creation, cards with a due time by it.
            let studyIndexes = try Row.fetchAll(
                db,
                sql: """
                    SELECT name, partial FROM pragma_index_list('card')
                    WHERE name IN ('cardQueue', 'cardNew') ORDER BY name
                    """
            ).map { "\($0["name"] as String) \($0["partial"] as Int)" }
            #expect(studyIndexes == ["cardNew 1", "cardQueue 1"])
            // Cards made or due at one moment come by id (v18): the three card indexes read in that
            // order end with the id's bytes.
            for index in ["cardByDeck", "cardQueue", "cardNew"] {
                let columns = try String.fetchAll(
                    db, sql: "SELECT name FROM pragma_index_info('\(index)') ORDER BY seqno")
                #expect(columns.last == "uid", "\(index): \(columns)")
            }
            // A card's id is kept as its 16 bytes (v14), read as the text it was (the rows compared
            // above), and nothing else: no column computed at every write (v17).
            let cards = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM card")
            let cardsWithBytes = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM card WHERE typeof(uid) = 'blob' AND length(uid) = 16")
            #expect(cards == 7 && cardsWithBytes == cards)
            let generated = try String.fetchAll(
                db, sql: "SELECT name FROM pragma_table_xinfo('card') WHERE hidden <> 0")
            #expect(generated.isEmpty, "the card table computes \(generated)")
            // The day's answers are kept by the review log's triggers (v15), exactly these.
            let triggers = try String.fetchAll(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
            #expect(triggers == Schema.dayAnswerTriggers.sorted())
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            // No check is an IN list of three or more values (v16), which SQLite makes a b-tree of
            // at every row written; the comparisons that replace them still refuse other values.
            let definitions = try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table'")
            #expect(!definitions.contains { $0.contains(/IN\s*\('[^')]*'(, '[^')]*'){2,}\)/) })
        }
        try queue.inTransaction { db in
            for refused in [
                "UPDATE card SET state = 'due'", "UPDATE reviewLog SET stateBefore = 'due'",
                "UPDATE reviewLog SET stateAfter = 'new'", "UPDATE image SET mimeType = 'image/gif'",
                "UPDATE suggestion SET category = 'jokes'",
            ] {
                #expect(throws: DatabaseError.self, "\(refused)") { try db.execute(sql: refused) }
            }
            return .rollback
        }
    }

    @Test("a migrated store reads, writes and syncs: what it sends makes the same store elsewhere", arguments: fixtures)
    func migratedStoreSyncs(fixture: String) throws {
        let path = try Self.copyOfFixture(fixture)
        defer { Self.cleanUp(path) }
        let info = try Self.storeInfo(path)
        let sent = try #require(info["sync.sent"])
        let pendingBefore = try Self.pendingCount(path, since: sent)

        let store = try CardboxStore.open(path: path)
        let link = try #require(try store.syncLink())
        #expect(link.user == "ann" && link.sent.storageValue == Int64(sent))
        #expect(try store.changeCount(since: link.sent) == pendingBefore && pendingBefore > 0)
        let spanish: DeckID = try store.resolve("Spanish")
        let dog = try #require(try store.cards(in: spanish).first { $0.front == "el perro" })
        #expect(dog.tags == ["animal", "noun"] && dog.isFavorite)
        let thumbnail = try store.imageThumbnail(sha256: try #require(try store.imageHashes().first))
        #expect(thumbnail.width > 0)

        // Written after the migration: a card with an existing tag.
        #expect(try store.tags().first { $0.name == "noun" }?.cardCount == 4)  // dog, cat, house, Hund
        let added = try store.addCard(to: spanish, CardDraft(front: "la luna", back: "moon", tags: ["noun"]))
        #expect(try store.tags().first { $0.name == "noun" }?.cardCount == 5)
        #expect(try store.changeCount(since: link.sent) > pendingBefore)

        let elsewhere = try CardboxStore.inMemory(account: store.accountId)
        _ = try elsewhere.apply(try store.changes().changes)
        #expect(try elsewhere.canonicalDump() == store.canonicalDump())
        #expect(try elsewhere.card(added.id).tags == ["noun"])
        #expect(try store.integrityProblems().isEmpty)
    }
}
