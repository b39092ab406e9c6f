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
        _ = try topLevelKeys(data, file: file)
    }

    /// The keys of a JSON object's top level, found in the same byte scan that checks the depth: what
    /// telling formats apart needs, without parsing the document (it is parsed once, by its reader).
    /// Keys are as written, escapes left as they are. Not a validator: a damaged document may still
    /// yield keys, and its reader reports what is wrong with it.
    public static func topLevelKeys(_ data: Data, file: String) throws -> Set<String> {
        var keys: Set<String> = []
        var depth = 0
        var inString = false
        var escaped = false
        var expectingKey = false
        var key: [UInt8]?
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if let finished = key { keys.insert(String(decoding: finished, as: UTF8.self)) }
                    key = nil
                    continue
                }
                key?.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                if depth == 1 && expectingKey { key = [] }
                expectingKey = false
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                expectingKey = depth == 1 && byte == UInt8(ascii: "{")
                if depth > maximumJSONDepth {
                    throw CardboxError.invalid(
                        field: file, reason: "JSON is nested more than \(maximumJSONDepth) levels deep")
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: ","): expectingKey = depth == 1
            default: continue
            }
        }
        return keys
    }

    /// Whether a file's content is JSON by its look: an object or array after optional white space
    /// (and a UTF-8 byte-order mark). Such a file is read as JSON or refused, never as another format.
    public static func looksLikeJSON(_ data: Data) -> Bool {
        var bytes = data.prefix(4096)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Why a document is not JSON, with the line and column where the parser stopped.
    public static func syntaxError(_ data: Data, file: String) -> CardboxError {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return .invalid(field: file, reason: "is not in the expected format")
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
            // Foundation says "… around character N." (a byte offset), or that the file ended early.
            let offset =
                detail.range(of: "character ").flatMap { Int(detail[$0.upperBound...].prefix { $0.isNumber }) }
                ?? data.count
            let (line, column) = position(of: min(offset, data.count), in: data)
            let what = detail.contains("end of file") ? "ends in the middle of a value" : "has invalid JSON"
            return .invalid(field: file, reason: "is not valid JSON: \(what) at line \(line), column \(column)")
        }
    }

    /// Line and column (from 1, columns in characters) of a byte offset.
    static func position(of offset: Int, in data: Data) -> (line: Int, column: Int) {
        let before = data.prefix(offset)
        let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? before.startIndex
        return (line, String(decoding: before[lineStart...], as: UTF8.self).count + 1)
    }

    /// Decodes a JSON document of a Cardbox format: depth checked first, and a failure names the
    /// file and the field at fault (`lists.json: lists[0].items[2].quantity: has the wrong type`).
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String) throws -> T {
        try checkDepth(data, file: file)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw describe(error, data: data, file: file)
        } catch {
            throw syntaxError(data, file: file)
        }
    }

    static func describe(_ error: DecodingError, data: Data, file: String) -> CardboxError {
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
                ? syntaxError(data, file: file)
                : .invalid(field: "\(file): \(path(context.codingPath))", reason: "is not valid")
        @unknown default:
            return .invalid(field: file, reason: "is not in the expected format")
        }
    }
}
