import CardboxCore
import CardboxImaging
import Foundation
import GRDB
import Testing

@testable import CardboxStore

/// A clock tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) { current = start }

    var now: Date { lock.withLock { current } }

    func advance(days: Double = 0, seconds: Double = 0) {
        lock.withLock { current = current.addingTimeInterval(days * 86_400 + seconds) }
    }
}

enum TestStore {
    static func make(clock: TestClock = TestClock(), account: UUID? = nil) throws -> CardboxStore {
        try CardboxStore.inMemory(account: account, environment: environment(clock))
    }

    static func environment(_ clock: TestClock) -> StoreEnvironment {
        let ids = UUIDv7Generator()
        return StoreEnvironment(
            now: { clock.now }, newID: { ids.next(now: clock.now) }, makeRandom: { SystemRandomNumberGenerator() },
            timeZone: TimeZone(identifier: "UTC")!)
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-test-\(UUID().uuidString)")
            .appendingPathComponent("store.sqlite").path
    }

    /// Real images (the store decodes every image it is given), small so tests stay quick.
    static let png = try! ImageIngest.sample(width: 8, height: 6, seed: 0, format: .png)
    static let jpeg = try! ImageIngest.sample(width: 8, height: 6, seed: 0, format: .jpeg)

    /// A distinct valid PNG per seed, so images do not share storage.
    static func png(_ seed: Int) -> Data { try! ImageIngest.sample(width: 8, height: 6, seed: seed + 1, format: .png) }
}

extension CardboxStore {
    /// Rows of a table, for checking what an operation left behind.
    func rowCount(_ table: String) throws -> Int {
        try read { context in try context.count("SELECT COUNT(*) FROM \(table)", []) }
    }

    /// History entries: one per transaction that changed anything.
    func changeCount() throws -> Int { try rowCount("changeBatch") }
}
