import CardboxServer
import CardboxServerSQLite
import Foundation
import Testing

@testable import CardboxHTTP

@Suite("Sync notes")
struct SyncNotesTests {
    @Test("notes are written in the background, merged: the later one's facts win, the earlier fills gaps")
    func merged() async throws {
        let database = try SQLiteServerDatabase.inMemory()
        let (account, device) = (UUID(), UUID())
        let notes = SyncNotes(database: database, interval: .milliseconds(200))
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        // The first note is written at once; the next three wait for the interval and merge,
        // one of them arriving out of order.
        await notes.note(device: device, account: account, pulledTo: 3, refusal: .some(nil), at: start)
        await notes.note(
            device: device, account: account, pulledTo: nil, refusal: .some("Card limit exceeded."),
            at: start.addingTimeInterval(2))
        await notes.note(device: device, account: account, pulledTo: 5, refusal: nil, at: start.addingTimeInterval(3))
        await notes.note(
            device: device, account: account, pulledTo: 4, refusal: .some(nil), at: start.addingTimeInterval(1))
        await notes.written()
        let status = try await database.syncStatus(account: account)[device]
        #expect(status?.lastSyncAt == start.addingTimeInterval(3) && status?.pulledCursor == 5)
        #expect(status?.lastError == "Card limit exceeded." && status?.lastErrorAt == start.addingTimeInterval(3))
    }
}
