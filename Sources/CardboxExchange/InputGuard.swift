import CardboxCore
import Foundation

/// Limits that keep a malformed or hostile file from crashing Cardbox or eating memory.
public enum InputGuard {
    /// JSON documents larger than this are refused before they are read.
    public static let maximumJSONBytes = 512 * 1024 * 1024
    /// Deeper nesting than any Cardbox format uses is refused before parsing (a parser that recurses
    /// could otherwise overflow its stack on `[[[[…`).
    public static let maximumJSONDepth = 64

    /// Reads a file whole, refusing one over `limit` bytes before reading it.
    public static func read(_ path: String, limit: Int = maximumJSONBytes) throws -> Data {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.intValue
        else { throw CardboxError.invalid(field: path, reason: "cannot read the file") }
        guard size <= limit else {
            throw CardboxError.invalid(field: path, reason: "is \(size) bytes; at most \(limit) bytes are read")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CardboxError.invalid(field: path, reason: "cannot read the file")
        }
        return data
    }

    /// Refuses JSON nested deeper than `maximumJSONDepth`, scanning bytes without parsing.
    public static func checkDepth(_ data: Data, file: String) throws {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumJSONDepth {
                    throw CardboxError.invalid(
                        field: file, reason: "JSON is nested more than \(maximumJSONDepth) levels deep")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: continue
            }
        }
    }

    /// Decodes a JSON document of a Cardbox format: depth checked first, and a failure names the
    /// file and the field at fault (`lists.json: lists[0].items[2].quantity: has the wrong type`).
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String) throws -> T {
        try checkDepth(data, file: file)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw describe(error, file: file)
        } catch {
            throw CardboxError.invalid(field: file, reason: "is not valid JSON")
        }
    }

    static func describe(_ error: DecodingError, file: String) -> CardboxError {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.reduce("") { text, key in
                if let index = key.intValue { return text + "[\(index)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return .invalid(field: "\(file): \(path(context.codingPath))", reason: "has the wrong type")
        case .keyNotFound(let key, let context):
            return .invalid(field: "\(file): \(path(context.codingPath + [key]))", reason: "is required")
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? .invalid(field: file, reason: "is not valid JSON")
                : .invalid(field: "\(file): \(path(context.codingPath))", reason: "is not valid")
        @unknown default:
            return .invalid(field: file, reason: "is not in the expected format")
        }
    }
}
