import Foundation

/// An id's two stored forms: the text every reader sees (lowercase 8-4-4-4-12 hex digits) and the
/// 16 bytes a table that keeps ids as bytes stores (`SyncedEntity.keepsIdAsBytes`).
///
/// Text becomes bytes in SQL, through `cardbox_uuid_bytes(text)`, at every insert and lookup of a
/// card, and bytes become text through `cardbox_uuid_text(bytes)` wherever a card's id is read.
/// Both do the hex digits themselves and are registered through SQLite's C API
/// (`SQLiteHotPaths.swift`). Fuzz target `storedid` checks both ways against `UUID.isStoredForm`
/// and Foundation's formatting.
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

    /// Writes the text of 16 bytes (36 characters) into `out`.
    static func format(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
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
    static func parse(_ utf8: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Bool {
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
