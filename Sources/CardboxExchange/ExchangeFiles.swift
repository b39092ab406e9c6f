import CardboxCore
import CardboxStore
import Foundation

/// The formats Cardbox writes.
public enum ExportFormat: String, CaseIterable, Sendable {
    case listall, backup, csv, tsv

    /// The file name a download suggests, and its media type.
    public var fileName: String {
        switch self {
        case .listall: "cardbox-lists.json"
        case .backup: "cardbox-backup.json"
        case .csv: "cardbox-cards.csv"
        case .tsv: "cardbox-cards.txt"
        }
    }

    public var mimeType: String {
        switch self {
        case .listall, .backup: "application/json"
        case .csv: "text/csv; charset=utf-8"
        case .tsv: "text/tab-separated-values; charset=utf-8"
        }
    }
}

/// An export: the file's bytes and what it holds, in words.
public struct ExportedFile: Sendable {
    public var data: Data
    public var summary: String
}

/// How an import reads its file and places what it finds.
public struct ImportOptions: Sendable {
    /// The format; nil tells it from the content.
    public var format: ImportFileFormat?
    public var onDuplicate: DuplicatePolicy
    /// The deck for cards of a CSV/TSV file without a deck column (found by name, or created).
    public var deck: String?
    /// Languages of decks the import creates; without them an import that needs a new deck says so.
    public var frontLanguage: String?
    public var backLanguage: String
    /// What a CSV/TSV row without a deck is refused with: how to name one where the import was asked.
    public var missingDeck = "no deck: name the deck to import into"
    /// How to give the front language of a deck the import would create, where the import was asked.
    public var missingLanguage = "give the front language for new decks"
    /// How to name the format of a file whose format cannot be told, where the import was asked.
    public var unknownFormat = ImportFileFormat.askForFormat

    public init(
        format: ImportFileFormat? = nil, onDuplicate: DuplicatePolicy = .skip, deck: String? = nil,
        frontLanguage: String? = nil, backLanguage: String = "en"
    ) {
        self.format = format
        self.onDuplicate = onDuplicate
        self.deck = deck
        self.frontLanguage = frontLanguage
        self.backLanguage = backLanguage
    }
}

/// Where a long import or export reports how far it is (a terminal's progress bar), by stage.
public typealias ExchangeProgress = @Sendable (_ stage: String) -> ((_ done: Int, _ total: Int) -> Void)?

extension CardboxStore {
    /// Writes `format`: ListAll JSON (all lists, or `list`), a backup of everything, or a deck's
    /// cards as Anki's plain text (CSV/TSV; archived cards are left out, as the format has no place
    /// for them, and the summary says how many).
    public func export(
        _ format: ExportFormat, deck: DeckID? = nil, list: ListID? = nil, now: Date = Date(),
        progress: ExchangeProgress = { _ in nil }
    ) throws -> ExportedFile {
        switch format {
        case .listall:
            let lists = try listsForExport(list)
            return ExportedFile(
                data: try ListAllFormat.export(lists, settings: try settings(), exportDate: now),
                summary: "exported \(Wording.counted(lists.count, "list"))")
        case .backup:
            let whole = try snapshot(progress: progress("tables"))
            return ExportedFile(
                data: try BackupFormat.write(whole, createdAt: now),
                summary: "backed up \(Wording.counted(whole.tables.values.map(\.count).reduce(0, +), "record"))")
        case .csv, .tsv:
            let current = try cards(in: deck)
            let archived = try cards(in: deck, filter: CardFilter(archived: true)).count
            let data = DelimitedFormat.export(
                current, separator: format == .tsv ? "\t" : ",", progress: progress("cards"))
            return ExportedFile(
                data: data,
                summary: "exported \(Wording.counted(current.count, "card"))"
                    + (archived == 0 ? "" : " (\(archived) archived left out)"))
        }
    }

    /// Imports the file at `path` (`name` is what errors call it): all of it, or nothing if anything
    /// in it is wrong. The format is told from the content unless `options` says. An Anki package
    /// is read from disk as it is needed; other formats are read whole.
    public func importFile(
        at path: String, named name: String, _ options: ImportOptions, progress: ExchangeProgress = { _ in nil }
    ) throws -> ImportReport {
        let head = FileHandle(forReadingAtPath: path).map { handle in
            defer { try? handle.close() }
            return handle.readData(ofLength: 8)
        }
        guard let head else { throw CardboxError.invalid(field: name, reason: "cannot read the file") }
        let chosen = options.format ?? (AnkiPackageFormat.matches(head) ? .apkg : nil)
        let data = chosen == .apkg ? head : try InputGuard.read(path)
        let languages = options.frontLanguage.map { ($0, options.backLanguage) }
        switch try chosen ?? ImportFileFormat.detect(data, file: name, howToChoose: options.unknownFormat) {
        case .apkg:
            let package = try AnkiPackageFormat.read(path: path, file: name)
            var report = try importCards(
                package.cards, newDeckLanguages: languages, onDuplicate: options.onDuplicate,
                missingLanguage: options.missingLanguage, progress: progress("cards"))
            report.notImported += package.notImported
            report.fieldMapping = package.fieldMapping
            return report
        case .listall:
            let (lists, settings) = try ListAllFormat.read(data, file: name)
            return try importLists(lists, settings: settings, onDuplicate: options.onDuplicate)
        case .backup:
            return try restore(try BackupFormat.read(data, file: name))
        case .trello:
            let (board, skipped) = try TrelloFormat.read(data, file: name)
            var report = try importBoard(board).report
            report.notImported = skipped
            return report
        case let delimited:
            let separator: Character? = options.format == nil ? nil : (delimited == .tsv ? "\t" : ",")
            let document = try DelimitedFormat.read(data, file: name, separator: separator)
            let cards = try document.rows.flatMap { row in
                guard let deck = row.deck ?? options.deck else {
                    throw CardboxError.invalid(field: "\(name) line \(row.line)", reason: options.missingDeck)
                }
                return try row.drafts(file: name).map {
                    CardImport(
                        deck: deck, draft: $0, source: ImportSource(file: name, unit: "line", number: Int64(row.line)))
                }
            }
            var report = try importCards(
                cards, newDeckLanguages: languages, onDuplicate: options.onDuplicate,
                missingLanguage: options.missingLanguage, progress: progress("cards"))
            report.notImported += document.ignored.map { "header \($0) (not used)" }
            if let names = document.columnNames {
                report.fieldMapping.append(
                    "\(name): its first line (\(names.joined(separator: ", "))) names the columns; it is not a card")
            }
            return report
        }
    }
}

extension ImportReport {
    /// The report in lines a person reads: what was created, replaced and skipped, by kind, then
    /// what could not come over.
    public var lines: [String] {
        func line(_ label: String, _ counts: [String: Int]) -> String? {
            guard !counts.isEmpty else { return nil }
            return "\(label): "
                + counts.sorted { $0.key < $1.key }.map { Wording.counted($0.value, $0.key) }
                .joined(separator: ", ")
        }
        return [line("created", created), line("replaced", replaced), line("skipped", skipped)].compactMap { $0 }
            + fieldMapping.map { "fields of \($0)" } + notImported.map { "not imported: \($0)" }
    }
}
