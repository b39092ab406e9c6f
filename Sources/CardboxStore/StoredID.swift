import Foundation
import GRDB
import GRDBSQLite

/// An id's two stored forms: the text every reader sees (lowercase 8-4-4-4-12 hex digits) and the
/// 16 bytes a table that keeps ids as bytes stores (`SyncedEntity.keepsIdAsBytes`).
///
/// Text becomes bytes in SQL, through `cardbox_uuid_bytes(text)`, at every insert and lookup of a
/// card, and bytes become text through `cardbox_uuid_text(bytes)` wherever a card's id is read.
/// Both are registered through SQLite's C API and do the hex digits themselves: through GRDB's
/// function wrapper and Foundation's `UUID(uuidString:)` (which calls `sscanf`) the first was 7.8 %
/// of an `.apkg` import. Fuzz target `storedid` checks both ways against `UUID.isStoredForm` and
/// Foundation's formatting.
public enum StoredID {
    /// The bytes of an id in its stored form; nil for any other text (upper case included, as a
    /// lookup by `id = ?` on text found no row for it either).
    public static func bytes(_ text: String) -> Data? {
        var text = text
        return text.withUTF8 { utf8 in
            var bytes = [UInt8](repeating: 0, count: 16)
            return bytes.withUnsafeMutableBytes { parse(utf8, into: $0) } ? Data(bytes) : nil
        }
    }

    /// The stored text of 16 bytes; nil for any other length.
    public static func text(_ bytes: Data) -> String? {
        guard bytes.count == 16 else { return nil }
        return String(unsafeUninitializedCapacity: 36) { out in
            bytes.withUnsafeBytes { format($0, into: UnsafeMutableRawBufferPointer(out)) }
            return 36
        }
    }

    /// The SQL function's name, as queries built from the registry call it (migrations spell it out).
    static let functionName = "cardbox_uuid_bytes"

    /// The SQL function reading 16 bytes as a stored id's text: how a card's id is read.
    static let textFunctionName = "cardbox_uuid_text"

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
                        context, out.baseAddress?.assumingMemoryBound(to: CChar.self), 36, StoredID.transient)
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
                    sqlite3_result_blob(context, $0.baseAddress, 16, StoredID.transient)
                }
            }, nil, nil, nil)
    }

    /// SQLite copies the result, so the stack's bytes need not outlive the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Writes the text of 16 bytes (36 characters) into `out`.
    private static func format(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        let digits: StaticString = "0123456789abcdef"
        var offset = 0
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 {
                out[offset] = UInt8(ascii: "-")
                offset += 1
            }
            out[offset] = digits.utf8Start[Int(byte >> 4)]
            out[offset + 1] = digits.utf8Start[Int(byte & 0x0F)]
            offset += 2
        }
    }

    /// Reads a stored id's 36 characters into `out`'s first 16 bytes; false for any other text.
    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard utf8.count == 36, out.count >= 16 else { return false }
        var offset = 0
        var written = 0
        while offset < 36 {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard utf8[offset] == UInt8(ascii: "-") else { return false }
                offset += 1
                continue
            }
            guard let high = digit(utf8[offset]), let low = digit(utf8[offset + 1]) else { return false }
            out[written] = high << 4 | low
            written += 1
            offset += 2
        }
        return true
    }

    private static func digit(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
