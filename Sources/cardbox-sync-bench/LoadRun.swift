import ArgumentParser
import AsyncHTTPClient
import CardboxCore
import CardboxStore
import CardboxSyncClient
import Foundation
import NIOCore

/// Many devices syncing against one server at once, for a fixed time: each makes one edit and
/// syncs (push, then pull until caught up), again and again, with no pause. Devices come in pairs
/// sharing an account, so every pull brings the other device's edits. Reports syncs and requests
/// per second, sync latency (p50, p99) and every error.
struct LoadRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load", abstract: "Runs many devices syncing at once against a server with --open-signup.",
        discussion: "Example:\n  cardbox-sync-bench load --server http://127.0.0.1:8080 --clients 100 --seconds 60")

    @Option(help: "The server's address; it must let devices sign up (cardbox serve --open-signup).")
    var server: String
    @Option(help: "Devices syncing at once (an even number: two per account).") var clients = 100
    @Option(help: "How long they sync, in seconds.") var seconds = 60
    @Option(help: "Cards each account starts with (the free plan allows 25).") var cards = 20

    func validate() throws {
        guard clients >= 2, clients % 2 == 0 else { throw ValidationError("--clients must be an even number ≥ 2") }
        guard seconds >= 1 else { throw ValidationError("--seconds must be 1 or more") }
        guard (1...25).contains(cards) else { throw ValidationError("--cards must be 1 to 25") }
    }

    func run() async throws {
        let devices = try await prepareDevices()
        let metrics = try ServerMetricsReading(server: server)
        let before = try await metrics.read()
        let tally = LoadTally()
        let deadline = ContinuousClock.now + .seconds(seconds)
        let start = ContinuousClock.now
        let ticker = Task { await tally.show(until: deadline, since: start) }
        await withTaskGroup(of: Void.self) { group in
            for device in devices {
                group.addTask { await Self.syncUntil(deadline, device, tally) }
            }
        }
        ticker.cancel()
        let elapsed = milliseconds(ContinuousClock.now - start) / 1_000
        let after = try await metrics.read()
        let (latencies, errors, firstError) = tally.totals
        let report: [String: Any] = [
            "clients": clients, "seconds": elapsed, "syncs": latencies.count, "errors": errors,
            "firstError": firstError ?? "", "syncsPerSecond": Double(latencies.count) / elapsed,
            "requestsPerSecond": Double(after.requests - before.requests) / elapsed,
            "syncP50Ms": percentile(latencies, 0.5), "syncP99Ms": percentile(latencies, 0.99),
        ]
        if isatty(STDERR_FILENO) == 1 { FileHandle.standardError.write(Data("\n".utf8)) }
        let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
        print(String(decoding: json, as: UTF8.self))
    }

    /// One device's loop: edit a card, sync, time it; until the deadline.
    private static func syncUntil(_ deadline: ContinuousClock.Instant, _ device: LoadDevice, _ tally: LoadTally) async {
        var round = 0
        while ContinuousClock.now < deadline {
            round += 1
            do {
                let card = device.cards[round % device.cards.count]
                _ = try device.store.editCard(card, CardChanges(back: "\(device.name) edit \(round)"))
                let elapsed = try await timed { _ = try await DeviceSync(store: device.store).sync() }
                tally.synced(milliseconds: elapsed)
            } catch {
                tally.failed(error)
            }
        }
    }

    /// Signs up an account per pair of devices, signs both in, gives the first the account's
    /// cards and brings the second up to date.
    private func prepareDevices() async throws -> [LoadDevice] {
        let run = UUID().uuidString.prefix(8).lowercased()
        return try await withThrowingTaskGroup(of: [LoadDevice].self) { group in
            for pair in 0..<clients / 2 {
                group.addTask { [server, cards] in
                    let user = "load-\(run)-\(pair)"
                    let password = "load password \(pair)"
                    try await ServerConnection(server: server, token: nil).signUp(user: user, password: password)
                    let first = try await LoadDevice.signIn(server, user, password, name: "\(user)/a")
                    let deck = try first.store.createDeck(name: "Load", frontLanguage: "es", backLanguage: "en")
                    let made = try first.store.addCards(
                        to: deck.id, (0..<cards).map { CardDraft(front: "front \($0)", back: "back \($0)") })
                    _ = try await DeviceSync(store: first.store).sync()
                    let second = try await LoadDevice.signIn(server, user, password, name: "\(user)/b")
                    _ = try await DeviceSync(store: second.store).sync()
                    let ids = made.map(\.id)
                    return [first.with(cards: ids), second.with(cards: ids)]
                }
            }
            var devices: [LoadDevice] = []
            for try await pair in group {
                devices += pair
                if isatty(STDERR_FILENO) == 1 {
                    FileHandle.standardError.write(Data("\rsigned in \(devices.count) of \(clients) devices ".utf8))
                }
            }
            return devices
        }
    }
}

/// A device of the load run: an in-memory store signed in to its account.
struct LoadDevice: Sendable {
    let name: String
    let store: CardboxStore
    var cards: [CardID] = []

    static func signIn(_ server: String, _ user: String, _ password: String, name: String) async throws -> LoadDevice {
        let signedIn = try await ServerConnection(server: server, token: nil).signIn(
            user: user, password: password, device: name)
        let store = try CardboxStore.inMemory(account: signedIn.account.id)
        try store.saveSyncLink(SyncLink(server: server, user: user, token: signedIn.token))
        return LoadDevice(name: name, store: store)
    }

    func with(cards: [CardID]) -> LoadDevice {
        var device = self
        device.cards = cards
        return device
    }
}

/// Latencies and errors from every device, and the progress line.
final class LoadTally: @unchecked Sendable {
    private let lock = NSLock()
    private var latencies: [Double] = []
    private var errors = 0
    private var firstError: String?

    func synced(milliseconds: Double) { lock.withLock { latencies.append(milliseconds) } }

    func failed(_ error: any Error) {
        lock.withLock {
            errors += 1
            if firstError == nil { firstError = (error as? LocalizedError)?.errorDescription ?? "\(error)" }
        }
    }

    var totals: (latencies: [Double], errors: Int, firstError: String?) {
        lock.withLock { (latencies, errors, firstError) }
    }

    /// Once a second on a terminal: time, syncs and errors so far.
    func show(until deadline: ContinuousClock.Instant, since start: ContinuousClock.Instant) async {
        guard isatty(STDERR_FILENO) == 1 else { return }
        while ContinuousClock.now < deadline, !Task.isCancelled {
            let (syncs, failures) = lock.withLock { (self.latencies.count, self.errors) }
            let elapsed = Int(milliseconds(ContinuousClock.now - start) / 1_000)
            FileHandle.standardError.write(Data("\r\(elapsed) s: \(syncs) syncs, \(failures) errors   ".utf8))
            try? await Task.sleep(for: .seconds(1))
        }
    }
}

/// Counters read from the server's `/metrics`: requests, and bytes in and out.
struct ServerMetricsReading {
    let url: String

    init(server: String) throws {
        url = (server.hasSuffix("/") ? String(server.dropLast()) : server) + "/metrics"
    }

    struct Counters {
        var requests: Int64 = 0
        var requestBytes: Int64 = 0
        var responseBytes: Int64 = 0
    }

    func read() async throws -> Counters {
        let response = try await ServerConnection.client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 24))
        var counters = Counters()
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            let name = line[..<space].prefix { $0 != "{" && $0 != " " }
            switch name {
            case "cardbox_requests_total": counters.requests += Int64(value)
            case "cardbox_request_bytes_total": counters.requestBytes += Int64(value)
            case "cardbox_response_bytes_total": counters.responseBytes += Int64(value)
            default: break
            }
        }
        return counters
    }
}
