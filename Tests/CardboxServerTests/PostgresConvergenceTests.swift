import CardboxConvergence
import CardboxServer
import CardboxServerPostgres
import CardboxTestSupport
import Foundation
import Testing

@Suite("Randomized convergence through PostgreSQL")
struct PostgresConvergenceTests {
    /// The histories of `cardbox-converge --through-server`, with the sync state on a real
    /// PostgreSQL shared by all of them (each history has an account of its own), two at a time.
    @Test("120 randomized histories converge through the sync state on PostgreSQL")
    func histories() async throws {
        let database = try await PostgresServerDatabase.open(url: try TestPostgres.url)
        let firstSeed = UInt64.random(in: 1...UInt64.max / 2)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for job in 0..<2 {
                    group.addTask {
                        for offset in stride(from: job, to: 120, by: 2) {
                            let seed = firstSeed + UInt64(offset)
                            do {
                                _ = try await ConvergenceHistory(seed: seed, serverDatabase: database).run()
                            } catch {
                                Issue.record("history \(seed) on PostgreSQL: \(error)")
                                return
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
