/// Reads JSON text (RFC 8259) straight into `JSONValue`.
///
/// Kept for speed: going through `JSONDecoder` cost a first sync of 10,000 cards 3.6 s of parsing,
/// because a value of unknown type can only be found by trying each type in turn, and every
/// failed try builds an error. This reads each byte once (`cardbox-bench --only apply` shows the
/// figure; the `json` fuzz target checks it against Foundation's parser).
///
/// It reads what `JSONDecoder` read, alike: any value at the top, at most 512 levels deep; a number
/// that is a whole number within Int64 (`2`, `2.0`, `1e3`) is an integer, any other finite number a
/// double; of repeated keys the first counts. It is stricter in one way: no trailing commas (RFC 8259).
public struct JSONParser {
    public static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The value the text holds; a `JSONParser.Failure` naming the byte offset when it is not JSON.
    public static func parse(_ text: String) throws(Failure) -> JSONValue {
        var text = text
        // `withUTF8` rethrows untyped errors, which Embedded Swift (the browser's build) has not.
        let result = text.withUTF8 { buffer -> Result<JSONValue, Failure> in
            var parser = JSONParser(buffer)
            return Result { () throws(Failure) -> JSONValue in
                parser.skipWhitespace()
                let value = try parser.value()
                parser.skipWhitespace()
                guard parser.offset == buffer.count else { throw parser.failure("text after the value") }
                return value
            }
        }
        return try result.get()
    }

    public struct Failure: Error, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "\(reason) at byte \(offset)" }
    }

    private func failure(_ reason: String) -> Failure { Failure(offset: offset, reason: reason) }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func value() throws(Failure) -> JSONValue {
        guard let byte = current else { throw failure("a value is missing") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count,
            (0..<count).allSatisfy({ bytes[offset + $0] == word.utf8Start[$0] })
        else { throw failure("unexpected character") }
        offset += count
        return value
    }

    /// A member's name and the `:` after it, positioned at its value.
    private mutating func memberName() throws(Failure) -> String {
        guard current == UInt8(ascii: "\"") else { throw failure("a member name is missing") }
        let key = try string()
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { throw failure("':' is missing") }
        offset += 1
        skipWhitespace()
        return key
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
        offset += 1
    }

    private mutating func object() throws(Failure) -> JSONValue {
        try enter()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return .object(members)
        }
        while true {
            let key = try memberName()
            let member = try value()
            if members[key] == nil { members[key] = member }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                offset += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                offset += 1
                depth -= 1
                return .object(members)
            default: throw failure("',' or '}' is missing")
            }
        }
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try enter()
        var values: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return .array(values)
        }
        while true {
            values.append(try value())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                offset += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                offset += 1
                depth -= 1
                return .array(values)
            default: throw failure("',' or ']' is missing")
            }
        }
    }

    /// A string; the common case (no escapes) is copied in one piece.
    private mutating func string() throws(Failure) -> String {
        offset += 1
        let start = offset
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                offset += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw failure("a control character in a string") }
            offset += 1
        }
        throw failure("a string is not closed")
    }

    private mutating func escapedString(from start: Int) throws(Failure) -> String {
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<offset]))
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escape = current else { throw failure("a string is not closed") }
                offset += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8.append(contentsOf: try unicodeEscape())
                default: throw failure("an unknown escape")
                }
            default:
                guard byte >= 0x20 else { throw failure("a control character in a string") }
                utf8.append(byte)
            }
        }
        throw failure("a string is not closed")
    }

    /// `\uXXXX`, or a surrogate pair of two; a lone surrogate is refused.
    private mutating func unicodeEscape() throws(Failure) -> String.UTF8View {
        let first = try hexQuad()
        var scalar: Unicode.Scalar?
        switch first {
        case 0xD800...0xDBFF:
            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else { throw failure("a lone surrogate") }
            offset += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second) else { throw failure("a lone surrogate") }
            scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        case 0xDC00...0xDFFF:
            throw failure("a lone surrogate")
        default:
            scalar = Unicode.Scalar(first)
        }
        guard let scalar else { throw failure("an invalid \\u escape") }
        return String(Character(scalar)).utf8
    }

    private mutating func hexQuad() throws(Failure) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw failure("a short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() throws(Failure) -> JSONValue {
        let start = offset
        if current == UInt8(ascii: "-") { offset += 1 }
        guard let first = current, isDigit(first) else { throw failure("a number needs digits") }
        offset += 1
        if first == UInt8(ascii: "0"), let next = current, isDigit(next) {
            throw failure("a number must not start with 0")
        }
        skipDigits()
        var isInteger = true
        if current == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard let digit = current, isDigit(digit) else { throw failure("a fraction needs digits") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard let digit = current, isDigit(digit) else { throw failure("an exponent needs digits") }
            skipDigits()
        }
        // Up to 18 digits cannot overflow Int64: read them in place (clocks and times are most of
        // a change set's numbers, and a string for each cost a big account's load).
        let negative = bytes[start] == UInt8(ascii: "-")
        let digits = (negative ? start + 1 : start)..<offset
        if isInteger, digits.count <= 18 {
            var magnitude: Int64 = 0
            for index in digits { magnitude = magnitude * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
            return .int(negative ? -magnitude : magnitude)
        }
        let token = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        if isInteger, let integer = Int64(token) { return .int(integer) }
        guard let double = Double(token), double.isFinite else { throw failure("a number out of range") }
        // Written with a fraction or an exponent, a whole number is still an integer.
        if !isInteger, let integer = Int64(exactly: double) { return .int(integer) }
        return .double(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { offset += 1 }
    }
}

// MARK: Reading step by step

/// For a reader that knows the form it expects (`WireChanges.read(text:schema:)`): containers are
/// read member by member (`readObject`, `readArray`, `readPair`), and only the values it keeps
/// become `JSONValue`s. Each step
/// reads as `parse` would, nesting depth included, and throws where `parse` would fail or where the
/// text is not in the form the caller asked for.
extension JSONParser {
    /// What `read` answers for `text`; nil when `read` or the text's end fails.
    static func reading<Result>(_ text: String, _ read: (inout JSONParser) throws(Failure) -> Result) -> Result? {
        var text = text
        return text.withUTF8 { buffer -> Result? in
            var parser = JSONParser(buffer)
            do throws(Failure) {
                parser.skipWhitespace()
                let result = try read(&parser)
                parser.skipWhitespace()
                return parser.offset == buffer.count ? result : nil
            } catch {
                return nil
            }
        }
    }

    /// Enters an object: then `nextKey` gives each member's name, the member's value read next.
    private mutating func enterObject() throws(Failure) {
        guard current == UInt8(ascii: "{") else { throw failure("not an object") }
        try enter()
        skipWhitespace()
    }

    /// The next member's name, positioned at its value; nil at the object's end (left).
    private mutating func nextKey(first: Bool) throws(Failure) -> String? {
        guard try follows(first: first, closing: UInt8(ascii: "}"), "',' or '}' is missing") else { return nil }
        return try memberName()
    }

    /// Reads the members of an object, from its `{`: `member` reads each one's value, given its name.
    mutating func readObject(_ member: (String, inout JSONParser) throws(Failure) -> Void) throws(Failure) {
        try enterObject()
        var first = true
        while let key = try nextKey(first: first) {
            first = false
            try member(key, &self)
        }
    }

    /// Enters an array: then `nextElement` says whether an element follows, positioned at it.
    private mutating func enterArray() throws(Failure) {
        guard current == UInt8(ascii: "[") else { throw failure("not an array") }
        try enter()
        skipWhitespace()
    }

    /// Whether another element follows (positioned at it); false at the array's end (left).
    private mutating func nextElement(first: Bool) throws(Failure) -> Bool {
        try follows(first: first, closing: UInt8(ascii: "]"), "',' or ']' is missing")
    }

    /// A two-element array (`[value, clock]`, `[timestamp, replica]`), each read by its own reader.
    mutating func readPair<First, Second>(
        _ first: (inout JSONParser) throws(Failure) -> First, _ second: (inout JSONParser) throws(Failure) -> Second
    ) throws(Failure) -> (First, Second) {
        try enterArray()
        guard try nextElement(first: true) else { throw failure("a pair is missing its first value") }
        let one = try first(&self)
        guard try nextElement(first: false) else { throw failure("a pair is missing its second value") }
        let two = try second(&self)
        guard try !nextElement(first: false) else { throw failure("a pair has more than two values") }
        return (one, two)
    }

    /// An array whose elements `element` reads, from its `[`.
    mutating func readArray<Element>(_ element: (inout JSONParser) throws(Failure) -> Element) throws(Failure)
        -> [Element]
    {
        var elements: [Element] = []
        try enterArray()
        var first = true
        while try nextElement(first: first) {
            first = false
            elements.append(try element(&self))
        }
        return elements
    }

    /// Whether something follows in the container `closing` ends: past the `,` before it (none
    /// before the first), or false past the container's end.
    private mutating func follows(first: Bool, closing: UInt8, _ missing: String) throws(Failure) -> Bool {
        if current == closing {
            offset += 1
            depth -= 1
            skipWhitespace()
            return false
        }
        if !first {
            guard current == UInt8(ascii: ",") else { throw failure(missing) }
            offset += 1
            skipWhitespace()
        }
        return true
    }

    /// The value here, whole.
    mutating func readValue() throws(Failure) -> JSONValue {
        let read = try value()
        skipWhitespace()
        return read
    }

    mutating func readString() throws(Failure) -> String {
        guard current == UInt8(ascii: "\"") else { throw failure("not a string") }
        let read = try string()
        skipWhitespace()
        return read
    }

    mutating func readInteger() throws(Failure) -> Int64 {
        guard case .int(let read) = try readValue() else { throw failure("not a whole number") }
        return read
    }

    /// Where the text leaves the form the caller reads.
    func unexpected(_ what: String) -> Failure { failure("\(what) is not in the form expected") }
}
