import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// Checks a backup's row against the schema before it is inserted: every column known, every value of
/// the column's declared type, every id a well-formed id. SQLite would store text in an INTEGER column
/// and a restored store would then fail on its first read; a restore refuses the file instead, naming
/// the table, the row and the column.
enum ColumnCheck {
    struct Column {
        enum Kind { case integer, real, text, blob }
        let kind: Kind
        let isNotNull: Bool
        /// Ids and references to ids (`id`, `deckId`, …) hold the stored form of a UUID.
        let isIdentifier: Bool
        /// The row's own id where the table keeps it as bytes: required, and in the exact form its
        /// bytes read back as (lowercase), or the insert would find no bytes for it.
        var isIdKeptAsBytes = false
    }

    /// The columns a backup's rows of `table` carry: the table's, with key references as the ids
    /// they name (as `snapshot` writes them), an id kept as bytes as its text, and without the
    /// table's own key.
    static func columns(of table: String, in db: Database) throws -> [String: Column] {
        var columns: [String: Column] = [:]
        let entity = Entity(rawValue: table)
        let storedOnly = entity.map(CardboxStore.storedOnlyColumns) ?? []
        if entity?.keepsIdAsBytes == true {
            columns["id"] = Column(kind: .text, isNotNull: true, isIdentifier: true, isIdKeptAsBytes: true)
        }
        for column in entity?.columns ?? [] where entity?.keyReferences[column.name] != nil {
            columns[column.name] = Column(kind: .text, isNotNull: !column.isOptional, isIdentifier: true)
        }
        for info in try db.columns(in: table) where !storedOnly.contains(info.name) {
            let declared = info.type.uppercased()
            let kind: Column.Kind =
                declared.contains("INT")
                ? .integer
                : declared.contains("REAL") ? .real : declared.contains("BLOB") ? .blob : .text
            let isIdentifier =
                kind == .text && (info.name == "id" || info.name.hasSuffix("Id")) && !(table == "usageEvent")
            columns[info.name] = Column(kind: kind, isNotNull: info.isNotNull, isIdentifier: isIdentifier)
        }
        return columns
    }

    static func check(_ row: [String: JSONValue], table: String, index: Int, columns: [String: Column]) throws {
        func fail(_ column: String, _ reason: String) -> CardboxError {
            .invalid(field: "backup \(table)[\(index)].\(column)", reason: reason)
        }
        let names = row.keys.sorted().filter { $0 != "accountId" }
        if let unknown = names.first(where: { columns[$0] == nil }) {
            throw CardboxError.invalid(field: "backup \(table)", reason: "has an unknown column '\(unknown)'")
        }
        if let missing = columns.first(where: { $0.value.isIdKeptAsBytes && row[$0.key] == nil }) {
            throw fail(missing.key, "is missing")
        }
        for name in names {
            guard let column = columns[name], let value = row[name] else { continue }
            switch (column.kind, value) {
            case (_, .null):
                if column.isNotNull && !(table == "usageEvent" && name == "id") { throw fail(name, "must not be null") }
            case (.integer, .int), (.real, .int), (.real, .double), (.integer, .bool): break
            case (.text, .string(let text)):
                if column.isIdKeptAsBytes && !UUID.isStoredForm(text) {
                    throw fail(name, "'\(text.prefix(60))' is not an id (8-4-4-4-12 lowercase hex digits)")
                }
                if column.isIdentifier && UUID(storedText: text) == nil {
                    throw fail(name, "'\(text.prefix(60))' is not an id (8-4-4-4-12 hex digits)")
                }
            case (.blob, .object(let object)):
                guard case .string(let base64)? = object["base64"], Data(base64Encoded: base64) != nil else {
                    throw fail(name, "must be {\"base64\": \"…\"}")
                }
            case (.integer, _): throw fail(name, "must be a whole number")
            case (.real, _): throw fail(name, "must be a number")
            case (.text, _): throw fail(name, "must be text")
            case (.blob, _): throw fail(name, "must be {\"base64\": \"…\"}")
            }
        }
    }
}
