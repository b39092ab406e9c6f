import CardboxCore
import CardboxSync
import Foundation
import GRDB
import Testing

@testable import CardboxStore

@Suite("Snapshots for devices that hold nothing yet")
struct SnapshotTests {
    /// A phone with data, a server-side copy that applied the phone's changes (as the server's copy
    /// of an account does), and a new file-backed device of the same account. Their folders go
    /// with it.
    final class Setup {
        let clock = TestClock()
        let phone: CardboxStore
        let copy: CardboxStore
        let device: CardboxStore
        let folder: URL
        private let copyFolder: URL

        init() throws {
            phone = try TestStore.make(clock: clock)
            let copyPath = TestStore.temporaryPath()
            copyFolder = URL(fileURLWithPath: copyPath).deletingLastPathComponent()
            copy = try CardboxStore.open(
                path: copyPath, account: phone.accountId, environment: TestStore.environment(clock))
            let path = TestStore.temporaryPath()
            folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            device = try CardboxStore.open(
                path: path, account: phone.accountId, environment: TestStore.environment(clock))
        }

        deinit {
            for folder in [folder, copyFolder] { try? FileManager.default.removeItem(at: folder) }
        }

        /// A snapshot of the copy, beside the device's store unless `elsewhere`.
        func snapshot(elsewhere: Bool = false) throws -> String {
            var folder = self.folder
            if elsewhere {
                folder = folder.appendingPathComponent("elsewhere")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            let path = folder.appendingPathComponent("snapshot-\(UUID()).sqlite").path
            try copy.writeSnapshot(to: path)
            return path
        }

        static let link = SyncLink(server: "http://127.0.0.1:1", user: "ana", token: "cbx1.test")
    }

    @Test("a device that takes a snapshot holds what pulling everything gives, keeps its identity, and syncs on")
    func adopt() throws {
        let setup = try Setup()
        let (phone, copy, device) = (setup.phone, setup.copy, setup.device)
        let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        _ = try phone.addCard(to: deck.id, CardDraft(front: "hola", back: "hello", tags: ["greeting"]))
        let card = try phone.addCard(to: deck.id, CardDraft(front: "perro", back: "dog", tags: ["noun"]))
        _ = try phone.editCard(card.id, CardChanges(back: "the dog"))
        try phone.deleteTag("noun")
        try copy.applyPulled(try phone.changes().changes, cursor: 42)
        #expect(try copy.replicaCursor() == 42)

        let replica = device.replicaId
        var link = Setup.link
        link.received = 42
        #expect(try device.adoptSnapshot(at: try setup.snapshot(), link: link))
        #expect(try device.canonicalDump() == phone.canonicalDump())
        #expect(device.replicaId == replica)
        #expect(try device.syncLink() == link)
        #expect(try device.integrityProblems().isEmpty)
        // Nothing of the snapshot is the device's to send; what it writes next is, under its own id.
        #expect(try device.changes().changes.isEmpty)
        _ = try device.editCard(card.id, CardChanges(notes: "ladra"))
        let written = try device.changes().changes
        #expect(written.replicaId == replica && written.rows.count == 1)
        #expect(written.rows.first?.fields["notes"]?.clock.replicaId == replica)
        try phone.apply(written)
        #expect(try phone.card(card.id).notes == "ladra")
        #expect(try device.canonicalDump() == phone.canonicalDump())
    }

    @Test("a snapshot readied for new devices leaves their replica key free; what the copy wrote keeps its writer")
    func readiedForNewDevices() throws {
        let setup = try Setup()
        let (phone, copy, device) = (setup.phone, setup.copy, setup.device)
        let deck = try phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        _ = try phone.addCard(to: deck.id, CardDraft(front: "hola", back: "hello"))
        try copy.applyPulled(try phone.changes().changes, cursor: 3)
        // The copy writes too (the web app's actions), under its own replica: the key a new store
        // gives itself, in the copy's file.
        let list = try copy.createList(name: "Groceries")
        #expect(copy.replicaKey == CardboxStore.newStoreReplicaKey)
        #expect(device.replicaKey == CardboxStore.newStoreReplicaKey)

        let path = try setup.snapshot()
        try CardboxStore.leaveNewStoreKeyFree(inSnapshotAt: path)
        let replicas = try DatabaseQueue(path: path).read { db in
            try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, id FROM replica").map {
                    ($0["key"] as Int64, $0["id"] as String)
                })
        }
        #expect(replicas[CardboxStore.newStoreReplicaKey] == nil)
        #expect(replicas.values.contains(copy.replicaId))

        #expect(try device.adoptSnapshot(at: path, link: Setup.link))
        #expect(try device.canonicalDump() == copy.canonicalDump())
        #expect(try device.lists().map(\.id) == [list.id])
        #expect(try device.integrityProblems().isEmpty)
        // The device's own writes are its own, not the copy's.
        _ = try device.createList(name: "Packing")
        #expect(
            try device.changes().changes.rows.allSatisfy { row in
                row.fields.values.allSatisfy { $0.clock.replicaId == device.replicaId }
            })
    }

    @Test("a store that holds anything of its own takes no snapshot and stays as it was")
    func refuseWhenNotEmpty() throws {
        let setup = try Setup()
        _ = try setup.phone.createList(name: "Groceries")
        try setup.copy.applyPulled(try setup.phone.changes().changes, cursor: 1)
        _ = try setup.device.createList(name: "Packing")
        let before = try setup.device.canonicalDump()
        #expect(try setup.device.adoptSnapshot(at: try setup.snapshot(), link: Setup.link) == false)
        #expect(try setup.device.canonicalDump() == before)
        #expect(try setup.device.syncLink() == nil)
    }

    @Test("a damaged snapshot, or one of another account, is refused and changes nothing")
    func refuseDamaged() throws {
        let setup = try Setup()
        _ = try setup.phone.createList(name: "Groceries")
        try setup.copy.applyPulled(try setup.phone.changes().changes, cursor: 1)
        let path = try setup.snapshot()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.replaceSubrange(0..<16, with: Data(repeating: 0x41, count: 16))
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect {
            try setup.device.adoptSnapshot(at: path, link: Setup.link)
        } throws: { error in
            guard case CardboxError.invalid(field: "snapshot", let reason) = error else { return false }
            return reason.hasPrefix("is not a Cardbox store")
        }
        let otherPath = TestStore.temporaryPath()
        defer {
            try? FileManager.default.removeItem(at: URL(fileURLWithPath: otherPath).deletingLastPathComponent())
        }
        let other = try CardboxStore.open(path: otherPath, environment: TestStore.environment(setup.clock))
        #expect {
            try other.adoptSnapshot(at: try setup.snapshot(), link: Setup.link)
        } throws: { error in
            guard case CardboxError.invalid(field: "snapshot", let reason) = error else { return false }
            return reason.hasPrefix("holds account \(setup.phone.accountId.storage)")
        }
        #expect(try setup.device.lists().isEmpty && other.lists().isEmpty)
        #expect(try setup.device.holdsNothingOfItsOwn())
    }

    @Test("a snapshot with a trigger the schema does not make, or one of its triggers altered, is refused")
    func refuseForeignTriggers() throws {
        let setup = try Setup()
        _ = try setup.phone.createList(name: "Groceries")
        _ = try setup.phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        try setup.copy.applyPulled(try setup.phone.changes().changes, cursor: 1)
        for plant in [
            "CREATE TRIGGER planted AFTER INSERT ON item BEGIN DELETE FROM itemList; END",
            """
            DROP TRIGGER deckDayAnswersOnInsert;
            CREATE TRIGGER deckDayAnswersOnInsert AFTER INSERT ON reviewLog BEGIN DELETE FROM card; END
            """,
            // A trigger's SQL in a row that calls itself a table (this SQLite finds the schema
            // malformed; the check refuses it whatever the row's type says).
            """
            PRAGMA writable_schema = ON;
            INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES ('table', 'sneaky', 'item', 0,
              'CREATE TRIGGER sneaky AFTER INSERT ON item BEGIN DELETE FROM itemList; END');
            """,
        ] {
            let path = try setup.snapshot()
            let queue = try DatabaseQueue(path: path)
            try queue.write { try $0.execute(sql: plant) }
            try queue.close()
            #expect {
                try setup.device.adoptSnapshot(at: path, link: Setup.link)
            } throws: { error in
                guard case CardboxError.invalid(field: "snapshot", let reason) = error else { return false }
                return reason.hasPrefix("holds what a store never does: ")
                    || reason.hasPrefix("is not a Cardbox store: malformed database schema")
            }
        }
        #expect(try setup.device.lists().isEmpty && setup.device.holdsNothingOfItsOwn())
        // The schema's own triggers come along and are taken; the copy's kept day counts are not.
        try setup.copy.write { tx in
            try tx.db.execute(sql: "INSERT INTO deckDayAnswers SELECT key, 0, 1, 5, 5 FROM deck")
        }
        try setup.device.adoptSnapshot(at: try setup.snapshot(), link: Setup.link)
        #expect(try setup.device.lists().map(\.name) == ["Groceries"])
        let (triggers, kept) = try setup.device.read { context in
            (
                try String.fetchAll(
                    context.db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"),
                try Int.fetchOne(context.db, sql: "SELECT COUNT(*) FROM deckDayAnswers")
            )
        }
        #expect(triggers == Schema.dayAnswerTriggers.sorted() && kept == 0)
    }

    @Test("a snapshot beside the store takes the store file's place; one elsewhere is copied in; both are adopted")
    func renameOrCopy() throws {
        for elsewhere in [false, true] {
            let setup = try Setup()
            let deck = try setup.phone.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            _ = try setup.phone.addCard(to: deck.id, CardDraft(front: "hola", back: "hello"))
            try setup.copy.applyPulled(try setup.phone.changes().changes, cursor: 3)
            let before = try Self.inode(setup.device)
            let snapshot = try setup.snapshot(elsewhere: elsewhere)
            #expect(try setup.device.adoptSnapshot(at: snapshot, link: Setup.link))
            // A rename gives the store's path the snapshot's file; a copy keeps the store's own.
            #expect(try Self.inode(setup.device) != before || elsewhere)
            #expect(try Self.inode(setup.device) == before || !elsewhere)
            #expect(FileManager.default.fileExists(atPath: snapshot) == elsewhere)
            #expect(try setup.device.canonicalDump() == setup.phone.canonicalDump())
            #expect(try setup.device.integrityProblems().isEmpty)
            // The store goes on working on the file it now has, and keeps it across an open.
            _ = try setup.device.addCard(to: deck.id, CardDraft(front: "adiós", back: "goodbye"))
            let reopened = try CardboxStore.open(path: setup.device.file.path!)
            #expect(try reopened.cards(in: deck.id).count == 2)
            #expect(reopened.replicaId == setup.device.replicaId)
        }
    }

    @Test("while another process has the store open, the snapshot is copied in, not renamed over its file")
    func anotherProcessKeepsTheFile() throws {
        let setup = try Setup()
        _ = try setup.phone.createList(name: "Groceries")
        try setup.copy.applyPulled(try setup.phone.changes().changes, cursor: 1)
        let path = try #require(setup.device.file.path)
        // An empty log: only the other process's lock on the store tells that it is open.
        try setup.device.checkpoint()
        // A reader in another process: it holds the store open until its standard input closes.
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        reader.arguments = [
            "python3", "-c",
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("SELECT count(*) FROM storeInfo").fetchall()
            print("open", flush=True)
            sys.stdin.read()
            print(db.execute("SELECT count(*) FROM itemList").fetchone()[0], flush=True)
            """,
            path,
        ]
        let (input, output) = (Pipe(), Pipe())
        reader.standardInput = input
        reader.standardOutput = output
        try reader.run()
        defer { if reader.isRunning { reader.terminate() } }
        // Waits for the reader to have the store open.
        var greeting = Data()
        while !greeting.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }
            greeting.append(more)
        }
        #expect(String(decoding: greeting, as: UTF8.self) == "open\n")

        let before = try Self.inode(setup.device)
        #expect(try setup.device.adoptSnapshot(at: try setup.snapshot(), link: Setup.link))
        #expect(try Self.inode(setup.device) == before)
        #expect(try setup.device.lists().map(\.name) == ["Groceries"])
        // The other process sees the adopted list in the file it has open.
        try input.fileHandleForWriting.close()
        reader.waitUntilExit()
        #expect(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "1\n")
    }

    private static func inode(_ store: CardboxStore) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: try #require(store.file.path))
        return try #require(attributes[.systemFileNumber] as? UInt64)
    }
}
