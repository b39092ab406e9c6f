import ArgumentParser
import CardboxConvergence
import CardboxWebAssembly
import Foundation

/// Runs randomized convergence histories: replicas that make random changes and exchange them in
/// random order must all end in the same state. A failing history prints its seed; `--seed` replays it.
@main
struct ConvergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardbox-converge",
        abstract: "Checks that replicas exchanging changes in any order end in the same state.",
        discussion: """
            Examples:
              cardbox-converge --histories 10000
              cardbox-converge --histories 2000 --through-server
              cardbox-converge --histories 1000 --browser-replica
              cardbox-converge --seed 4711
            """)

    @Option(help: "How many histories to run.")
    var histories = 10_000

    @Option(help: "Run only the history with this seed (printed by a failing run).")
    var seed: UInt64?

    @Option(help: "The seed of the first history; the others follow it.")
    var firstSeed: UInt64 = 1

    @Option(help: "Histories run at once (default: one per processor).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Exchange changes through the server's sync state (push, pull in pages) instead of directly.")
    var throughServer = false

    @Flag(
        help: """
            Check the browser's replica too: the WebAssembly module run by Node (which must be installed), \
            fed every change set of each history in a random order, must show what the device stores show.
            """)
    var browserReplica = false

    func validate() throws {
        guard histories >= 1 else { throw ValidationError("--histories must be 1 or more") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be 1 or more") }
    }

    /// The browser's replica under Node, from the repository this binary was built from.
    func startBrowserReplica() throws -> NodeReplica? {
        guard browserReplica else { return nil }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try NodeReplica(
            module: WebAssemblyModules.replica,
            script: root.appendingPathComponent("Sources/CardboxHTTP/Web/Scripts/replica.js"),
            driver: root.appendingPathComponent("Tests/Wasm/replica_driver.cjs"))
    }

    func run() async throws {
        let browser = try startBrowserReplica()
        if let seed {
            var history = ConvergenceHistory(seed: seed, throughServer: throughServer)
            history.browser = browser
            let outcome = try await history.run()
            print("history \(seed): converged (\(outcome.operations) operations, \(outcome.deliveries) deliveries)")
            return
        }
        let start = Date()
        let tally = Tally()
        let (histories, jobs, firstSeed, throughServer) = (histories, jobs, firstSeed, throughServer)
        let replay = (throughServer ? " --through-server" : "") + (browserReplica ? " --browser-replica" : "")
        // Each job takes every jobs-th history, so a failure names the same seed however many run.
        await withTaskGroup(of: Void.self) { group in
            for job in 0..<jobs {
                group.addTask {
                    for offset in stride(from: job, to: histories, by: jobs) where !tally.failed {
                        let seed = firstSeed &+ UInt64(offset)
                        do {
                            var history = ConvergenceHistory(seed: seed, throughServer: throughServer)
                            history.browser = browser
                            tally.add(try await history.run(), start: start, of: histories)
                        } catch {
                            let again = "\nreplay: cardbox-converge --seed \(seed)\(replay)"
                            tally.fail("\(error)" + (error is ConvergenceFailure ? "" : again))
                        }
                    }
                }
            }
        }
        FileHandle.standardError.write(Data("\n".utf8))
        if let failure = tally.failure {
            FileHandle.standardError.write(Data("\(failure)\n".utf8))
            throw ExitCode.failure
        }
        print(
            "\(histories) histories converged: \(tally.operations) operations (\(tally.refused) refused as invalid at "
                + "the time), \(tally.deliveries) change sets applied, in "
                + String(format: "%.1f s", Date().timeIntervalSince(start)))
    }
}

/// Totals shared by the jobs, with the progress line.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var done = 0
    private(set) var operations = 0
    private(set) var refused = 0
    private(set) var deliveries = 0
    private(set) var failure: String?

    var failed: Bool { lock.withLock { failure != nil } }

    func add(_ outcome: ConvergenceHistory.Outcome, start: Date, of total: Int) {
        lock.withLock {
            done += 1
            operations += outcome.operations
            refused += outcome.refusedOperations
            deliveries += outcome.deliveries
            if done % 100 == 0 || done == total {
                let rate = Double(done) / max(Date().timeIntervalSince(start), 0.001)
                FileHandle.standardError.write(
                    Data(String(format: "\rconverged %d/%d histories (%.0f/s)", done, total, rate).utf8))
            }
        }
    }

    func fail(_ description: String) { lock.withLock { if failure == nil { failure = description } } }
}
