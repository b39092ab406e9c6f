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
}
