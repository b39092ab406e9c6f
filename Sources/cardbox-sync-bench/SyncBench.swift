import ArgumentParser
import CardboxCore
import CardboxStore
import CardboxSyncClient
import Foundation

/// Times Cardbox's sync against a running server, with the devices in this process (no process
/// start-up in the figures). `scripts/sync_bench.sh` runs `first` beside Anki's own sync server;
/// `scripts/sync_load.sh` runs `load` on SQLite and on PostgreSQL.
@main
struct SyncBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardbox-sync-bench", abstract: "Times syncs against a running server.",
        subcommands: [FirstSync.self, LoadRun.self], defaultSubcommand: FirstSync.self)
}

/// A first sync of a collection to an empty device, and the incremental sync of one changed card.
struct FirstSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "first", abstract: "Times first and incremental syncs of one account's collection.",
        discussion:
            "Example:\n  cardbox-sync-bench first --server http://127.0.0.1:8080 --user bench --password-file pw.txt")

    @Option(help: "The server's address.") var server: String
    @Option(help: "The account (premium, so the card limit does not apply).") var user: String
    @Option(help: "A file holding the account's password.") var passwordFile: String
    @Option(help: "Cards in the collection.") var cards = 5_000
    @Option(help: "Repetitions of the incremental sync (the median is reported).") var runs = 20
    @Option(help: "Folder for the two stores (default: a new temporary folder).") var work: String?

    func run() async throws {
        let password = try String(contentsOfFile: passwordFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let folder = URL(fileURLWithPath: work ?? NSTemporaryDirectory())
            .appendingPathComponent("cardbox-sync-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let phone = try await signedIn(folder.appendingPathComponent("phone.sqlite").path, password)
        _ = try phone.setPlan(.premium)
        let deck = try phone.createDeck(name: "Bench", frontLanguage: "es", backLanguage: "en")
        for start in stride(from: 0, to: cards, by: 10_000) {
            let drafts = (start..<min(start + 10_000, cards)).map {
                CardDraft(front: "front \($0)", back: "back \($0)", tags: ["bench"])
            }
            _ = try phone.addCards(to: deck.id, drafts)
        }
        let metrics = try ServerMetricsReading(server: server)
        let beforeUpload = try await metrics.read()
        var memory = SyncMemory()
        let upload = try await memory.measure(\.upload) {
            try await timed { _ = try await DeviceSync(store: phone).sync(progress: progress("upload")) }
        }
        let laptop = try await signedIn(folder.appendingPathComponent("laptop.sqlite").path, password)
        let beforeDownload = try await metrics.read()
        let download = try await memory.measure(\.download) {
            try await timed { _ = try await DeviceSync(store: laptop).sync(progress: progress("download")) }
        }
        let afterDownload = try await metrics.read()
        guard try laptop.cards(in: nil).count == cards else { throw ValidationError("the download lost cards") }
        // A device that comes later, once the server's copy of the account has caught up (the
        // laptop's came right after the upload, while the server may still be applying it).
        // Five of them, a second apart (each a new store): the median, as one first sync varies from
        // run to run on a small machine (Anki's full download is measured the same way).
        var laters: [Double] = []
        var tookSnapshot = true
        for device in 0..<5 {
            try await Task.sleep(for: .seconds(1))
            let tablet = try await signedIn(folder.appendingPathComponent("tablet\(device).sqlite").path, password)
            laters.append(
                try await timed { tookSnapshot = try await DeviceSync(store: tablet).sync().snapshot && tookSnapshot })
            guard try tablet.canonicalDump() == laptop.canonicalDump() else {
                throw ValidationError("a later device does not hold what the first one does")
            }
        }
        let later = median(laters)

        var sends: [Double] = []
        var receives: [Double] = []
        let card = try phone.cards(in: deck.id, limit: 1)[0]
        for run in 0..<runs {
            _ = try phone.editCard(card.id, CardChanges(back: "edited \(run)"))
            sends.append(try await timed { _ = try await DeviceSync(store: phone).sync() })
            receives.append(try await timed { _ = try await DeviceSync(store: laptop).sync() })
        }
        guard try laptop.card(card.id).back == "edited \(runs - 1)" else {
            throw ValidationError("the incremental sync lost the edit")
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let report: [String: Any] = [
            "cards": cards, "firstUploadMs": upload, "firstSyncToEmptyDeviceMs": download,
            "laterFirstSyncMs": later, "laterFirstSyncsMs": laters, "snapshot": tookSnapshot,
            "firstUploadBytes": beforeDownload.requestBytes - beforeUpload.requestBytes,
            "firstSyncToEmptyDeviceBytes": afterDownload.responseBytes - beforeDownload.responseBytes,
            "incrementalSendMs": median(sends), "incrementalReceiveMs": median(receives),
            "clientPeakMB": Double(usage.ru_maxrss) / 1024,
            "uploadPeakMB": memory.upload.peak, "uploadStartMB": memory.upload.start,
            "downloadPeakMB": memory.download.peak, "downloadStartMB": memory.download.start,
        ]
        let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
        print(String(decoding: json, as: UTF8.self))
    }

    /// A new store at `path`, signed in to the account and brought into it.
    private func signedIn(_ path: String, _ password: String) async throws -> CardboxStore {
        // Opened as `cardbox sync` opens it: one connection.
        let store = try CardboxStore.open(path: path, concurrentReads: false)
        let signedIn = try await ServerConnection(server: server, token: nil).signIn(
            user: user, password: password, device: "bench")
        let joined = try store.joinAccount(signedIn.account.id)
        try joined.saveSyncLink(SyncLink(server: server, user: user, token: signedIn.token))
        // As `cardbox login` leaves it: the new store's log folded into its file.
        try joined.checkpoint()
        return joined
    }

    /// Records so far, on the terminal's line (nothing when standard error is not a terminal).
    private func progress(_ label: String) -> (SyncProgress) -> Void {
        { progress in
            guard isatty(STDERR_FILENO) == 1 else { return }
            FileHandle.standardError.write(
                Data("\r\(label): \(progress.phase.rawValue) \(progress.done) records ".utf8))
        }
    }
}

/// The process's resident memory (MB) when a sync began and at its peak during it: the kernel's
/// high-water mark is reset before the sync (`/proc/self/clear_refs`), so what the bench does
/// around it (making the cards, comparing whole stores) does not count. The process holds every
/// device's store, so `start` is what it held already.
struct SyncMemory {
    var upload = (start: 0.0, peak: 0.0)
    var download = (start: 0.0, peak: 0.0)

    mutating func measure<T>(
        _ field: WritableKeyPath<SyncMemory, (start: Double, peak: Double)>, _ body: () async throws -> T
    ) async throws -> T {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let start = Self.status("VmRSS")
        let result = try await body()
        self[keyPath: field] = (start, Self.status("VmHWM"))
        return result
    }

    private static func status(_ key: String) -> Double {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix(key + ":") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
}

func timed(_ body: () async throws -> Void) async throws -> Double {
    let start = ContinuousClock.now
    try await body()
    return milliseconds(ContinuousClock.now - start)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

/// The value below which `fraction` of the values lie (nearest rank).
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((Double(sorted.count) * fraction).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}
