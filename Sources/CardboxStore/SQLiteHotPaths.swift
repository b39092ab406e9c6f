import Foundation
import GRDB
import GRDBSQLite

// The store's calls to SQLite's C API, all of them. GRDB does everything else; each path here
// bypasses it where a benchmark row showed GRDB's general-purpose layer costing more than the work:
//
// - `FastStatement` binds an insert's values itself: half the cost per row of GRDB's argument
//   binding (docs/performance.md § Imports: "insert 10,000 cards in one batch" and the CSV import,
//   `bash scripts/bench.sh`, `python3 scripts/import_bench.py`).
// - `Statement.forEachRow` and `SteppedRow` step a read themselves: GRDB's `Row` builds a
//   dictionary of column names per row, which cost the study loop more than its reads (§ Study
//   answers: "answer 1,000 cards, the due queue before each", `bash scripts/bench.sh`).
// - `StoredID.addFunctions` registers the id functions without GRDB's function wrapper: through it
//   and Foundation's UUID parsing, `cardbox_uuid_bytes` was 7.8 % of an `.apkg` import (§ Imports:
//   "10,000-note `.apkg`", `python3 scripts/import_bench.py`).

/// A prepared INSERT whose values are bound straight through SQLite's C API: the store's hot path
/// for batches (history rows, batch inserts). Values that stay the same for every row (`leading`)
/// are bound once. Only for statements that return no rows, run inside a GRDB write transaction.
final class FastStatement {
    private let statement: Statement
    private let handle: OpaquePointer
    private let database: Database
    private let firstFreeIndex: Int32

    init(_ db: Database, _ sql: String, leading: [DatabaseValue]) throws {
        database = db
        // Cached by the connection: a transaction that inserts one row (an answer's review-log
        // entry) does not prepare its statement again. One FastStatement per SQL text at a time.
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        firstFreeIndex = Int32(leading.count + 1)
        for (index, value) in leading.enumerated() { try bind(value, at: Int32(index + 1)) }
    }

    func execute(_ values: DatabaseValue...) throws { try execute(values) }

    func execute(first: DatabaseValue, _ values: some Collection<DatabaseValue>) throws {
        try bind(first, at: firstFreeIndex)
        for (offset, value) in values.enumerated() { try bind(value, at: firstFreeIndex + 1 + Int32(offset)) }
        try step()
    }

    func execute(_ values: some Collection<DatabaseValue>) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: firstFreeIndex + Int32(offset)) }
        try step()
    }

    private func step() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(database.sqliteConnection)),
                sql: statement.sql)
        }
    }

    private func bind(_ value: DatabaseValue, at index: Int32) throws {
        let code: Int32
        switch value.storage {
        case .null: code = sqlite3_bind_null(handle, index)
        case .int64(let number): code = sqlite3_bind_int64(handle, index, number)
        case .double(let number): code = sqlite3_bind_double(handle, index, number)
        case .string(var text):
            code =
                text.utf8.withContiguousStorageIfAvailable { bytes in
                    sqlite3_bind_text(
                        handle, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
                        Int32(bytes.count), transient)
                }
                ?? {
                    text.makeContiguousUTF8()
                    return text.withCString { sqlite3_bind_text(handle, index, $0, -1, transient) }
                }()
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
            }
        }
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind value \(index)")
        }
    }
}

/// What a record whose columns come in a fixed order (`RecordRow`: a card, a deck) is read from, by
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

extension StoredID {
    /// Registers `cardbox_uuid_bytes(text)` (the bytes of a stored id, NULL for anything else) and
    /// `cardbox_uuid_text(bytes)` (the text of 16 bytes, NULL for anything else) on a connection.
    static func addFunctions(to db: Database) {
        addBytesFunction(to: db)
        sqlite3_create_function_v2(
            db.sqliteConnection, textFunctionName, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, arguments in
                guard let argument = arguments?[0], sqlite3_value_type(argument) == SQLITE_BLOB,
                    sqlite3_value_bytes(argument) == 16, let blob = sqlite3_value_blob(argument)
                else { return sqlite3_result_null(context) }
                var text: (UInt64, UInt64, UInt64, UInt64, UInt32) = (0, 0, 0, 0, 0)
                withUnsafeMutableBytes(of: &text) { out in
                    StoredID.format(UnsafeRawBufferPointer(start: blob, count: 16), into: out)
                    sqlite3_result_text(
                        context, out.baseAddress?.assumingMemoryBound(to: CChar.self), 36, transient)
                }
            }, nil, nil, nil)
    }

    private static func addBytesFunction(to db: Database) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(
            db.sqliteConnection, functionName, 1, flags, nil,
            { context, _, arguments in
                guard let argument = arguments?[0], sqlite3_value_type(argument) == SQLITE_TEXT,
                    let text = sqlite3_value_text(argument)
                else { return sqlite3_result_null(context) }
                let utf8 = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(argument)))
                var bytes: (UInt64, UInt64) = (0, 0)
                guard withUnsafeMutableBytes(of: &bytes, { StoredID.parse(utf8, into: $0) }) else {
                    return sqlite3_result_null(context)
                }
                withUnsafeBytes(of: &bytes) {
                    sqlite3_result_blob(context, $0.baseAddress, 16, transient)
                }
            }, nil, nil, nil)
    }
}

/// SQLite copies bound values and results given with it, so Swift's buffers need not outlive the call.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
