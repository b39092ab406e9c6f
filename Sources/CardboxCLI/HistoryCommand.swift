import ArgumentParser
import CardboxCore
import CardboxStore
import Foundation

struct HistoryCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Recent changes: when, on which device, which records and fields.",
        discussion: Help.paragraphs(
            """
            One entry per operation, newest first: changes made on this device and changes applied
            from other devices. Large operations (an import) show their first rows and how many rows
            of each kind they changed.

            Examples:
              cardbox history
              cardbox history --limit 5 --json
            """))
    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "How many entries to show (1 to 1000).") var limit = 20

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000, got \(limit)") }
    }

    func run(store: CardboxStore) throws {
        try Console.emit(try store.history(limit: limit), json: output.json, Self.describe)
    }

    static func describe(_ entries: [HistoryEntry]) -> String {
        guard !entries.isEmpty else { return "no changes yet" }
        return entries.map { entry in
            let device = entry.isThisDevice ? "this device" : "device \(entry.replicaId.suffix(8))"
            var lines = ["\(Console.date(entry.at))  \(device)  \(Wording.counted(entry.total, "change"))"]
            for change in entry.changes {
                let fields = change.fields.isEmpty ? "" : " " + change.fields.joined(separator: ", ")
                lines.append("  \(change.operation) \(change.entity) \(change.id.suffix(8))\(fields)")
            }
            let shown = entry.changes.count
            if entry.total > shown {
                let counts = entry.counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                lines.append("  … \(entry.total - shown) more (in all: \(counts.joined(separator: ", ")))")
            }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
