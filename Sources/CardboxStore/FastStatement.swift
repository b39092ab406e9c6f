import Foundation
import GRDB
import GRDBSQLite

/// A prepared INSERT whose values are bound straight through SQLite's C API: the store's hot path
/// for batches (history rows, batch inserts). Values that stay the same for every row (`leading`)
/// are bound once. Only for statements that return no rows, run inside a GRDB write transaction.
final class FastStatement {
    private let statement: Statement
    private let handle: OpaquePointer
    private let database: Database
    private let firstFreeIndex: Int32

    /// SQLite copies bound text and blobs, so Swift's buffers need not outlive the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

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

    func execute(first: DatabaseValue, _ values: [DatabaseValue]) throws {
        try bind(first, at: firstFreeIndex)
        for (offset, value) in values.enumerated() { try bind(value, at: firstFreeIndex + 1 + Int32(offset)) }
        try step()
    }

    func execute(_ values: [DatabaseValue]) throws {
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
                        Int32(bytes.count), Self.transient)
                }
                ?? {
                    text.makeContiguousUTF8()
                    return text.withCString { sqlite3_bind_text(handle, index, $0, -1, Self.transient) }
                }()
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), Self.transient)
            }
        }
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind value \(index)")
        }
    }
}
