/// Writes compact JSON into a byte buffer. Hand-written because the store writes a JSON document for
/// every row a transaction changes, where building Swift strings scalar by scalar dominated the cost
/// of a batch insert.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    public mutating func byte(_ value: UInt8) { bytes.append(value) }

    public mutating func append(_ encoded: [UInt8]) { bytes.append(contentsOf: encoded) }

    public mutating func integer(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func double(_ value: Double) {
        if value.isFinite { bytes.append(contentsOf: "\(value)".utf8) } else { raw("null") }
    }

    /// A JSON string: quotes, and escapes for quote, backslash and control characters.
    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var utf8 = value.utf8
        let fast: Bool? = utf8.withContiguousStorageIfAvailable { buffer in
            guard !buffer.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        if fast != true {
            if fast == nil {
                var copy = value
                copy.makeContiguousUTF8()
                utf8 = copy.utf8
            }
            for byte in utf8 { escape(byte) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case UInt8(ascii: "\n"): raw("\\n")
        case UInt8(ascii: "\r"): raw("\\r")
        case UInt8(ascii: "\t"): raw("\\t")
        case 0..<0x20:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            raw("\\u00")
            bytes.append(hex[Int(byte >> 4)])
            bytes.append(hex[Int(byte & 0xF)])
        default: bytes.append(byte)
        }
    }
}
