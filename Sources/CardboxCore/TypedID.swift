import Foundation

/// The id of one kind of record: a card's id cannot be passed where a deck's is expected, and an
/// operation on a record takes its id, never a name a person typed (the CLI resolves names and short
/// ids first, with `CardboxStore.resolve`). On the wire and in JSON it is the UUID in lowercase, as
/// it is stored and in every address (`/decks/ID`).
public struct TypedID<Record>: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let uuid: UUID

    public init(_ uuid: UUID) { self.uuid = uuid }

    /// Reads the stored form (a UUID in any case); nil for anything else.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.uuid = uuid
    }

    public init(from decoder: any Decoder) throws { uuid = try UUID(from: decoder) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// The stored form: lowercase with dashes.
    public var description: String { uuid.uuidString.lowercased() }

    public static func < (left: Self, right: Self) -> Bool { left.description < right.description }
}

public typealias DeckID = TypedID<Deck>
public typealias CardID = TypedID<Card>
public typealias ReviewID = TypedID<ReviewLogEntry>
public typealias SuggestionID = TypedID<Suggestion>
public typealias RejectedSuggestionID = TypedID<RejectedSuggestion>
public typealias ListID = TypedID<ItemList>
public typealias ItemID = TypedID<Item>
public typealias ItemImageID = TypedID<ItemImage>
public typealias BoardID = TypedID<Board>
public typealias ColumnID = TypedID<BoardColumn>
public typealias BoardCardID = TypedID<BoardCard>
