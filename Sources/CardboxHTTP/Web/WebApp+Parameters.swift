import CardboxCore
import Foundation
import Hummingbird

/// What a request names, read the same way by the pages and the JSON API: records in its path,
/// choices from closed sets, positions and quantities in its form.
extension WebApp {
    static func deckId(_ context: CardboxRequestContext) throws -> DeckID { try id(context, "deck") }

    static func listId(_ context: CardboxRequestContext) throws -> ListID { try id(context, "list") }

    static func itemId(_ context: CardboxRequestContext) throws -> ItemID { try id(context, "item") }

    static func boardId(_ context: CardboxRequestContext) throws -> BoardID { try id(context, "board") }

    /// The id a path parameter names, or not found (the kind of record is the parameter's name).
    static func id<Record>(_ context: CardboxRequestContext, _ parameter: String) throws -> TypedID<Record> {
        try id(context.parameters.get(parameter) ?? "", kind: parameter)
    }

    /// The record `text` names (a form's, a body's or a query's id): one that cannot be is not found.
    static func id<Record>(_ text: String, kind: String) throws -> TypedID<Record> {
        guard let id = TypedID<Record>(text) else { throw CardboxError.notFound(kind: kind, reference: text) }
        return id
    }

    /// The UUID a path parameter names (an account's, a device's on the server), or not found.
    static func uuid(_ context: CardboxRequestContext, _ parameter: String) throws -> UUID {
        guard let id = context.parameters.get(parameter).flatMap(UUID.init(uuidString:)) else {
            throw CardboxError.notFound(kind: parameter, reference: context.parameters.get(parameter) ?? "")
        }
        return id
    }

    /// The choice a path parameter names from a closed set (an action's name), or not found.
    static func choice<Choice: RawRepresentable>(_ context: CardboxRequestContext, _ parameter: String) throws -> Choice
    where Choice.RawValue == String {
        guard let text = context.parameters.get(parameter), let choice = Choice(rawValue: text) else {
            throw CardboxError.notFound(kind: parameter, reference: context.parameters.get(parameter) ?? "")
        }
        return choice
    }

    /// One of a form's or query's fixed choices (an export's format, an import's duplicate policy).
    static func choice<Choice: RawRepresentable & CaseIterable>(_ text: String, field: String) throws -> Choice
    where Choice.RawValue == String {
        guard let choice = Choice(rawValue: text) else {
            let known = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw CardboxError.invalid(field: field, reason: "'\(text)' is not one of \(known)")
        }
        return choice
    }

    /// A 0-based position from a form.
    static func position(_ form: [String: String]) throws -> Int {
        guard let text = form["position"], let position = Int(text), position >= 0 else {
            throw CardboxError.invalid(field: "position", reason: "must be 0 or more")
        }
        return position
    }

    /// An item's quantity as typed: empty clears it; otherwise the engine's rule (any 32-bit integer).
    static func quantity(_ text: String) throws -> Int32? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : try Validate.quantity(text: trimmed)
    }

    /// Tags as typed in one field, separated by commas.
    static func tags(_ text: String) -> [String] {
        TagNames.split(text)
    }
}

extension Request {
    /// The query as a browser's GET form sends it (`application/x-www-form-urlencoded`): names and
    /// values percent-decoded, a "+" a space, in order. Hummingbird's `queryParameters` decodes
    /// values alone and keeps a "+", so a search for two words would look for "two+words".
    var formQuery: [(name: String, value: String)] {
        guard let query = uri.query, !query.isEmpty else { return [] }
        func decoded(_ text: Substring) -> String {
            let spaced = text.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : "")
        }
    }
}
