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

    /// A body read as `T`; what does not fit is an error naming the member (`user: is required`,
    /// `answers[2].rating: must be a whole number`), or `body` when the body as a whole is wrong. A
    /// `ClosedBody` also refuses a member it does not know (checked whatever the caller's `T` is
    /// constrained to: one entry point, so a generic caller cannot skip it).
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        func closed<C: ClosedBody>(_ closed: C.Type) throws -> T {
            try decoder().decode(Closed<C>.self, from: data).value as! T
        }
        do {
            if let closedType = type as? any ClosedBody.Type { return try closed(closedType) }
            return try decoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw Self.invalid(error, data: data)
        }
    }

    /// The container of an object whose members must all be `Keys` (a nested closed body's
    /// `init(from:)` calls it): another member is an error naming it, and so is a `null` (a member
    /// is given or left out) but for the members named `nullable`.
    public static func closedContainer<Keys: CodingKey & CaseIterable>(
        _ decoder: any Decoder, keyedBy keys: Keys.Type, nullable: Set<String> = []
    ) throws -> KeyedDecodingContainer<Keys> {
        let members = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(Keys.allCases.map(\.stringValue))
        for key in members.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            let problem =
                if !known.contains(key.stringValue) {
                    "is not a field of this request"
                } else if !nullable.contains(key.stringValue), try members.decodeNil(forKey: key) {
                    "must not be null: give a value or leave it out"
                } else {
                    String?.none
                }
            if let problem {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: members.codingPath + [key], debugDescription: problem, underlyingError: Refusal())
                )
            }
        }
        return try decoder.container(keyedBy: keys)
    }

    /// `T`, its members checked first.
    private struct Closed<T: ClosedBody>: Decodable {
        let value: T

        init(from decoder: any Decoder) throws {
            _ = try WireCoding.closedContainer(decoder, keyedBy: T.CodingKeys.self, nullable: T.nullable)
            value = try T(from: decoder)
        }
    }

    /// Marks the errors `closedContainer` words itself (their text is said as it is).
    private struct Refusal: Error {}

    /// Any member's name.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A decoding error as a `CardboxError` naming where it is and what was expected.
    static func invalid(_ error: DecodingError, data: Data? = nil) -> CardboxError {
        let field = "body"
        func place(_ path: [any CodingKey]) -> String {
            let named = path.reduce("") { place, key in
                if let index = key.intValue { return "\(place)[\(index)]" }
                return place.isEmpty ? key.stringValue : "\(place).\(key.stringValue)"
            }
            return named.isEmpty ? field : named
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .invalid(field: place(context.codingPath + [key]), reason: "is required")
        case .valueNotFound(let type, let context):
            return .invalid(field: place(context.codingPath), reason: "must be \(Self.name(of: type)), not null")
        case .typeMismatch(let type, let context):
            return .invalid(field: place(context.codingPath), reason: "must be \(Self.name(of: type))")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Foundation on Linux says "not valid JSON", naming no member, also for a number that
            // does not fit its member (3.5 or 1e30 for a whole number): told apart by reading it.
            let isJSON = data.map { (try? JSONSerialization.jsonObject(with: $0, options: .fragmentsAllowed)) != nil }
            return .invalid(
                field: field,
                reason: isJSON == true ? "holds a number where a whole number in range goes" : "is not JSON")
        case .dataCorrupted(let context) where context.underlyingError is Refusal:
            return .invalid(field: place(context.codingPath), reason: context.debugDescription)
        case .dataCorrupted(let context):
            // Foundation's own words (they differ between platforms); a number that does not fit
            // its member is the usual case: 3.5 or 1e30 for a whole number.
            let fits = !context.debugDescription.contains("does not fit")
            return .invalid(
                field: place(context.codingPath),
                reason: fits ? "is not a valid value" : "must be a whole number in range")
        @unknown default:
            return .invalid(field: field, reason: "is not what this API takes")
        }
    }

    /// How an expected type reads in an error: "a string", "a number", "an object".
    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type, is UUID.Type, is Date.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type: "a whole number"
        case is Double.Type: "a number"
        case is [Any].Type: "a list"
        default: "an object"
        }
    }
}
