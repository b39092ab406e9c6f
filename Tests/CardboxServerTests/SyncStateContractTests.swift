import CardboxCore
import CardboxServerPostgres
import CardboxStore
import CardboxSync
import CardboxTestSupport
import Foundation
import GRDB
import Testing

@testable import CardboxServer
@testable import CardboxServerSQLite

/// The sync state's contract, run on every implementation.
enum SyncStates {
    /// Each implementation, made fresh: SQLite in memory and in a file (a pool, as `cardbox serve`
    /// opens it), and PostgreSQL (a real server; every test uses its own accounts, as tenants do),
    /// as it is served and with every push taking the account's lock at once.
    static let all: [String] = ["sqlite-memory", "sqlite-file", "postgres", "postgres-locking"]

    /// Runs `body` with a sync state of `implementation`, and closes it after.
    static func with(_ implementation: String, _ body: (any ServerDatabase) async throws -> Void) async throws {
        switch implementation {
        case "sqlite-memory":
            try await body(try SQLiteServerDatabase.inMemory())
        case "sqlite-file":
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-sync-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await body(try SQLiteServerDatabase(path: folder.appendingPathComponent("sync.sqlite").path))
        default:
            // "postgres-fresh": a database of its own, for what needs one with no account yet.
            let url = implementation == "postgres-fresh" ? try TestPostgres.newDatabase() : try TestPostgres.url
            let state = try await PostgresServerDatabase.open(
                url: url, optimisticAttempts: implementation == "postgres-locking" ? 0 : 3)
            do {
                try await body(state)
            } catch {
                await state.close()
                throw error
            }
            await state.close()
        }
    }
}

/// A device: a store and the cursors of what it has sent and received.
final class Device {
    let store: CardboxStore
    var sent = HLCTimestamp.zero
    var received: Int64 = 0

    init(account: UUID) throws { store = try CardboxStore.inMemory(account: account) }

    /// Pushes what changed here since the last push, then pulls everything new, page by page.
    func sync(with state: any SyncState, account: UUID, pageSize: Int = 1_000) async throws {
        let (changes, cursor) = try store.changes(since: sent)
        if !changes.isEmpty { _ = try await state.push(changes, batch: UUID(), account: account, now: Date()) }
        sent = cursor
        var page: PullPage
        repeat {
            page = try await state.pull(account: account, after: received, limit: pageSize)
            if !page.changes.isEmpty { try store.apply(page.changes) }
            received = page.cursor
        } while page.hasMore
    }
}

@Suite("The server's sync state")
struct SyncStateContractTests {
    let account = UUID()

    @Test("two devices editing offline converge through it, field by field", arguments: SyncStates.all)
    func converge(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { state in
            let phone = try Device(account: account)
            let laptop = try Device(account: account)
            let deck = try phone.store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            let card = try phone.store.addCard(to: deck.id, CardDraft(front: "hola", back: "hello", tags: ["greeting"]))
            try await phone.sync(with: state, account: account)
            try await laptop.sync(with: state, account: account)
            #expect(try laptop.store.card(card.id).back == "hello")
            // Offline, each edits a different field; the laptop also edits the back later than the phone.
            _ = try phone.store.editCard(card.id, CardChanges(back: "hi", notes: "from the phone"))
            try await Task.sleep(for: .milliseconds(2))
            _ = try laptop.store.editCard(card.id, CardChanges(back: "hello there", isIncomplete: true))
            let list = try laptop.store.createList(name: "Groceries")
            _ = try laptop.store.addItem(to: list.id, title: "Milk")
            for device in [phone, laptop, phone] { try await device.sync(with: state, account: account) }
            let merged = try phone.store.card(card.id)
            #expect(merged.back == "hello there" && merged.notes == "from the phone" && merged.isIncomplete)
            #expect(try phone.store.canonicalDump() == laptop.store.canonicalDump())
            #expect(try phone.store.list(list.id).items?.map(\.title) == ["Milk"])
        }
    }

    @Test("the SQLite sync state's commits wait for the disk: an acknowledged push survives a machine crash")
    func durableCommits() async throws {
        try await SyncStates.with("sqlite-file") { state in
            let writer = try #require((state as? SQLiteServerDatabase)?.writer)
            // FULL (2), not the NORMAL (1) GRDB sets with the write-ahead log.
            #expect(try writer.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
        }
    }

    @Test("a SQLite sync state made before v8 keeps every record, now in a rowid table, and pulls the same")
    func recordsMovedToRowidTable() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-v8-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A push into today's sync state, and its records copied as they are into one made before v8.
        let phone = try CardboxStore.inMemory()
        let list = try phone.createList(name: "Groceries")
        _ = try phone.addItems(to: list.id, (0..<30).map { ItemDraft(title: "item \($0)") })
        let today = try SQLiteServerDatabase(path: folder.appendingPathComponent("today.sqlite").path)
        let receipt = try await today.push(
            try phone.changes().changes, batch: UUID(), account: phone.accountId, cardLimit: nil, now: Date())
        let rows = try await today.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT accountId, entity, rowId, record, seq FROM syncRow").map {
                Array($0.databaseValues)
            }
        }
        let oldPath = folder.appendingPathComponent("old.sqlite").path
        do {
            let old = try DatabaseQueue(path: oldPath)
            try SQLiteServerDatabase.migrator.migrate(old, upTo: "v7: failed sign-ins")
            try await old.write { db in
                for row in rows {
                    try db.execute(
                        sql: "INSERT INTO syncRow (accountId, entity, rowId, record, seq) VALUES (?, ?, ?, ?, ?)",
                        arguments: StatementArguments(row))
                }
                try db.execute(
                    sql: "INSERT INTO syncAccount (accountId, lastSeq) VALUES (?, ?)",
                    arguments: [phone.accountId.uuidString.lowercased(), receipt.cursor])
            }
            #expect(try await old.read { try Self.isRowidTable($0) } == false)
        }
        let migrated = try SQLiteServerDatabase(path: oldPath)
        #expect(try await migrated.writer.read { try Self.isRowidTable($0) })
        #expect(rows.count == 31)  // the list and its 30 items
        let before = try await today.pull(account: phone.accountId, after: 0, limit: 100)
        let after = try await migrated.pull(account: phone.accountId, after: 0, limit: 100)
        #expect(after.changes == before.changes && after.cursor == before.cursor)
        // And it takes pushes as before: what it holds is merged again, a new record is added.
        _ = try phone.addItem(to: list.id, title: "one more")
        let (changes, _) = try phone.changes(since: .zero)
        _ = try await migrated.push(changes, batch: UUID(), account: phone.accountId, cardLimit: nil, now: Date())
        #expect(try await migrated.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM syncRow") } == 32)
    }

    /// Whether the sync state's records are kept in a rowid table (not WITHOUT ROWID).
    static func isRowidTable(_ db: Database) throws -> Bool {
        let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE name = 'syncRow'") ?? ""
        return !sql.contains("WITHOUT ROWID")
    }

    @Test("a retried batch is applied once; its receipt is the first one's", arguments: SyncStates.all)
    func retriedBatch(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { state in
            let device = try Device(account: account)
            _ = try device.store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            let changes = try device.store.changes().changes
            let batch = UUID()
            let first = try await state.push(changes, batch: batch, account: account, now: Date())
            let again = try await state.push(changes, batch: batch, account: account, now: Date())
            #expect(!first.wasRetry && again.wasRetry && again.cursor == first.cursor)
            // A retry's receipt says nothing of what came before it: nobody may skip a pull on it.
            #expect(first.previousCursor == 0 && again.previousCursor == nil && !again.isOwnEcho(after: 0))
            let page = try await state.pull(account: account, after: 0, limit: 100)
            #expect(page.cursor == first.cursor && !page.hasMore)
            // The same changes in a new batch change nothing either: merging is idempotent.
            let third = try await state.push(changes, batch: UUID(), account: account, now: Date())
            #expect(third.cursor == first.cursor)
        }
    }

    @Test(
        "a receipt says whether anyone else pushed since the pusher's cursor; when not, pulling adds nothing",
        arguments: SyncStates.all)
    func receiptsTellOwnEcho(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { state in
            let phone = try Device(account: account)
            let laptop = try Device(account: account)
            let deck = try phone.store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            let first = try await state.push(
                phone.store.changes().changes, batch: UUID(), account: account, now: Date())
            #expect(first.isOwnEcho(after: 0) && first.cursor > 0)
            // The phone's records are all that came after 0: pulling them back changes nothing.
            let echo = try await state.pull(account: account, after: 0, limit: 1_000)
            let before = try phone.store.canonicalDump()
            try phone.store.apply(echo.changes)
            #expect(try phone.store.canonicalDump() == before)
            // The laptop pushes without having pulled: its receipt says so.
            _ = try laptop.store.createList(name: "Groceries")
            let laptops = try await state.push(
                laptop.store.changes().changes, batch: UUID(), account: account, now: Date())
            #expect(laptops.previousCursor == first.cursor && !laptops.isOwnEcho(after: 0))
            // Neither does the phone's next push, which came after the laptop's.
            _ = try phone.store.renameDeck(deck.id, to: "Español")
            let second = try await state.push(
                phone.store.changes().changes, batch: UUID(), account: account, now: Date())
            #expect(!second.isOwnEcho(after: first.cursor) && second.isOwnEcho(after: laptops.cursor))
        }
    }

    @Test("a change set for another account, or from the future, is refused whole", arguments: SyncStates.all)
    func refusals(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { state in
            let stranger = try Device(account: UUID())
            _ = try stranger.store.createDeck(name: "Theirs", frontLanguage: "es", backLanguage: "en")
            let theirs = try stranger.store.changes().changes
            await #expect(throws: CardboxError.self) {
                try await state.push(theirs, batch: UUID(), account: account, now: Date())
            }
            let device = try Device(account: account)
            _ = try device.store.createDeck(name: "Mine", frontLanguage: "es", backLanguage: "en")
            let changes = try device.store.changes().changes
            let tenMinutesAgo = Date().addingTimeInterval(-600)
            await #expect {
                try await state.push(changes, batch: UUID(), account: account, now: tenMinutesAgo)
            } throws: { error in
                "\(error)".contains("in the future")
            }
            // Text the store could not key on (PostgreSQL refuses NUL; an index entry has a size
            // limit) is refused as a malformed change set, the same on either database.
            let clock = WriteClock(changes.rows[0].created.timestamp, changes.replicaId)
            let keyed = { (key: String) in
                RowChange(
                    entity: .setting, id: key, created: clock,
                    fields: [
                        "key": FieldChange(value: .string(key), clock: clock),
                        "value": FieldChange(value: .string("true"), clock: clock),
                    ])
            }
            let deleted = Tombstone(
                entity: .deck, id: UUID().uuidString.lowercased(), clock: WriteClock(clock.timestamp, "replica\u{0}"))
            for (bad, problem) in [
                (ChangeSet(accountId: account, replicaId: changes.replicaId, tombstones: [deleted]), "replica"),
                (ChangeSet(accountId: account, replicaId: "device\u{0}", rows: changes.rows), "replica"),
                (ChangeSet(accountId: account, replicaId: changes.replicaId, rows: [keyed("a\u{0}b")]), "setting id"),
                (
                    ChangeSet(
                        accountId: account, replicaId: changes.replicaId,
                        rows: [keyed("k" + String(repeating: "\u{301}", count: 5_000))]), "setting id"
                ),
            ] {
                await #expect {
                    try await state.push(bad, batch: UUID(), account: account, now: Date())
                } throws: { error in
                    guard case .invalid(_, let reason)? = error as? CardboxError else { return false }
                    return reason.contains(problem)
                }
            }
            // Values every device's store would refuse to hold (its CHECK constraints) are refused
            // here too: a page no device can apply would stop the account's sync for good.
            let deckRow = try #require(changes.rows.first { $0.entity == .deck })
            func altered(_ row: RowChange, _ field: String, _ value: JSONValue) -> RowChange {
                var fields = row.fields
                fields[field] = FieldChange(value: value, clock: row.fields[field]!.clock)
                return RowChange(entity: row.entity, id: row.id, created: row.created, fields: fields)
            }
            let deckId = try #require(try device.store.decks().first?.id)
            _ = try device.store.addCard(to: deckId, CardDraft(front: "gato", back: "cat"))
            let cardRow = try #require(try device.store.changes().changes.rows.first { $0.entity == .card })
            guard case .object(var schedule) = cardRow.fields["schedule"]?.value else {
                Issue.record("a card's schedule travels as an object")
                return
            }
            schedule["state"] = .string("bogus")
            for (row, problem) in [
                (
                    altered(cardRow, "archive", .object(["isArchived": .bool(true), "archivedAt": .null])),
                    "exactly when"
                ),
                (altered(cardRow, "schedule", .object(schedule)), "must be one of new, learning"),
                (altered(deckRow, "name", .string("")), "must not be empty"),
                (altered(deckRow, "frontLanguage", .string("spa")), "must be 2 characters"),
                (altered(deckRow, "desiredRetention", .double(1)), "from 0.7 to 0.99"),
                (altered(deckRow, "newCardsPerDay", .int(-1)), "from 0 to 99999"),
                (altered(deckRow, "learningSteps", .string("1m,2y")), "'2y' is not a step like"),
                (altered(deckRow, "maximumInterval", .int(36_501)), "from 1 to 36500"),
                // The engine's lengths: a deck's name of 101 characters, or of a megabyte.
                (altered(deckRow, "name", .string(String(repeating: "n", count: 101))), "1 to 100 characters"),
                (altered(deckRow, "name", .string(String(repeating: "n", count: 1 << 20))), "Unicode scalars"),
                (altered(cardRow, "front", .string(String(repeating: "f", count: 10_001))), "1 to 10000 characters"),
                (altered(cardRow, "notes", .string(String(repeating: "x", count: 50_001))), "0 to 50000 characters"),
                // A text the engine sets no length for is held to what its longest texts may hold.
                (altered(cardRow, "jsonContent", .string(String(repeating: "[", count: 200_001))), "Unicode scalars"),
            ] {
                await #expect {
                    try await state.push(
                        ChangeSet(accountId: account, replicaId: changes.replicaId, rows: [row]), batch: UUID(),
                        account: account, now: Date())
                } throws: { error in
                    guard case .invalid(_, let reason)? = error as? CardboxError else { return false }
                    return reason.contains(problem)
                }
            }
            // Values at the edges of what a store holds are taken: the rules are the store's, no stricter.
            var edge = schedule
            edge["state"] = .string("relearning")
            edge["difficulty"] = .double(10)
            edge["stability"] = .double(0.001)
            edge["step"] = .int(0)
            for row in [
                altered(deckRow, "desiredRetention", .double(0.99)), altered(deckRow, "desiredRetention", .double(0.7)),
                altered(deckRow, "newCardsPerDay", .int(0)), altered(deckRow, "maximumInterval", .int(1)),
                altered(deckRow, "maximumInterval", .int(36_500)), altered(deckRow, "learningSteps", .string("365d")),
                altered(deckRow, "frontLanguage", .string("zh")),
                altered(cardRow, "schedule", .object(edge)), altered(cardRow, "back", .string("")),
                altered(deckRow, "name", .string(String(repeating: "n", count: 100))),
                altered(deckRow, "name", .string(String(repeating: "e\u{301}", count: 100))),
                altered(cardRow, "back", .string(String(repeating: "b", count: 50_000))),
            ] {
                _ = try await state.push(
                    ChangeSet(accountId: account, replicaId: changes.replicaId, rows: [row]), batch: UUID(),
                    account: account, now: Date())
            }
            // The same setting with an ordinary key is taken.
            _ = try await state.push(
                ChangeSet(accountId: account, replicaId: changes.replicaId, rows: [keyed("showCrossedOutItems")]),
                batch: UUID(), account: account, now: Date())
            #expect(
                Set(try await state.pull(account: account, after: 0, limit: 100).changes.rows.map(\.entity))
                    == [.deck, .card, .setting])
            await #expect(throws: CardboxError.self) { try await state.pull(account: account, after: -1, limit: 100) }
            await #expect(throws: CardboxError.self) { try await state.pull(account: account, after: 0, limit: 0) }
        }
    }

    @Test("pulls come in pages, each record once with its latest value", arguments: SyncStates.all)
    func pages(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { state in
            let writer = try Device(account: account)
            let list = try writer.store.createList(name: "Long")
            _ = try writer.store.addItems(to: list.id, (0..<25).map { ItemDraft(title: "item \($0)") })
            try await writer.sync(with: state, account: account)
            let first = try writer.store.list(list.id).items![0]
            _ = try writer.store.editItem(first.id, ItemChanges(title: "renamed"))
            try await writer.sync(with: state, account: account)
            var pages: [PullPage] = []
            var cursor: Int64 = 0
            repeat {
                pages.append(try await state.pull(account: account, after: cursor, limit: 10))
                cursor = pages.last!.cursor
            } while pages.last!.hasMore
            let rows = pages.flatMap(\.changes.rows)
            // Every record once (the list, its 25 items, the account's own row), ten to a page.
            #expect(rows.count >= 26 && pages.count == (rows.count + 9) / 10)
            #expect(pages.dropLast().allSatisfy { $0.changes.rows.count == 10 } && !pages.last!.hasMore)
            #expect(Set(rows.map(\.id)).count == rows.count)
            let renamed = rows.first { $0.id == first.id.description }
            #expect(renamed?.fields["title"]?.value == .string("renamed"))
            let reader = try Device(account: account)
            try await reader.sync(with: state, account: account, pageSize: 4)
            #expect(try reader.store.canonicalDump() == writer.store.canonicalDump())
        }
    }

    @Test("a final delete drops the record's fields and outlives later edits", arguments: SyncStates.all)
    func finalDelete(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { state in
            let phone = try Device(account: account)
            let laptop = try Device(account: account)
            let deck = try phone.store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            let card = try phone.store.addCard(to: deck.id, CardDraft(front: "hola", back: "hello"))
            for device in [phone, laptop] { try await device.sync(with: state, account: account) }
            try phone.store.deleteCard(card.id)
            _ = try laptop.store.editCard(card.id, CardChanges(back: "edited after the delete"))
            for device in [phone, laptop, phone] { try await device.sync(with: state, account: account) }
            let everything = try await state.pull(account: account, after: 0, limit: 1_000).changes
            #expect(!everything.rows.contains { $0.id == card.id.description })
            #expect(everything.tombstones.contains { $0.id == card.id.description })
            #expect(throws: CardboxError.self) { try laptop.store.card(card.id) }
            #expect(try phone.store.canonicalDump() == laptop.store.canonicalDump())
        }
    }

    @Test("accounts never see each other's records", arguments: SyncStates.all)
    func accountsApart(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { state in
            let other = UUID()
            let mine = try Device(account: account)
            let theirs = try Device(account: other)
            _ = try mine.store.createDeck(name: "Mine", frontLanguage: "es", backLanguage: "en")
            _ = try theirs.store.createDeck(name: "Theirs", frontLanguage: "fr", backLanguage: "en")
            try await mine.sync(with: state, account: account)
            try await theirs.sync(with: state, account: other)
            #expect(try mine.store.decks().map(\.name) == ["Mine"])
            #expect(try theirs.store.decks().map(\.name) == ["Theirs"])
            #expect(try await state.pull(account: UUID(), after: 0, limit: 100).changes.isEmpty)
        }
    }
}

@Suite("The server's sync state under concurrent pushes")
struct SyncStateConcurrencyTests {
    /// Sends every push at once, each from a task of its own (a nil batch: a new one each); what each
    /// met, in the order they finished.
    static func pushAtOnce(
        _ pushes: [(changes: ChangeSet, batch: UUID?)], to state: any SyncState, account: UUID, cardLimit: Int? = nil
    ) async -> [Result<PushReceipt, any Error>] {
        await withTaskGroup(of: Result<PushReceipt, any Error>.self) { group in
            for push in pushes {
                group.addTask {
                    do {
                        return .success(
                            try await state.push(
                                push.changes, batch: push.batch ?? UUID(), account: account, cardLimit: cardLimit,
                                now: Date()))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("pushes racing for one account each get their own sequence numbers", arguments: SyncStates.all)
    func racingPushes(_ implementation: String) async throws {
        let account = UUID()
        try await SyncStates.with(implementation) { state in
            let devices = try (0..<6).map { _ in try Device(account: account) }
            for (index, device) in devices.enumerated() {
                let list = try device.store.createList(name: "List \(index)")
                _ = try device.store.addItems(to: list.id, (0..<20).map { ItemDraft(title: "item \($0)") })
            }
            let pushes = try devices.map { (changes: try $0.store.changes().changes, batch: UUID?.none) }
            let receipts = try await Self.pushAtOnce(pushes, to: state, account: account).map { try $0.get() }
            #expect(Set(receipts.map(\.cursor)).count == devices.count)
            let everything = try await state.pull(account: account, after: 0, limit: 10_000)
            // Every list and item once, numbered 1…n without gaps: no push saw another's numbers.
            #expect(everything.changes.rows.filter { $0.entity == .itemList }.count == devices.count)
            #expect(everything.changes.rows.filter { $0.entity == .item }.count == devices.count * 20)
            #expect(everything.cursor == receipts.map(\.cursor).max())
            let reader = try Device(account: account)
            try await reader.sync(with: state, account: account, pageSize: 7)
            #expect(try reader.store.lists().count == devices.count)
        }
    }
}

extension SyncStateConcurrencyTests {
    @Test("racing edits of one record keep the newest, whatever order they land in", arguments: SyncStates.all)
    func racingEdits(_ implementation: String) async throws {
        let account = UUID()
        try await SyncStates.with(implementation) { state in
            let devices = try (0..<8).map { _ in try Device(account: account) }
            let list = try devices[0].store.createList(name: "Groceries")
            for device in devices { try await device.sync(with: state, account: account) }
            // Renamed on each device in turn, a moment apart, so each later name has a later clock.
            for (index, device) in devices.enumerated() {
                _ = try device.store.renameList(list.id, to: "Name \(index)")
                try await Task.sleep(for: .milliseconds(2))
            }
            let pushes = try devices.reversed().map {
                (changes: try $0.store.changes(since: $0.sent).changes, batch: UUID?.none)
            }
            for result in await Self.pushAtOnce(pushes, to: state, account: account) { _ = try result.get() }
            // A push planned from a state another push had already changed would put back an older name.
            let reader = try Device(account: account)
            try await reader.sync(with: state, account: account)
            #expect(try reader.store.lists().map(\.name) == ["Name 7"])
        }
    }

    @Test("one batch sent several times at once is applied once", arguments: SyncStates.all)
    func racingRetries(_ implementation: String) async throws {
        let account = UUID()
        try await SyncStates.with(implementation) { state in
            let phone = try Device(account: account)
            let list = try phone.store.createList(name: "Groceries")
            _ = try phone.store.addItems(to: list.id, (0..<10).map { ItemDraft(title: "item \($0)") })
            let (changes, batch) = (try phone.store.changes().changes, UUID())
            let receipts = try await Self.pushAtOnce(
                Array(repeating: (changes, batch), count: 6), to: state, account: account
            ).map { try $0.get() }
            #expect(Set(receipts.map(\.cursor)).count == 1)
            #expect(receipts.filter { !$0.wasRetry }.count == 1)
            let everything = try await state.pull(account: account, after: 0, limit: 1_000)
            #expect(everything.changes.rows.filter { $0.entity == .item }.count == 10)
            #expect(everything.cursor == receipts[0].cursor)
        }
    }

    @Test("pushes of many accounts at once (written together) each get their own answer", arguments: SyncStates.all)
    func manyAccountsAtOnce(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { state in
            // Twelve accounts push at once; the first holds 25 cards on the free plan and adds one.
            let accounts = (0..<12).map { _ in UUID() }
            let full = try Device(account: accounts[0])
            let deck = try full.store.createDeck(name: "Full", frontLanguage: "es", backLanguage: "en")
            _ = try full.store.addCards(to: deck.id, (0..<25).map { CardDraft(front: "word \($0)", back: "w") })
            try await full.sync(with: state, account: accounts[0])
            let fullCursor = try await state.cursor(account: accounts[0])
            // Premium here (a device that has not heard of the account's plan yet), free on the server.
            _ = try full.store.setPlan(.premium)
            _ = try full.store.addCard(to: deck.id, CardDraft(front: "one too many", back: "w"))
            var pushes: [(account: UUID, changes: ChangeSet)] = [
                (accounts[0], try full.store.changes(since: full.sent).changes)
            ]
            for (index, account) in accounts.enumerated().dropFirst() {
                let device = try Device(account: account)
                _ = try device.store.createList(name: "List of account \(index)")
                pushes.append((account, try device.store.changes().changes))
            }
            let outcomes = await withTaskGroup(of: (UUID, Result<PushReceipt, any Error>).self) { group in
                for push in pushes {
                    group.addTask {
                        do {
                            let receipt = try await state.push(
                                push.changes, batch: UUID(), account: push.account, cardLimit: 25, now: Date())
                            return (push.account, .success(receipt))
                        } catch {
                            return (push.account, .failure(error))
                        }
                    }
                }
                return await group.reduce(into: [UUID: Result<PushReceipt, any Error>]()) { $0[$1.0] = $1.1 }
            }
            #expect(throws: CardboxError.self) { try outcomes[accounts[0]]?.get() }
            #expect(try await state.cursor(account: accounts[0]) == fullCursor)
            for (index, account) in accounts.enumerated().dropFirst() {
                let receipt = try #require(try outcomes[account]?.get())
                let page = try await state.pull(account: account, after: 0, limit: 100)
                #expect(receipt.cursor == page.cursor && receipt.previousCursor == 0)
                let reader = try Device(account: account)
                _ = try reader.store.apply(page.changes)
                #expect(try reader.store.lists().map(\.name) == ["List of account \(index)"])
            }
        }
    }

    @Test("pushes racing past the card limit: only those that fit are taken", arguments: SyncStates.all)
    func racingPastTheLimit(_ implementation: String) async throws {
        let account = UUID()
        try await SyncStates.with(implementation) { state in
            var pushes: [(changes: ChangeSet, batch: UUID?)] = []
            for index in 0..<6 {
                let device = try Device(account: account)
                let deck = try device.store.createDeck(name: "Deck \(index)", frontLanguage: "es", backLanguage: "en")
                _ = try device.store.addCards(to: deck.id, (0..<5).map { CardDraft(front: "word \($0)", back: "w") })
                pushes.append((try device.store.changes().changes, nil))
            }
            var refusals = 0
            for result in await Self.pushAtOnce(pushes, to: state, account: account, cardLimit: 25) {
                do {
                    _ = try result.get()
                } catch CardboxError.cardLimitExceeded {
                    refusals += 1
                }
            }
            // Five pushes of five cards fill the 25; the sixth, whichever it is, would pass them.
            #expect(refusals == 1)
            let everything = try await state.pull(account: account, after: 0, limit: 1_000)
            #expect(everything.changes.rows.filter { $0.entity == .card }.count == 25)
        }
    }
}

@Suite("The plan's card limit at push")
struct CardLimitTests {
    @Test(
        "cards added offline to a deck another device deleted go from the server too: they no longer count",
        arguments: SyncStates.all)
    func orphansLeaveTheCount(_ implementation: String) async throws {
        let account = UUID()
        try await SyncStates.with(implementation) { state in
            let (phone, laptop) = (try Device(account: account), try Device(account: account))
            let deck = try phone.store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            try await phone.sync(with: state, account: account)
            try await laptop.sync(with: state, account: account)
            // Offline: the laptop adds 20 cards to the deck, the phone deletes it.
            _ = try laptop.store.addCards(to: deck.id, (0..<20).map { CardDraft(front: "word \($0)", back: "w") })
            try phone.store.deleteDeck(deck.id)
            try await phone.sync(with: state, account: account)
            try await laptop.sync(with: state, account: account)
            #expect(try laptop.store.cards(in: nil).isEmpty)
            // The laptop deleted its cards with the deck as it applied the delete; it says so.
            try await laptop.sync(with: state, account: account)
            try await phone.sync(with: state, account: account)
            #expect(try phone.store.canonicalDump() == laptop.store.canonicalDump())
            // The free plan's 25 cards are all still there to take.
            let other = try phone.store.createDeck(name: "French", frontLanguage: "fr", backLanguage: "en")
            _ = try phone.store.addCards(to: other.id, (0..<25).map { CardDraft(front: "mot \($0)", back: "w") })
            let (cards, _) = try phone.store.changes(since: phone.sent)
            _ = try await state.push(cards, batch: UUID(), account: account, cardLimit: 25, now: Date())
        }
    }

    @Test(
        "a deck merged into another at the card limit: the push is taken (the count is the same), other devices follow",
        arguments: SyncStates.all)
    func mergeAtTheLimit(_ implementation: String) async throws {
        let account = UUID()
        try await SyncStates.with(implementation) { state in
            let (phone, laptop) = (try Device(account: account), try Device(account: account))
            let mine = try phone.store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            _ = try phone.store.addCards(to: mine.id, (0..<10).map { CardDraft(front: "uno \($0)", back: "w") })
            let theirs = try laptop.store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            _ = try laptop.store.addCards(to: theirs.id, (0..<15).map { CardDraft(front: "dos \($0)", back: "w") })
            try await phone.sync(with: state, account: account)
            try await laptop.sync(with: state, account: account)
            try await phone.sync(with: state, account: account)
            _ = try phone.store.mergeDeck(theirs.id, into: mine.id)
            let (changes, _) = try phone.store.changes(since: phone.sent)
            _ = try await state.push(changes, batch: UUID(), account: account, cardLimit: 25, now: Date())
            try await phone.sync(with: state, account: account)
            try await laptop.sync(with: state, account: account)
            #expect(try laptop.store.decks().map(\.id) == [mine.id])
            #expect(try laptop.store.cards(in: mine.id).count == 25)
            #expect(try phone.store.canonicalDump() == laptop.store.canonicalDump())
        }
    }

    @Test("a push that would take the account past its card limit is refused whole", arguments: SyncStates.all)
    func limit(_ implementation: String) async throws {
        let account = UUID()
        try await SyncStates.with(implementation) { state in
            let phone = try Device(account: account)
            _ = try phone.store.setPlan(.premium)
            let deck = try phone.store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            _ = try phone.store.addCards(to: deck.id, (0..<24).map { CardDraft(front: "word \($0)", back: "w") })
            _ = try await state.push(
                phone.store.changes().changes, batch: UUID(), account: account, cardLimit: 25, now: Date())
            let cursor = try phone.store.changes(since: .zero).cursor
            // Two more would make 26 of 25.
            let cards = try phone.store.addCards(
                to: deck.id, [CardDraft(front: "a", back: "a"), CardDraft(front: "b", back: "b")])
            let twoMore = try phone.store.changes(since: cursor).changes
            let seq = try await state.pull(account: account, after: 0, limit: 1_000).cursor
            await #expect(
                throws: CardboxError.cardLimitExceeded(currentCount: 24, limit: 25, remainingCards: 1, adding: 2)
            ) {
                try await state.push(twoMore, batch: UUID(), account: account, cardLimit: 25, now: Date())
            }
            #expect(try await state.pull(account: account, after: 0, limit: 1_000).cursor == seq)
            // Without the limit (premium) the same push passes; with one card deleted, so would it.
            try phone.store.deleteCard(cards[0].id)
            let oneMore = try phone.store.changes(since: cursor).changes
            _ = try await state.push(oneMore, batch: UUID(), account: account, cardLimit: 25, now: Date())
            // At the limit, edits still sync.
            _ = try phone.store.editCard(cards[1].id, CardChanges(back: "edited"))
            let edit = try phone.store.changes(since: cursor).changes
            _ = try await state.push(edit, batch: UUID(), account: account, cardLimit: 25, now: Date())
            let extra = try phone.store.addCard(to: deck.id, CardDraft(front: "c", back: "c"))
            let over = try phone.store.changes(since: cursor).changes
            await #expect(throws: CardboxError.self) {
                try await state.push(over, batch: UUID(), account: account, cardLimit: 25, now: Date())
            }
            _ = try await state.push(over, batch: UUID(), account: account, cardLimit: nil, now: Date())
            let all = try await state.pull(account: account, after: 0, limit: 1_000).changes
            #expect(
                all.rows.filter { $0.entity == .card }.count == 26
                    && all.rows.contains { $0.id == extra.id.description })
        }
    }
}
