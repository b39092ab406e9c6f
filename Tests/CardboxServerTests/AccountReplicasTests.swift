import CardboxAccountCopies
import CardboxCore
import CardboxImaging
import CardboxServer
import CardboxStore
import CardboxSync
import CardboxTestSupport
import Foundation
import GRDB
import Testing

@Suite("The server's copy of each account")
struct AccountReplicasTests {
    @Test("the copy follows the sync state; one ahead of its database is refused, not handed out")
    func copyFollowsItsDatabase() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replicas-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let phone = try CardboxStore.inMemory()
        _ = try phone.createList(name: "Groceries")
        try await SyncStates.with("sqlite-memory") { database in
            let receipt = try await database.push(
                try phone.changes().changes, batch: UUID(), account: phone.accountId, cardLimit: nil, now: Date())
            let replicas = try AccountReplicas(folder: folder, state: database)
            let first = try await replicas.snapshot(phone.accountId)
            #expect(first.cursor == receipt.cursor && first.size > 0 && first.sha256.count == 64)
            // Asked again with nothing new: the same file; after a push: a newer one.
            #expect(try await replicas.snapshot(phone.accountId).sha256 == first.sha256)
            _ = try phone.createList(name: "Packing")
            let (changes, _) = try phone.changes()
            let later = try await database.push(
                changes, batch: UUID(), account: phone.accountId, cardLimit: nil, now: Date())
            #expect(try await replicas.snapshot(phone.accountId).cursor == later.cursor)
            // The first reader still reads its whole file, though a newer one replaced it.
            let bytes = try first.file.readToEnd() ?? Data()
            #expect(bytes.count == first.size && sha256Hex(bytes) == first.sha256)
        }
        // The same cache over another (empty) database: the copy is ahead of it.
        try await SyncStates.with("sqlite-memory") { database in
            let replicas = try AccountReplicas(folder: folder, state: database)
            await #expect {
                _ = try await replicas.snapshot(phone.accountId)
            } throws: { error in
                (error as? CardboxError)?.errorDescription?.contains("ahead of its database") == true
            }
        }
    }

    @Test("after a burst of many changes the next snapshot is made ahead, before a device asks; after a few, not")
    func snapshotMadeAhead() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replicas-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let phone = try CardboxStore.inMemory()
        let snapshotFiles = {
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".snapshot") }
        }
        try await SyncStates.with("sqlite-memory") { database in
            let replicas = try AccountReplicas(
                folder: folder, state: database, refreshDelay: .milliseconds(1), snapshotAhead: 10)
            var sent = HLCTimestamp.zero
            // Four records, then twelve more: the first burst is below the threshold, the second not.
            for (burst, lists) in [4, 12].enumerated() {
                for index in 0..<lists { _ = try phone.createList(name: "Burst \(burst) list \(index)") }
                let (changes, next) = try phone.changes(since: sent)
                sent = next
                let receipt = try await database.push(
                    changes, batch: UUID(), account: phone.accountId, cardLimit: nil, now: Date())
                replicas.refresh(phone.accountId)
                if burst == 0 {
                    // Read through the replicas (the background catch-up may be opening the copy's
                    // file at this moment: a second open of a new file would migrate it twice).
                    #expect(try await replicas.read(phone.accountId) { try $0.replicaCursor() } == receipt.cursor)
                    for _ in 0..<100 where try snapshotFiles().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
                    #expect(try snapshotFiles().isEmpty)
                } else {
                    // The background catch-up, then the snapshot it makes ahead.
                    for _ in 0..<1_000 where try snapshotFiles().isEmpty {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    let made = try snapshotFiles()
                    #expect(made.count == 1 && made[0].contains("-\(receipt.cursor)-"))
                    // The device that asks now gets the one made ahead.
                    let asked = try await replicas.snapshot(phone.accountId)
                    let afterAsking = try snapshotFiles()
                    #expect(asked.cursor == receipt.cursor && afterAsking == made)
                    try asked.file.close()
                }
            }
        }
    }

    @Test("copies past the number kept are let go, their files with them, and made again from the sync state")
    func copiesAreBounded() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replicas-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await SyncStates.with("sqlite-memory") { database in
            let replicas = try AccountReplicas(folder: folder, state: database)
            var accounts: [UUID] = []
            for index in 0..<(AccountReplicas.openStoresKept + 16) {
                let phone = try CardboxStore.inMemory()
                _ = try phone.createList(name: "List \(index)")
                _ = try await database.push(
                    try phone.changes().changes, batch: UUID(), account: phone.accountId, cardLimit: nil, now: Date())
                // Each copy makes a snapshot file, and the first ones a write of their own.
                let snapshot = try await replicas.snapshot(phone.accountId)
                try snapshot.file.close()
                if index < 4 {
                    _ = try await replicas.write(phone.accountId, plan: .premium, now: Date()) {
                        try $0.createList(name: "Written \(index)")
                    }
                }
                accounts.append(phone.accountId)
            }
            await replicas.saveAllMarks()
            let open = await replicas.openCopies
            #expect(open.inUse == AccountReplicas.openStoresKept && open.closing == 0)
            let snapshots = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix(".snapshot") }
            #expect(snapshots.count == AccountReplicas.openStoresKept)
            // A copy let go is made again from its file and the sync state, with its own write.
            let names = try await replicas.read(accounts[0]) { try $0.lists().map(\.name) }
            #expect(Set(names) == ["List 0", "Written 0"])
            // Its write had reached the sync state once: nothing of it is pushed again.
            let pulled = try await database.pull(account: accounts[0], after: 0, limit: 100).changes
            #expect(pulled.rows.filter { $0.entity == .itemList }.count == 2)
        }
    }

    @Test("a copy let go while a write is on its way closes after it; the copy made next sees the write")
    func letGoAfterWork() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replicas-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await SyncStates.with("sqlite-memory") { database in
            let replicas = try AccountReplicas(folder: folder, state: database)
            let account = UUID()
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let writing = Task {
                try await replicas.write(account, plan: .premium, now: Date()) { store in
                    started.signal()
                    release.wait()
                    return try store.createList(name: "Slow").name
                }
            }
            await started.waitOffThePool()
            // Other accounts' pages push this one out while its write waits.
            for _ in 0..<AccountReplicas.openStoresKept {
                _ = try await replicas.read(UUID()) { try $0.lists().count }
            }
            #expect(await replicas.openCopies.closing == 1)
            let reading = Task { try await replicas.read(account) { try $0.lists().map(\.name) } }
            release.signal()
            #expect(try await writing.value == "Slow")
            #expect(try await reading.value == ["Slow"])
        }
    }

    @Test("first uses of an account at once (a page and a push's catch-up) share one open of its new store")
    func concurrentFirstUse() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replicas-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await SyncStates.with("sqlite-memory") { database in
            let replicas = try AccountReplicas(folder: folder, state: database)
            for _ in 0..<40 {
                let account = UUID()
                // Without sharing, two of these migrate the same new file at once and one fails
                // ("index … already exists").
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<8 { group.addTask { try await replicas.read(account) { try $0.decks().count } } }
                    for try await count in group { #expect(count == 0) }
                }
            }
        }
    }

    @Test("a write on the copy reaches the sync state once; a device that adopts the copy has nothing of it to send")
    func writesArePushed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replicas-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let phone = try CardboxStore.inMemory()
        _ = try phone.createList(name: "Groceries")
        try await SyncStates.with("sqlite-memory") { database in
            _ = try await database.push(
                try phone.changes().changes, batch: UUID(), account: phone.accountId, cardLimit: nil, now: Date())
            let replicas = try AccountReplicas(folder: folder, state: database)
            let before = try await database.cursor(account: phone.accountId)
            let deck = try await replicas.write(phone.accountId, plan: .free, now: Date()) { store in
                try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            }
            let after = try await database.cursor(account: phone.accountId)
            #expect(after > before)
            // Nobody else pushed in between: the copy holds everything up to its own push without
            // pulling it back (noted in memory, written to the store after a burst of writes).
            #expect(try Self.copy(of: phone.accountId, in: folder).replicaCursor() < after)
            await replicas.saveAllMarks()
            #expect(try Self.copy(of: phone.accountId, in: folder).replicaCursor() == after)
            // A write that changes nothing pushes nothing.
            _ = try await replicas.write(phone.accountId, plan: .free, now: Date()) { store in try store.decks() }
            #expect(try await database.cursor(account: phone.accountId) == after)
            // The phone gets the deck like any change of another device.
            let page = try await database.pull(account: phone.accountId, after: before, limit: 100)
            try phone.apply(page.changes)
            #expect(try phone.deck(deck.id).name == "Spanish")

            // A new device adopting the copy holds the deck, and has none of it to send.
            let snapshot = try await replicas.snapshot(phone.accountId)
            let path = folder.appendingPathComponent("adopt-\(UUID()).sqlite").path
            try (try snapshot.file.readToEnd() ?? Data()).write(to: URL(fileURLWithPath: path))
            // The copy wrote the deck under the key a new store gives itself; the snapshot it serves
            // has that key free, so a new device renames nothing when it adopts it.
            let replicaKeys = try await DatabaseQueue(path: path).read { db in
                try Int64.fetchAll(db, sql: "SELECT key FROM replica")
            }
            #expect(!replicaKeys.contains(1) && replicaKeys.count >= 3)
            let laptop = try CardboxStore.open(
                path: folder.appendingPathComponent("laptop-\(UUID()).sqlite").path, account: phone.accountId)
            #expect(
                try laptop.adoptSnapshot(
                    at: path, link: SyncLink(server: "http://127.0.0.1:1", user: "ana", token: "t")))
            #expect(try laptop.deck(deck.id).name == "Spanish")
            #expect(try laptop.changes().changes.isEmpty)
        }
    }

    @Test("a copy's marks lost with the process cost a push that the sync state takes as nothing new")
    func lostMarks() async throws {
        try await Self.withSyncedPhone { folder, account, phone, database in
            // A process that writes and dies before its marks are written to the copy.
            let dying = try AccountReplicas(folder: folder, state: database, marksDelay: .seconds(3_600))
            _ = try await dying.write(account, plan: .free, now: Date()) { store in
                try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            }
            let afterDeck = try await database.cursor(account: account)
            // The next process's copy sends the deck again with its list: only the list is new.
            let next = try AccountReplicas(folder: folder, state: database)
            _ = try await next.write(account, plan: .free, now: Date()) { store in try store.createList(name: "Packing")
            }
            let page = try await database.pull(account: account, after: afterDeck, limit: 100)
            #expect(page.changes.rows.contains { $0.entity == .itemList })
            #expect(!page.changes.rows.contains { $0.entity == .deck })
            try await phone.sync(with: database, account: account)
            let copy = try await next.read(account) { store in try store.canonicalDump() }
            #expect(try phone.store.canonicalDump() == copy)
        }
    }

    @Test("a write that comes after a device's push it has not pulled yet leaves that push to be pulled")
    func writeAfterUnseenPush() async throws {
        try await Self.withSyncedPhone { folder, account, phone, database in
            // Marks written at once: saveAllMarks must wait for those already being written.
            let replicas = try AccountReplicas(folder: folder, state: database, marksDelay: .zero)
            _ = try await replicas.write(account, plan: .free, now: Date()) { store in
                try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
            }
            let seen = try await database.cursor(account: account)
            // The phone pushes; the copy writes next, as a caller that read the cursor before the
            // phone's push would ask it to (`atLeast`), so it does not catch up first.
            _ = try phone.store.createList(name: "Packing")
            try await phone.sync(with: database, account: account)
            _ = try await replicas.write(account, plan: .free, now: Date(), atLeast: seen) { store in
                try store.createDeck(name: "French", frontLanguage: "fr", backLanguage: "en")
            }
            // Its cursor stays before the phone's push, so the phone's list is pulled, not skipped.
            await replicas.saveAllMarks()
            #expect(try Self.copy(of: account, in: folder).replicaCursor() == seen)
            let lists = try await replicas.read(account) { store in try store.lists().map(\.name) }
            #expect(lists.sorted() == ["Groceries", "Packing"])
            try await phone.sync(with: database, account: account)
            let copy = try await replicas.read(account) { store in try store.canonicalDump() }
            #expect(try phone.store.canonicalDump() == copy)
        }
    }

    /// A free-plan account whose phone holds 24 cards and the server's copy of it, caught up; then
    /// the phone adds the 25th card and syncs, after the cursor (`seen`) a caller of the copy read.
    static func withPhoneAheadOfTheCopy(
        _ body: (
            _ phone: Device, _ deck: Deck, _ database: any SyncState, _ replicas: AccountReplicas, _ seen: Int64,
            _ folder: URL
        ) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replicas-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let account = UUID()
        let phone = try Device(account: account)
        let deck = try phone.store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        _ = try phone.store.addCards(to: deck.id, (1...24).map { CardDraft(front: "card \($0)", back: "x") })
        try await SyncStates.with("sqlite-memory") { database in
            try await phone.sync(with: database, account: account)
            let replicas = try AccountReplicas(folder: folder, state: database)
            let seen = try await database.cursor(account: account)
            _ = try await replicas.read(account) { store in try store.decks() }
            _ = try phone.store.addCard(to: deck.id, CardDraft(front: "from the phone", back: "x"))
            try await phone.sync(with: database, account: account)
            try await body(phone, deck, database, replicas, seen, folder)
        }
    }

    @Test("a card the sync state refuses (another device reached the free plan's limit first) is forgotten by the copy")
    func refusedWriteIsForgotten() async throws {
        try await Self.withPhoneAheadOfTheCopy { phone, deck, database, replicas, seen, folder in
            let account = phone.store.accountId
            // The copy, asked by a caller that read the cursor before (`atLeast`), does not catch
            // up, holds 24 and adds one too: the push is refused whole.
            await #expect {
                _ = try await replicas.write(account, plan: .free, now: Date(), atLeast: seen) { store in
                    try store.addCard(to: deck.id, CardDraft(front: "from the web", back: "x"))
                }
            } throws: { error in
                guard case .cardLimitExceeded(let count, let limit, _, _)? = error as? CardboxError else {
                    return false
                }
                return count == 25 && limit == 25
            }
            // The copy keeps nothing of the refused write: the next one goes through, and the copy
            // holds what the phone does.
            _ = try await replicas.write(account, plan: .free, now: Date()) { store in
                try store.createList(name: "Groceries")
            }
            try await phone.sync(with: database, account: account)
            let fronts = try await replicas.read(account) { store in try store.cards(in: deck.id).map(\.front) }
            #expect(fronts.count == 25 && fronts.contains("from the phone") && !fronts.contains("from the web"))
            let copy = try await replicas.read(account) { store in try store.canonicalDump() }
            #expect(try phone.store.canonicalDump() == copy)
        }
    }

    @Test("a snapshot asked for while a write is on its way waits for it: a refused write is not handed out")
    func snapshotWaitsForWriteInFlight() async throws {
        try await Self.withPhoneAheadOfTheCopy { phone, deck, database, replicas, seen, folder in
            let account = phone.store.accountId
            // The copy commits its card, then waits before its push (which the sync state refuses:
            // the phone took the 25th place) until the snapshot has been asked for.
            let (committed, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            let write = Task {
                try await replicas.write(account, plan: .free, now: Date(), atLeast: seen) { store in
                    let card = try store.addCard(to: deck.id, CardDraft(front: "from the web", back: "x"))
                    committed.signal()
                    release.wait()
                    return card
                }
            }
            await committed.waitOffThePool()
            let queued = await replicas.turnsTaken(account)
            let snapshot = Task { try await replicas.snapshot(account, atLeast: seen) }
            // Released once the snapshot waits in the copy's turn, behind the write.
            for _ in 0..<10_000 where await replicas.turnsTaken(account) == queued {
                try await Task.sleep(for: .milliseconds(1))
            }
            release.signal()
            await #expect(throws: CardboxError.self) { try await write.value }
            let file = try await snapshot.value
            let path = folder.appendingPathComponent("adopt-\(UUID()).sqlite").path
            try (try file.file.readToEnd() ?? Data()).write(to: URL(fileURLWithPath: path))
            let fronts = try await DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT front FROM card")
            }
            #expect(fronts.count == 25 && fronts.contains("from the phone") && !fronts.contains("from the web"))
            #expect(file.cursor == (try await database.cursor(account: account)))
        }
    }

    @Test("a write uploads the pictures its records name that the server lacks; one the copy lacks too is left")
    func picturesOfWrites() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replicas-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let account = UUID()
        let phone = try Device(account: account)
        let deck = try phone.store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        // The phone's card names a picture whose bytes it has not uploaded (only its records went).
        let photo = try ImageIngest.sample(width: 64, height: 48, format: .png)
        let phones = try phone.store.addCard(to: deck.id, CardDraft(front: "perro", back: "dog"), image: photo)
        try await SyncStates.with("sqlite-memory") { database in
            try await phone.sync(with: database, account: account)
            let replicas = try AccountReplicas(folder: folder, state: database)
            let card = try await replicas.write(account, plan: .free, now: Date()) { store in
                try store.addCard(
                    to: deck.id, CardDraft(front: "gato", back: "cat"),
                    image: try ImageIngest.sample(width: 80, height: 60, format: .jpeg))
            }
            let hash = try #require(card.imageHash)
            #expect(try await database.image(hash, account: account)?.mimeType == "image/jpeg")
            // A write that pushes the phone's card again (favorite) goes through without its bytes.
            _ = try await replicas.write(account, plan: .free, now: Date()) { store in
                try store.setFavorite(phones.id, true)
            }
            #expect(try await database.image(try #require(phones.imageHash), account: account) == nil)
            #expect(try await database.cursor(account: account) > 0)
        }
    }

    /// A phone holding a list, synced to a new sync state, and an empty folder for the copies.
    private static func withSyncedPhone(
        _ body: (_ folder: URL, _ account: UUID, _ phone: Device, _ database: any ServerDatabase) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replicas-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let account = UUID()
        let phone = try Device(account: account)
        _ = try phone.store.createList(name: "Groceries")
        try await SyncStates.with("sqlite-memory") { database in
            try await phone.sync(with: database, account: account)
            try await body(folder, account, phone, database)
        }
    }

    /// The account's copy in `folder`, opened beside the one `AccountReplicas` keeps open.
    private static func copy(of account: UUID, in folder: URL) throws -> CardboxStore {
        try CardboxStore.open(
            path: folder.appendingPathComponent("\(account.uuidString.lowercased()).sqlite").path, account: account)
    }
}
