import CardboxCore
import Foundation

// `/api/v1`'s request bodies (openapi.yaml documents each). Every one is closed: a member it does not
// know is refused (`WireCoding.decode`), so a misspelt field never changes nothing silently. A type
// nested in a body is closed by its own `init(from:)` (`GivenAnswersRequest.Answer`); a deck's
// `study` settings are read as the store's `StudySettings`, every member required.

/// A body whose members are its `CodingKeys`, and no others; none of them `null` but `nullable`'s.
public protocol ClosedBody: Decodable {
    associatedtype CodingKeys: CodingKey, CaseIterable
    static var nullable: Set<String> { get }
}

extension ClosedBody {
    public static var nullable: Set<String> { [] }
}

/// `POST /api/v1/decks`.
public struct NewDeckRequest: ClosedBody, Encodable, Sendable {
    public var name: String
    public var frontLanguage: String
    public var backLanguage: String
    public enum CodingKeys: String, CodingKey, CaseIterable { case name, frontLanguage, backLanguage }

    public init(name: String, frontLanguage: String, backLanguage: String) {
        (self.name, self.frontLanguage, self.backLanguage) = (name, frontLanguage, backLanguage)
    }
}

/// `POST /api/v1/decks/{deck}/cards`: a card's texts and tags (a cloze text makes several cards).
public struct NewCardRequest: ClosedBody, Encodable, Sendable {
    public var front: String
    public var back: String?
    public var notes: String?
    public var tags: [String]?
    public enum CodingKeys: String, CodingKey, CaseIterable { case front, back, notes, tags }

    public init(front: String, back: String? = nil, notes: String? = nil, tags: [String]? = nil) {
        (self.front, self.back, self.notes, self.tags) = (front, back, notes, tags)
    }
}

/// `POST /api/v1/decks/{deck}/cards/{card}`: the fields to change, each optional; `removeImage`
/// drops the picture (a new one goes with `PUT …/image`).
public struct CardEditRequest: ClosedBody, Encodable, Sendable {
    public var front: String?
    public var back: String?
    public var frontLanguage: String?
    public var backLanguage: String?
    public var cardType: String?
    public var notes: String?
    public var tags: [String]?
    public var isFavorite: Bool?
    public var removeImage: Bool?
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case front, back, frontLanguage, backLanguage, cardType, notes, tags, isFavorite, removeImage
    }

    public init() {}
}

/// `POST /api/v1/decks/{deck}/study`: the card answered (its id) and the rating, 1 to 4.
public struct AnswerRequest: ClosedBody, Encodable, Sendable {
    public var card: String
    public var rating: Int
    public enum CodingKeys: String, CodingKey, CaseIterable { case card, rating }

    public init(card: String, rating: Int) { (self.card, self.rating) = (card, rating) }
}

/// `POST /api/v1/decks/{deck}/answers`: answers given while offline, in the order given.
public struct GivenAnswersRequest: ClosedBody, Encodable, Sendable {
    public var answers: [Answer]
    public enum CodingKeys: String, CodingKey, CaseIterable { case answers }

    /// One answer: its own id (an answer sent twice counts once), the card, the rating, when.
    public struct Answer: ClosedBody, Encodable, Sendable {
        public var id: String
        public var card: String
        public var rating: Int
        public var answeredAt: String
        public var durationMs: Int?
        public enum CodingKeys: String, CodingKey, CaseIterable { case id, card, rating, answeredAt, durationMs }

        public init(id: String, card: String, rating: Int, answeredAt: String, durationMs: Int? = nil) {
            (self.id, self.card, self.rating, self.answeredAt, self.durationMs) = (
                id, card, rating, answeredAt, durationMs
            )
        }

        public init(from decoder: any Decoder) throws {
            let container = try WireCoding.closedContainer(decoder, keyedBy: CodingKeys.self, nullable: Self.nullable)
            id = try container.decode(String.self, forKey: .id)
            card = try container.decode(String.self, forKey: .card)
            rating = try container.decode(Int.self, forKey: .rating)
            answeredAt = try container.decode(String.self, forKey: .answeredAt)
            durationMs = try container.decodeIfPresent(Int.self, forKey: .durationMs)
        }
    }

    public init(answers: [Answer]) { self.answers = answers }
}

/// `POST /api/v1/decks/{deck}/settings`: the deck's name, how many suggestions to keep queued and,
/// when given, its study settings (every member of them).
public struct DeckSettingsRequest: ClosedBody, Encodable, Sendable {
    public var name: String
    public var queuedSuggestions: Int
    public var study: StudySettings?
    public enum CodingKeys: String, CodingKey, CaseIterable { case name, queuedSuggestions, study }

    public init(name: String, queuedSuggestions: Int, study: StudySettings? = nil) {
        (self.name, self.queuedSuggestions, self.study) = (name, queuedSuggestions, study)
    }
}

/// A new list, or a list's new name.
public struct NameRequest: ClosedBody, Encodable, Sendable {
    public var name: String
    public enum CodingKeys: String, CodingKey, CaseIterable { case name }

    public init(name: String) { self.name = name }
}

/// A new board, column or board card, or a board's new title.
public struct TitleRequest: ClosedBody, Encodable, Sendable {
    public var title: String
    public enum CodingKeys: String, CodingKey, CaseIterable { case title }

    public init(title: String) { self.title = title }
}

/// A place in an order, 0 first (a list among lists, a column on its board).
public struct PositionRequest: ClosedBody, Encodable, Sendable {
    public var position: Int
    public enum CodingKeys: String, CodingKey, CaseIterable { case position }

    public init(position: Int) { self.position = position }
}

/// `POST /api/v1/lists/{list}/items`.
public struct NewItemRequest: ClosedBody, Encodable, Sendable {
    public var title: String
    public var description: String?
    public var quantity: Int?
    public enum CodingKeys: String, CodingKey, CaseIterable { case title, description, quantity }
    public static var nullable: Set<String> { ["quantity"] }

    public init(title: String, description: String? = nil, quantity: Int? = nil) {
        (self.title, self.description, self.quantity) = (title, description, quantity)
    }
}

/// `POST /api/v1/lists/{list}/items/{item}`: what to change. `quantity` absent leaves it, `null`
/// takes it away.
public struct ItemEditRequest: ClosedBody, Encodable, Sendable {
    public var title: String?
    public var description: String?
    public var quantity: Int??
    public enum CodingKeys: String, CodingKey, CaseIterable { case title, description, quantity }
    public static var nullable: Set<String> { ["quantity"] }

    public init(title: String? = nil, description: String? = nil, quantity: Int?? = nil) {
        (self.title, self.description, self.quantity) = (title, description, quantity)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        if !container.contains(.quantity) {
            quantity = nil
        } else if try container.decodeNil(forKey: .quantity) {
            quantity = .some(nil)
        } else {
            quantity = .some(try container.decode(Int.self, forKey: .quantity))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(description, forKey: .description)
        if let quantity { try container.encode(quantity, forKey: .quantity) }
    }
}

/// `POST /api/v1/lists/{list}/items/{item}/cross`: crossed out or not (absent: the other way).
public struct CrossRequest: ClosedBody, Encodable, Sendable {
    public var crossedOut: Bool?
    public enum CodingKeys: String, CodingKey, CaseIterable { case crossedOut }

    public init(crossedOut: Bool? = nil) { self.crossedOut = crossedOut }
}

/// An item's move: to a place in its list, or into another list (`list`, at its end unless a
/// position is given).
public struct ItemMoveRequest: ClosedBody, Encodable, Sendable {
    public var position: Int?
    public var list: String?
    public enum CodingKeys: String, CodingKey, CaseIterable { case position, list }

    public init(position: Int? = nil, list: String? = nil) { (self.position, self.list) = (position, list) }
}

/// `POST /api/v1/settings`: the account's crossed-out setting and time zone (at least one).
public struct SettingsRequest: ClosedBody, Encodable, Sendable {
    public var showCrossedOutItems: Bool?
    public var timeZone: String?
    public enum CodingKeys: String, CodingKey, CaseIterable { case showCrossedOutItems, timeZone }

    public init(showCrossedOutItems: Bool? = nil, timeZone: String? = nil) {
        (self.showCrossedOutItems, self.timeZone) = (showCrossedOutItems, timeZone)
    }
}

/// `POST /api/v1/boards/{board}/cards/{card}`: a board card's new title or description.
public struct BoardCardEditRequest: ClosedBody, Encodable, Sendable {
    public var title: String?
    public var description: String?
    public enum CodingKeys: String, CodingKey, CaseIterable { case title, description }

    public init(title: String? = nil, description: String? = nil) {
        (self.title, self.description) = (title, description)
    }
}

/// A board card's move: to a place in its column, or into another column.
public struct BoardCardMoveRequest: ClosedBody, Encodable, Sendable {
    public var position: Int?
    public var column: String?
    public enum CodingKeys: String, CodingKey, CaseIterable { case position, column }

    public init(position: Int? = nil, column: String? = nil) { (self.position, self.column) = (position, column) }
}

/// `POST /api/v1/boards/{board}/cards/{card}/archive`: archived or not (absent: archived).
public struct ArchiveRequest: ClosedBody, Encodable, Sendable {
    public var archived: Bool?
    public enum CodingKeys: String, CodingKey, CaseIterable { case archived }

    public init(archived: Bool? = nil) { self.archived = archived }
}

// `/api/v1`'s answers: each names the record it holds, as it is now.

/// A card added, read, changed or answered back.
public struct CardReply: Codable, Sendable, Equatable {
    public var card: Card
    public init(card: Card) { self.card = card }
}

/// What adding a card answers: the card, and every card it made (a cloze text makes one per
/// deletion number; `card` is the first).
public struct AddedCardsReply: Codable, Sendable, Equatable {
    public var card: Card
    public var cards: [Card]
    public init(card: Card, cards: [Card]) { (self.card, self.cards) = (card, cards) }
}

/// A page of a deck's cards, and how many match in all.
public struct CardsReply: Codable, Sendable, Equatable {
    public var cards: [Card]
    public var total: Int
    public init(cards: [Card], total: Int) { (self.cards, self.total) = (cards, total) }
}

/// What a deck's flow (clearing suggestions, …) moved, and the deck's counts after it.
public struct FlowReply: Codable, Sendable, Equatable {
    public var moved: Int
    public var counts: DeckCounts
    public init(moved: Int, counts: DeckCounts) { (self.moved, self.counts) = (moved, counts) }
}

/// A deck made from a preset, and how many cards it holds.
public struct PresetDeckReply: Codable, Sendable, Equatable {
    public var deck: Deck
    public var cards: Int
    public init(deck: Deck, cards: Int) { (self.deck, self.cards) = (deck, cards) }
}

public struct DeckReply: Codable, Sendable, Equatable {
    public var deck: Deck
    public init(deck: Deck) { self.deck = deck }
}

/// A deck's counts after a card's move (archived, restored, …).
public struct CountsReply: Codable, Sendable, Equatable {
    public var counts: DeckCounts
    public init(counts: DeckCounts) { self.counts = counts }
}

public struct SuggestionsReply: Codable, Sendable, Equatable {
    public var suggestions: [Suggestion]
    public init(suggestions: [Suggestion]) { self.suggestions = suggestions }
}

/// The preset decks one can start from.
public struct PresetsReply: Codable, Sendable, Equatable {
    public var presets: [Preset]

    public struct Preset: Codable, Sendable, Equatable {
        public var slug: String
        public var name: String
        public var frontLanguage: String
        public var backLanguage: String
        public var cards: Int

        public init(slug: String, name: String, frontLanguage: String, backLanguage: String, cards: Int) {
            (self.slug, self.name, self.frontLanguage, self.backLanguage, self.cards) = (
                slug, name, frontLanguage, backLanguage, cards
            )
        }
    }

    public init(presets: [Preset]) { self.presets = presets }
}

/// What became of each answer given offline, in the order given (`applied`, `card-gone`, …).
public struct OutcomesReply: Codable, Sendable, Equatable {
    public var outcomes: [String]
    public init(outcomes: [String]) { self.outcomes = outcomes }
}

/// A list as its page shows it: with the account's crossed-out setting.
public struct ListShownReply: Codable, Sendable, Equatable {
    public var list: ItemList
    public var showCrossedOutItems: Bool
    public init(list: ItemList, showCrossedOutItems: Bool) {
        (self.list, self.showCrossedOutItems) = (list, showCrossedOutItems)
    }
}

/// `POST /api/v1/settings`'s answer: the settings it sets, as they are now (`timeZone` null: the
/// server's).
public struct SettingsReply: Codable, Sendable, Equatable {
    public var showCrossedOutItems: Bool
    public var timeZone: String?

    public init(showCrossedOutItems: Bool, timeZone: String?) {
        (self.showCrossedOutItems, self.timeZone) = (showCrossedOutItems, timeZone)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(showCrossedOutItems, forKey: .showCrossedOutItems)
        try container.encode(timeZone, forKey: .timeZone)  // null, not left out
    }

    enum CodingKeys: String, CodingKey { case showCrossedOutItems, timeZone }
}

public struct ListReply: Codable, Sendable, Equatable {
    public var list: ItemList
    public init(list: ItemList) { self.list = list }
}

/// Every list, with how many items each holds.
public struct ListsReply: Codable, Sendable, Equatable {
    public var lists: [Summary]

    public struct Summary: Codable, Sendable, Equatable {
        public var list: ItemList
        public var items: Int
        public init(list: ItemList, items: Int) { (self.list, self.items) = (list, items) }
    }

    public init(lists: [Summary]) { self.lists = lists }
}

public struct ItemReply: Codable, Sendable, Equatable {
    public var item: Item
    public init(item: Item) { self.item = item }
}

public struct ItemImageReply: Codable, Sendable, Equatable {
    public var image: ItemImage
    public init(image: ItemImage) { self.image = image }
}

/// A board with its columns and cards.
public struct BoardReply: Codable, Sendable, Equatable {
    public var board: Board
    public init(board: Board) { self.board = board }
}

public struct BoardsReply: Codable, Sendable, Equatable {
    public var boards: [Board]
    public init(boards: [Board]) { self.boards = boards }
}

public struct ColumnReply: Codable, Sendable, Equatable {
    public var column: BoardColumn
    public init(column: BoardColumn) { self.column = column }
}

/// The account's devices: when each was last seen, and whether it is signed out.
public struct DevicesReply: Codable, Sendable, Equatable {
    public var devices: [WireDevice]
    public init(devices: [WireDevice]) { self.devices = devices }
}
