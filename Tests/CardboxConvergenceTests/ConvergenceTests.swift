import CardboxConvergence
import Testing

@Suite("Randomized convergence")
struct ConvergenceTests {
    @Test("replicas exchanging change sets in random order, with duplicates, drops and partial batches, converge")
    func histories() async throws {
        for seed in UInt64(1)...40 {
            let outcome = try await ConvergenceHistory(seed: seed).run()
            #expect(outcome.operations > 0)
        }
    }

    @Test("replicas syncing through the server's sync state, pulling in random pages with lost answers, converge")
    func throughServer() async throws {
        for seed in UInt64(1)...40 {
            let outcome = try await ConvergenceHistory(seed: seed, throughServer: true).run()
            #expect(outcome.operations > 0 && outcome.deliveries > 0)
        }
    }

    @Test("a seed replays the same history")
    func replay() async throws {
        let first = try await ConvergenceHistory(seed: 42).run()
        let again = try await ConvergenceHistory(seed: 42).run()
        #expect(first.operations == again.operations && first.deliveries == again.deliveries)
        #expect(first.refusedOperations == again.refusedOperations)
    }
}
