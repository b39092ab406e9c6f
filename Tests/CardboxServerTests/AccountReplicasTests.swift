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
}
