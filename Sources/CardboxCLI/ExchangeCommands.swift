import ArgumentParser
import CardboxCore
import CardboxExchange
import CardboxStore
import Foundation

/// The formats Cardbox writes.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case listall
}

/// The formats Cardbox reads.
enum ImportFormat: String, ExpressibleByArgument, CaseIterable {
    case listall

    /// The format of a file, told from its content.
    static func detect(_ data: Data, file: String) throws -> ImportFormat {
        if ListAllFormat.matches(data) { return .listall }
        throw CardboxError.invalid(
            field: file,
            reason: "cannot tell its format; give --format (\(allCases.map(\.rawValue).joined(separator: ", ")))")
    }
}

extension DuplicatePolicy: ExpressibleByArgument {}

struct ExportCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export data in a format other apps read.",
        discussion: """
            listall: ListAll's JSON format v1.0 (lists, items, images as base64, settings).

            Examples:
              cardbox export listall -o lists.json
              cardbox export listall --list Groceries
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The format: \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: ExportFormat
    @Option(help: "Export only this list (id or name).") var list: String?
    @Option(name: [.short, .customLong("output")], help: "Write to this file instead of standard output.")
    var output: String?

    func run(store: CardboxStore) throws {
        let data: Data
        let summary: String
        switch format {
        case .listall:
            let lists = try store.listsForExport(list)
            data = try ListAllFormat.export(lists, settings: try store.settings(), exportDate: Date())
            summary = "exported \(lists.count) list\(lists.count == 1 ? "" : "s")"
        }
        guard let output else {
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
            return
        }
        do {
            try data.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CardboxError.invalid(
                field: "output", reason: "cannot write '\(output)': \(error.localizedDescription)")
        }
        print("\(summary) to \(output)")
    }
}

struct ImportCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import a file: all of it, or nothing if anything in it is wrong.",
        discussion: """
            The format is told from the content unless --format is given. Records whose ids the store
            already has are skipped unless --on-duplicate says replace or copy (new ids).

            Examples:
              cardbox import lists.json
              cardbox import lists.json --on-duplicate copy --json
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The file to import.") var file: String
    @Option(help: "The format: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: ImportFormat?
    @Option(help: "For ids the store already has: skip, replace or copy.") var onDuplicate = DuplicatePolicy.skip

    func run(store: CardboxStore) throws {
        let data = try InputGuard.read(file)
        let report: ImportReport
        switch try format ?? ImportFormat.detect(data, file: file) {
        case .listall:
            let (lists, settings) = try ListAllFormat.read(data, file: file)
            report = try store.importLists(lists, settings: settings, onDuplicate: onDuplicate)
        }
        try Console.emit(report, json: output.json, Self.describe)
    }

    static func describe(_ report: ImportReport) -> String {
        func line(_ label: String, _ counts: [String: Int]) -> String? {
            guard !counts.isEmpty else { return nil }
            return "\(label): "
                + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)\($0.value == 1 ? "" : "s")" }
                .joined(separator: ", ")
        }
        let lines =
            [
                line("created", report.created), line("replaced", report.replaced), line("skipped", report.skipped),
            ].compactMap { $0 } + report.notImported.map { "not imported: \($0)" }
        return lines.isEmpty ? "nothing to import" : lines.joined(separator: "\n")
    }
}
