import CardboxCore
import CardboxServer
import CardboxStore
import CardboxSync
import Foundation
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
            let laptop = try CardboxStore.open(
                path: folder.appendingPathComponent("laptop-\(UUID()).sqlite").path, account: phone.accountId)
            #expect(
                try laptop.adoptSnapshot(
                    at: path, link: SyncLink(server: "http://127.0.0.1:1", user: "ana", token: "t")))
            #expect(try laptop.deck(deck.id).name == "Spanish")
            #expect(try laptop.changes().changes.isEmpty)
        }
    }
}
