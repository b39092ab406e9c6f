import Foundation
import GRDB
import GRDBSQLite

/// An id's two stored forms: the text every reader sees (lowercase 8-4-4-4-12 hex digits) and the
/// 16 bytes a table that keeps ids as bytes stores (`SyncedEntity.keepsIdAsBytes`).
///
/// Text becomes bytes in SQL, through `cardbox_uuid_bytes(text)`, at every insert and lookup of a
/// card. It is registered through SQLite's C API and parses the digits itself: through GRDB's
/// function wrapper and Foundation's `UUID(uuidString:)` (which calls `sscanf`) it was 7.8 % of an
/// `.apkg` import. Fuzz target `storedid` checks it against `UUID.isStoredForm` and Foundation's
/// formatting.
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
        return UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).uuidString.lowercased()
    }

    /// The SQL function's name, as queries built from the registry call it (migrations spell it out).
    static let functionName = "cardbox_uuid_bytes"

    /// Registers `cardbox_uuid_bytes(text)` on a connection: the bytes of a stored id, NULL for
    /// anything else.
    static func addFunction(to db: Database) {
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
