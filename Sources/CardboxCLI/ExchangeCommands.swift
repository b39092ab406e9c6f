import ArgumentParser
import CardboxCore
import CardboxExchange
import CardboxStore
import Foundation

/// The formats Cardbox writes.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case listall, backup, csv, tsv
}

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
        let data: Data
        let summary: String
        switch format {
        case .listall:
            let lists = try store.listsForExport(try list.map { try store.resolve($0) })
            data = try ListAllFormat.export(lists, settings: try store.settings(), exportDate: Date())
            summary = "exported \(lists.count) list\(lists.count == 1 ? "" : "s")"
        case .backup:
            let snapshot = try store.snapshot(progress: ProgressBar(label: "tables").update)
            data = try BackupFormat.write(snapshot, createdAt: Date())
            summary = "backed up \(snapshot.tables.values.map(\.count).reduce(0, +)) records"
        case .csv, .tsv:
            // Anki's text format has no archived state: archived cards are left out, and the summary says so.
            let cards = try store.cards(in: try deck.map { try store.resolve($0) })
            let archived = try store.cards(
                in: try deck.map { try store.resolve($0) }, filter: CardFilter(archived: true)
            ).count
            data = DelimitedFormat.export(
                cards, separator: format == .tsv ? "\t" : ",", progress: ProgressBar(label: "cards").update)
            summary =
                "exported \(cards.count) card\(cards.count == 1 ? "" : "s")"
                + (archived == 0 ? "" : " (\(archived) archived left out)")
        }
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
            to --deck, or to the deck column's deck (created with --front/--back when missing).
            Trello: a board export becomes a new board; archived lists are left out (and said).
            Backup: restores everything, exactly, into a store that holds no data yet.
            Anki packages (.apkg exported with "Support older Anki versions"): Basic and reversed cards
            with tags, images and review history (replayed into FSRS state); suspended cards come in
            archived; what cannot come over (cloze, custom templates) is listed in the report.

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
        // A zip (an Anki package) is read from disk as it is needed; other formats are read whole.
        let head = FileHandle(forReadingAtPath: file).map { handle in
            defer { try? handle.close() }
            return handle.readData(ofLength: 8)
        }
        guard let head else { throw CardboxError.invalid(field: file, reason: "cannot read the file") }
        let chosen = format ?? (AnkiPackageFormat.matches(head) ? .apkg : nil)
        let data = chosen == .apkg ? head : try InputGuard.read(file)
        let report: ImportReport
        switch try chosen ?? ImportFormat.detect(data, file: file) {
        case .apkg:
            let package = try AnkiPackageFormat.read(path: file, file: file)
            var cardReport = try store.importCards(
                package.cards, newDeckLanguages: front.map { ($0, back) }, onDuplicate: onDuplicate,
                progress: ProgressBar(label: "cards").update)
            cardReport.notImported += package.notImported
            cardReport.fieldMapping = package.fieldMapping
            report = cardReport
        case .listall:
            let (lists, settings) = try ListAllFormat.read(data, file: file)
            report = try store.importLists(lists, settings: settings, onDuplicate: onDuplicate)
        case .backup:
            report = try store.restore(try BackupFormat.read(data, file: file))
        case .trello:
            let (board, skipped) = try TrelloFormat.read(data, file: file)
            var boardReport = try store.importBoard(board).report
            boardReport.notImported = skipped
            report = boardReport
        case let delimited:
            let separator: Character? = format == nil ? nil : (delimited == .tsv ? "\t" : ",")
            let document = try DelimitedFormat.read(data, file: file, separator: separator)
            let cards = try document.rows.map { row in
                guard let deck = row.deck ?? deck else {
                    throw CardboxError.invalid(field: "\(file) line \(row.line)", reason: "no deck: give --deck")
                }
                return CardImport(
                    deck: deck, draft: CardDraft(front: row.front, back: row.back, notes: row.notes, tags: row.tags),
                    source: "\(file) line \(row.line)")
            }
            var cardReport = try store.importCards(
                cards, newDeckLanguages: front.map { ($0, back) }, onDuplicate: onDuplicate,
                progress: ProgressBar(label: "cards").update)
            cardReport.notImported += document.ignored.map { "header \($0) (not used)" }
            report = cardReport
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
            ].compactMap { $0 } + report.fieldMapping.map { "fields of \($0)" }
            + report.notImported.map { "not imported: \($0)" }
        return lines.isEmpty ? "nothing to import" : lines.joined(separator: "\n")
    }
}
