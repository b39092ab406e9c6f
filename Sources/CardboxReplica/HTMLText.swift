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

    /// `text` escaped, each http(s) address in it a link that opens apart (seed 002: an item's
    /// description shows its links clickable). Only addresses that start with http:// or https://
    /// (any case) become links, so nothing typed can make a `javascript:` one. An address runs to a
    /// space, a quote or an angle bracket; a sentence's full stop or closing bracket after it is
    /// not part of it.
    public static func linkified(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var html = ""
        var last = 0
        var index = 0
        while index < scalars.count {
            guard let start = addressStart(scalars, at: index) else {
                index += 1
                continue
            }
            var end = start
            while end < scalars.count, !endsAddress(scalars[end]) { end += 1 }
            guard end > start else {
                index += 1
                continue
            }
            var linkEnd = end
            while linkEnd > index, isTrailingPunctuation(scalars[linkEnd - 1]) { linkEnd -= 1 }
            let link = escape(string(scalars[index..<linkEnd]))
            html += escape(string(scalars[last..<index]))
            html += "<a href=\"" + link + "\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">" + link + "</a>"
            last = linkEnd
            index = end
        }
        return html + escape(string(scalars[last...]))
    }

    /// Where an address's text after `http://` or `https://` starts, when one starts at `index`.
    private static func addressStart(_ scalars: [Unicode.Scalar], at index: Int) -> Int? {
        for scheme in ["http://", "https://"] {
            let prefix = Array(scheme.unicodeScalars)
            guard index + prefix.count <= scalars.count else { continue }
            var matches = true
            for (offset, expected) in prefix.enumerated() {
                var value = scalars[index + offset].value
                if value >= 0x41, value <= 0x5A { value += 0x20 }
                if value != expected.value {
                    matches = false
                    break
                }
            }
            if matches { return index + prefix.count }
        }
        return nil
    }

    /// A space (Unicode's White_Space, as a regular expression's `\s`), a quote or an angle bracket.
    private static func endsAddress(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        case 0x22, 0x27, 0x3C, 0x3E: true
        default: false
        }
    }

    private static func isTrailingPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case ".", ",", ";", ":", "!", "?", ")": true
        default: false
        }
    }

    private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }
}
