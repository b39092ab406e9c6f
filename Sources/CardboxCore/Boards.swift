import Foundation

/// A board of columns of cards (seed 003's `TodoBoard`).
public struct Board: Codable, Sendable, Equatable, Identifiable {
    public var id: BoardID
    public var boardTitle: String
    public var createdAt: Date
    public var modifiedAt: Date
    /// Filled by `board show`; nil in listings.
    public var columns: [BoardColumn]?

    public init(id: BoardID, boardTitle: String, createdAt: Date, modifiedAt: Date, columns: [BoardColumn]? = nil) {
        self.id = id
        self.boardTitle = boardTitle
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.columns = columns
    }

    public static func validateTitle(_ title: String) throws -> String {
        try Validate.text(title, field: "board title", length: Limits.boardTitle)
    }
}

/// A column of a board (seed 003's `TodoList`, called a column in the interface).
public struct BoardColumn: Codable, Sendable, Equatable, Identifiable {
    public var id: ColumnID
    public var boardId: BoardID
    public var listTitle: String
    public var orderNumber: Int
    public var createdAt: Date
    public var modifiedAt: Date
    public var cards: [BoardCard]?

    public init(
        id: ColumnID, boardId: BoardID, listTitle: String, orderNumber: Int, createdAt: Date, modifiedAt: Date,
        cards: [BoardCard]? = nil
    ) {
        self.id = id
        self.boardId = boardId
        self.listTitle = listTitle
        self.orderNumber = orderNumber
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.cards = cards
    }

    public static func validateTitle(_ title: String) throws -> String {
        try Validate.text(title, field: "column title", length: Limits.boardTitle)
    }
}

/// A card on a board (seed 003's `TodoCard`).
public struct BoardCard: Codable, Sendable, Equatable, Identifiable {
    public var id: BoardCardID
    public var columnId: ColumnID
    public var cardTitle: String
    public var cardDescription: String?
    public var orderNumber: Int
    public var createdAt: Date
    public var modifiedAt: Date
    /// Archived cards stay on their board, out of sight (Trello's archive).
    public var isArchived = false

    public init(
        id: BoardCardID, columnId: ColumnID, cardTitle: String, cardDescription: String?, orderNumber: Int,
        createdAt: Date,
        modifiedAt: Date
    ) {
        self.id = id
        self.columnId = columnId
        self.cardTitle = cardTitle
        self.cardDescription = cardDescription
        self.orderNumber = orderNumber
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    public static func validateTitle(_ title: String) throws -> String {
        try Validate.text(title, field: "card title", length: Limits.cardTitle)
    }

    /// Every field, an empty description as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(columnId, forKey: .columnId)
        try container.encode(cardTitle, forKey: .cardTitle)
        try container.encode(cardDescription, forKey: .cardDescription)
        try container.encode(orderNumber, forKey: .orderNumber)
        try container.encode(isArchived, forKey: .isArchived)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(modifiedAt, forKey: .modifiedAt)
    }

    public static func validateDescription(_ description: String?) throws -> String? {
        guard let description, !description.isEmpty else { return nil }
        return try Validate.longText(description, field: "card description", maximum: Limits.itemDescriptionMaximum)
    }
}
