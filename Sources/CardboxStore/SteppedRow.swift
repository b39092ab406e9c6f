import GRDB
import GRDBSQLite

/// What a record whose columns come in a fixed order (`CardColumn`, `DeckColumn`) is read from, by
/// position: a GRDB `Row`, or the row a statement is stepped to (`SteppedRow`).
protocol PositionalRow {
    subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value { get }
}

extension Row: PositionalRow {}

/// The row a statement is stepped to, read by position straight from SQLite. Fetching through
/// GRDB's `Row` makes a dictionary of every column's lowercased name at each fetch (for lookups by
/// name), which cost the study loop more than reading the values did: the hot reads of cards and
/// decks step their statements themselves (`Statement.forEachRow`) and read through this. Valid
/// only inside the call that gives it.
struct SteppedRow: PositionalRow {
    fileprivate let handle: OpaquePointer

    /// Like `Row`'s subscript: `NULL` reads as nil when `Value` is optional; a value that is not a
    /// `Value` is a programming error (the column's type is the schema's).
    subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        let value = DatabaseValue(sqliteStatement: handle, index: CInt(index))
        guard let converted = Value.fromDatabaseValue(value) else {
            preconditionFailure("column \(index) holds \(value), which is not a \(Value.self)")
        }
        return converted
    }
}

extension Statement {
    /// Runs the statement with `arguments`, calling `body` with each row it gives, in order. For
    /// reads inside the store's transactions only: it steps SQLite itself, so GRDB's bookkeeping
    /// around a statement is skipped (the read is not seen by database observation, and an error
    /// names the SQL but not its arguments).
    func forEachRow(_ arguments: StatementArguments, _ body: (SteppedRow) throws -> Void) throws {
        try setArguments(arguments)
        let handle = sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))), sql: sql)
            }
            try body(SteppedRow(handle: handle))
        }
    }

    /// The rows the statement gives, each read by `record`.
    func records<Record>(_ arguments: StatementArguments, _ record: (SteppedRow) throws -> Record) throws -> [Record] {
        var records: [Record] = []
        try forEachRow(arguments) { records.append(try record($0)) }
        return records
    }
}
