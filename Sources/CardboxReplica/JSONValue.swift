/// A JSON document held as a value: settings such as `exportPreferences` and the field values of change records.
public enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Compact JSON text with sorted keys.
    public var jsonText: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.raw("null")
        case .bool(let value): value ? writer.raw("true") : writer.raw("false")
        case .int(let value): writer.integer(value)
        case .double(let value): writer.double(value)
        case .string(let value): writer.string(value)
        case .array(let values):
            writer.byte(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                value.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "]"))
        case .object(let members):
            writer.byte(UInt8(ascii: "{"))
            // Members sorted with their values: sorting the keys and looking each up again hashed
            // every key a second time.
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                writer.string(member.key)
                writer.byte(UInt8(ascii: ":"))
                member.value.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "}"))
        }
    }
}
