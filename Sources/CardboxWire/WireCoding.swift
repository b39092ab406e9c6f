import CardboxCore
import Foundation

/// The coders every JSON body of the sync API and `/api/v1` goes through, on both sides: compact,
/// keys sorted, dates as ISO 8601 (`2026-12-07T11:40:13Z`), slashes unescaped.
///
/// One path is written and read by hand instead, because `bash scripts/sync_bench.sh` shows it
/// matters: a pull page's change set (`PullReply`), which `JSONDecoder` took 3.6 s to read for
/// 10,000 cards (docs/performance.md § Sync).
public enum WireCoding {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// `value` as JSON text.
    public static func text(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }

    /// A body read as `T`; what does not fit is an error naming the member (`body.user: is required`).
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, field: String = "body") throws -> T {
        do {
            return try decoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw Self.invalid(error, field: field)
        }
    }

    /// A decoding error as a `CardboxError` naming where it is and what was expected.
    static func invalid(_ error: DecodingError, field: String) -> CardboxError {
        func place(_ path: [any CodingKey]) -> String {
            path.reduce(field) { place, key in
                key.intValue.map { "\(place)[\($0)]" } ?? "\(place).\(key.stringValue)"
            }
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .invalid(field: place(context.codingPath + [key]), reason: "is required")
        case .valueNotFound(let type, let context):
            return .invalid(field: place(context.codingPath), reason: "must be \(Self.name(of: type)), not null")
        case .typeMismatch(let type, let context):
            return .invalid(field: place(context.codingPath), reason: "must be \(Self.name(of: type))")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return .invalid(field: field, reason: "is not JSON")
        case .dataCorrupted(let context):
            return .invalid(field: place(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return .invalid(field: field, reason: "is not what this API takes")
        }
    }

    /// How an expected type reads in an error: "a string", "a number", "an object".
    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type, is UUID.Type, is Date.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is [Any].Type: "a list"
        default: "an object"
        }
    }
}
