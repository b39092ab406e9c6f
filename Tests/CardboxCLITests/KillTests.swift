import CardboxCore
import CardboxStore
import Foundation
import Testing

/// A device's store file, filled through the store's API (faster than one process per card).
private func addCards(_ count: Int, to cli: CLI, deck name: String, prefix: String) throws {
    let store = try CardboxStore.open(path: cli.storePath)
    if try store.allowance().plan != .premium { _ = try store.setPlan(.premium) }
    let deck = try store.decks().first { $0.name == name }
    let deckId = try deck?.id ?? store.createDeck(name: name, frontLanguage: "es", backLanguage: "en").id
    _ = try store.addCards(to: deckId, (0..<count).map { CardDraft(front: "\(prefix) \($0)", back: "b") })
    try store.checkpoint()
}

/// Starts `cardbox ARGS` as a process and returns it running.
private func start(_ cli: CLI, _ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = try CLI.builtBinary()
    process.arguments = ["--store", cli.storePath] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

private func killHard(_ process: Process) {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
}

/// The fronts of every card a device holds, sorted: what two devices must agree on.
private func fronts(_ cli: CLI) throws -> [String] {
    let store = try CardboxStore.open(path: cli.storePath)
    return try store.cards(in: nil).map(\.front).sorted()
}

@Suite("Syncs killed at random moments")
struct KillTests {
    let seed = UInt64.random(in: 1...UInt64.max)

    private func signIn(_ cli: CLI, _ url: String, _ name: String) throws {
        let login = try cli.runProcess(["login", url, "--user", name, "--password-stdin"], input: "correct horse\n")
        #expect(login.status == 0, "\(login.stderr)")
    }

    private func addAccount(_ admin: CLI, _ name: String) throws -> String {
        let database = admin.folder.appendingPathComponent("server.sqlite").path
        let added = try admin.runProcess(
            ["admin", "--database", database, "user", "add", name, "--password-stdin", "--plan", "premium"],
            store: false, input: "correct horse\n")
        #expect(added.status == 0, "\(added.stderr)")
        return database
    }

    @Test("kill -9 the client 50 times during a large sync: the next sync completes, nothing lost")
    func killClient() throws {
        var random = SeededRandom(seed: seed)
        let admin = try CLI()
        let phone = try CLI()
        let laptop = try CLI()
        defer { [admin, phone, laptop].forEach { $0.remove() } }
        let server = try ServerProcess(database: try addAccount(admin, "ana"))
        defer { _ = server.stop() }
        try addCards(3_000, to: phone, deck: "Spanish", prefix: "card")
        try signIn(phone, server.url, "ana")
        for round in 0..<50 {
            try addCards(20, to: phone, deck: "Spanish", prefix: "round \(round)")
            let sync = try start(phone, ["sync"])
            usleep(UInt32.random(in: 0...300_000, using: &random))
            killHard(sync)
        }
        let final = try phone.runProcess(["sync"])
        #expect(final.status == 0, "seed \(seed): \(final.stderr)")
        #expect(try phone.runProcess(["sync", "status"]).stdout.contains("pending: 0"), "seed \(seed)")
        try signIn(laptop, server.url, "ana")
        #expect(try laptop.runProcess(["sync"]).status == 0)
        let phoneFronts = try fronts(phone)
        #expect(phoneFronts.count == 4_000, "seed \(seed)")
        #expect(try fronts(laptop) == phoneFronts, "seed \(seed)")
    }

    @Test("kill -9 the server 50 times during a large sync: what it acknowledged stays, the next sync completes")
    func killServer() throws {
        var random = SeededRandom(seed: seed)
        let admin = try CLI()
        let phone = try CLI()
        let laptop = try CLI()
        defer { [admin, phone, laptop].forEach { $0.remove() } }
        let database = try addAccount(admin, "ben")
        try addCards(3_000, to: phone, deck: "Spanish", prefix: "card")
        var server = try ServerProcess(database: database)
        try signIn(phone, server.url, "ben")
        try signIn(laptop, server.url, "ben")
        for round in 0..<50 {
            try addCards(20, to: phone, deck: "Spanish", prefix: "round \(round)")
            let sync = try start(phone, ["sync"])
            usleep(UInt32.random(in: 0...300_000, using: &random))
            killHard(server.process)
            sync.waitUntilExit()
            // It comes back on the same address, as a service manager would restart it.
            server = try ServerProcess(database: database, port: server.port)
        }
        #expect(try phone.runProcess(["sync"]).status == 0, "seed \(seed)")
        #expect(try laptop.runProcess(["sync"]).status == 0, "seed \(seed)")
        let phoneFronts = try fronts(phone)
        #expect(phoneFronts.count == 4_000, "seed \(seed)")
        #expect(try fronts(laptop) == phoneFronts, "seed \(seed)")
        #expect(server.stop() == 0)
    }
}
