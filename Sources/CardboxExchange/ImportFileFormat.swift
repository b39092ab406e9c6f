import CardboxCore
import Foundation

/// The formats Cardbox imports, and how a file's format is told from its content.
public enum ImportFileFormat: String, CaseIterable, Sendable {
    case listall, backup, csv, tsv, trello, apkg

    /// The format of a file, told from its content. A file that looks like JSON is one of the JSON
    /// formats or is refused (invalid JSON with its line and column, or JSON of no known shape): it
    /// never falls back to being read as CSV.
    /// `howToChoose` ends the refusal of a file whose format cannot be told: how to name one where the
    /// import was asked (a flag, a menu).
    public static func detect(
        _ data: Data, file: String, howToChoose: String = askForFormat
    ) throws -> ImportFileFormat {
        if AnkiPackageFormat.matches(data) { return .apkg }
        if InputGuard.looksLikeJSON(data) {
            let keys = try InputGuard.topLevelKeys(data, file: file)
            if keys.contains("format") && BackupFormat.matches(data) { return .backup }
            if ListAllFormat.matches(data) { return .listall }
            if TrelloFormat.matches(data) { return .trello }
            guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
                throw InputGuard.syntaxError(data, file: file)
            }
            throw CardboxError.invalid(
                field: file,
                reason: "is JSON, but not a ListAll export (version, lists), a Trello board export (name, lists, "
                    + "cards) or a Cardbox backup")
        }
        if DelimitedFormat.matches(data) { return .csv }  // the separator is read from the file itself
        throw CardboxError.invalid(field: file, reason: "cannot tell its format; \(howToChoose)")
    }

    /// The formats by name, as a flag takes them: "listall, backup, csv, tsv, trello, apkg".
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// How a refusal asks for the format where nothing says how to give one.
    public static let askForFormat = "give its format (\(names))"
}
