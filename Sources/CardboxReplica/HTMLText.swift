/// Text made safe to place in HTML, between tags or inside a quoted attribute.
public enum HTMLText {
    /// Text escaped for HTML (`&`, `<`, `>`, `"` and `'`): what the templates do for `{{…}}`, over
    /// UTF-8 bytes, and with no copy for text that has none of them (most card fronts and backs).
    public static func escape(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { escapes($0) != nil }) else { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(utf8.count + 16)
        for byte in utf8 {
            if let entity = escapes(byte) {
                entity.withUTF8Buffer { escaped.append(contentsOf: $0) }
            } else {
                escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// The entity for a byte HTML gives a meaning to. These are all ASCII, so they never occur
    /// inside a multi-byte character: escaping byte by byte keeps the text valid UTF-8.
    @inline(__always)
    private static func escapes(_ byte: UInt8) -> StaticString? {
        switch byte {
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "\""): "&quot;"
        case UInt8(ascii: "'"): "&#39;"
        default: nil
        }
    }

}
