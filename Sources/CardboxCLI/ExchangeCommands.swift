import ArgumentParser
import CardboxCore
import CardboxExchange
import CardboxStore
import Foundation

extension ExportFormat: ExpressibleByArgument {}

/// The formats Cardbox reads (told from the content unless --format says).
typealias ImportFormat = ImportFileFormat

extension ImportFileFormat: ExpressibleByArgument {}
extension DuplicatePolicy: ExpressibleByArgument {}

struct ExportCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export data in a format other apps read.",
        discussion: Help.paragraphs(
            """
            listall: ListAll's JSON format v1.0 (lists, items, images as base64, settings).
            backup: everything in the store, exactly (restore it with 'cardbox import' into a new store).
            csv, tsv: a deck's cards as Anki's notes-in-plain-text (front, back, tags, notes), with
            header lines. Archived cards are left out: the format has no place for that state.

            Examples:
              cardbox export listall -o lists.json
              cardbox export listall --list Groceries
              cardbox export tsv --deck Spanish -o spanish.txt
            """))
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The format: \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: ExportFormat
    @Option(help: "Export only this list (id or name).") var list: String?
    @Option(help: "The deck to export (csv, tsv).") var deck: String?

    func validate() throws {
        if (format == .csv || format == .tsv) && deck == nil { throw ValidationError("name the deck with --deck") }
        if format != .csv && format != .tsv && deck != nil { throw ValidationError("--deck goes with csv or tsv") }
        if format != .listall && list != nil { throw ValidationError("--list goes with listall") }
    }
    @Option(name: [.short, .customLong("output")], help: "Write to this file instead of standard output.")
    var output: String?

    func run(store: CardboxStore) throws {
        let exported = try store.export(
            format, deck: try deck.map { try store.resolve($0) }, list: try list.map { try store.resolve($0) },
            progress: { ProgressBar(label: $0).update })
        let (data, summary) = (exported.data, exported.summary)
        guard let output else {
            Terminal.current.write(data)
            if data.last != UInt8(ascii: "\n") { Terminal.current.write(Data("\n".utf8)) }
            return
        }
        try Console.writeFile(data, to: output)
        Terminal.current.print("\(summary) to \(output)")
    }
}

struct ImportCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import a file: all of it, or nothing if anything in it is wrong.",
        discussion: Help.paragraphs(
            """
            The format is told from the content unless --format is given. Records the store already has
            (the same id; for cards, the same front and type in the deck) are skipped unless
            --on-duplicate says replace or copy. CSV/TSV: Anki's header lines (#separator:, #html:,
            #tags column:, #deck column:) are understood; a plain two-column file needs none. Cards go
            to --deck, or to the deck column's deck (created with --front/--back when missing). A front
            with cloze deletions ({{c1::answer}}) makes one cloze card per number, its back as their extra.
            Trello: a board export becomes a new board; archived lists are left out (and said).
            Backup: restores everything, exactly, into a store that holds no data yet.
            Anki packages (.apkg exported with "Support older Anki versions"): Basic, reversed and cloze
            cards with tags, images and review history (replayed into FSRS state); a front that is only
            an image is named by the image's file; suspended cards come in archived; what cannot come
            over (custom templates, cards with an empty front) is listed in the report.

            Examples:
              cardbox import lists.json
              cardbox import vocabulary.txt --deck Spanish
              cardbox import anki-export.txt --front es --back en --json
            """))
    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The file to import.") var file: String
    @Option(help: "The format: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: ImportFormat?
    @Option(help: "For records the store already has: skip, replace or copy.") var onDuplicate = DuplicatePolicy.skip
    @Option(help: "The deck for imported cards (csv, tsv).") var deck: String?
    @Option(help: "Front language of decks the import creates (ISO 639-1).") var front: String?
    @Option(help: "Back language of decks the import creates (ISO 639-1).") var back = "en"

    func run(store: CardboxStore) throws {
        var options = ImportOptions(
            format: format, onDuplicate: onDuplicate, deck: deck, frontLanguage: front, backLanguage: back)
        options.missingDeck = "no deck: give --deck"
        options.missingLanguage = "give its front language with --front, e.g. --front es,"
        options.unknownFormat = "give --format (\(ImportFileFormat.names))"
        let report = try store.importFile(
            at: file, named: file, options, progress: { ProgressBar(label: $0).update })
        try Console.emit(report, json: output.json, Self.describe)
    }

    static func describe(_ report: ImportReport) -> String {
        report.lines.isEmpty ? "nothing to import" : report.lines.joined(separator: "\n")
    }
}
