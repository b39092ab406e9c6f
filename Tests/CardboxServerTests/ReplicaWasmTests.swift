import CardboxConvergence
import CardboxCore
import CardboxSync
import Foundation
import Testing

@testable import CardboxHTTP

/// The browser's replica (`replica.js` over the WebAssembly module the server carries), run by Node,
/// against the device stores of randomized histories and against bad input.
@Suite("The replica in WebAssembly holds what the device stores hold")
struct ReplicaWasmTests {
    static func node() throws -> (NodeReplica, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replica-test-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = folder.appendingPathComponent("replica.js")
        try Data(WebAssets.replicaScript.utf8).write(to: script)
        let replica = try NodeReplica(
            module: WebAssets.replicaModule, script: script,
            driver: FSRSWasmTests.root.appendingPathComponent("Tests/Wasm/replica_driver.cjs"))
        return (replica, folder)
    }

    @Test("randomized histories, direct and through the server: the browser's replica shows what the devices show")
    func histories() async throws {
        let (browser, folder) = try Self.node()
        defer { try? FileManager.default.removeItem(at: folder) }
        for seed in UInt64(1)...20 {
            for throughServer in [false, true] {
                var history = ConvergenceHistory(seed: seed, throughServer: throughServer)
                history.browser = browser
                let outcome = try await history.run()
                #expect(outcome.operations > 0)
            }
        }
    }

    @Test("a change set that is not JSON, or names no known entity, is refused with its reason")
    func refusals() async throws {
        let (browser, folder) = try Self.node()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try browser.dump(after: ["{\"format\":"])
            Issue.record("text that is not JSON was accepted")
        } catch {
            #expect("\(error)".contains("changes: a value is missing at byte 10"))
        }
        let changes = ChangeSet(accountId: UUID(), replicaId: "r").jsonText
        #expect(try browser.dump(after: [changes]).isEmpty)
        let unknown = changes.replacingOccurrences(
            of: "\"rows\":[]",
            with: """
                "rows":[{"created":0,"entity":"spaceship","fields":{},"id":"x"}]
                """
        ).replacingOccurrences(of: "\"clocks\":[]", with: "\"clocks\":[[1,\"r\"]]")
        do {
            _ = try browser.dump(after: [unknown])
            Issue.record("an unknown entity was accepted")
        } catch {
            #expect("\(error)".contains("changes.rows[0].entity: 'spaceship' is not an entity"))
        }
    }

    @Test("the module asks the page only for random bytes and reading numbers")
    func imports() throws {
        let bytes = [UInt8](WebAssets.replicaModule)
        #expect(bytes.starts(with: [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("fillRandom") && text.contains("parseNumber"))
        // 872 kB with the list, card and board writes, studying, the pages' models (the deck page
        // and the card editor among them), tags by name (SHA-1 ids, Unicode lowercasing) and the
        // straight wire reader (329 kB gzipped): growth past this bound is a library pulled in by
        // mistake, not rules added.
        #expect(bytes.count < 910_000)
    }
}
