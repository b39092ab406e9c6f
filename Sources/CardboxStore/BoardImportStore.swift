import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// A board to import: its columns in order, each with its cards in order.
public struct BoardImport: Sendable {
    public struct Column: Sendable {
        public var title: String
        public var cards: [Card]

        public init(title: String, cards: [Card]) {
            self.title = title
            self.cards = cards
        }
    }

    public struct Card: Sendable {
        public var title: String
        public var description: String?
        public var isArchived: Bool

        public init(title: String, description: String?, isArchived: Bool) {
            self.title = title
            self.description = description
            self.isArchived = isArchived
        }
    }

    public var title: String
    public var columns: [Column]

    public init(title: String, columns: [Column]) {
        self.title = title
        self.columns = columns
    }
}

extension CardboxStore {
    /// Creates a board from an import in one transaction. Titles and descriptions follow the board
    /// rules; the whole import fails, naming the record, when one does not.
    public func importBoard(_ board: BoardImport) throws -> (board: Board, report: ImportReport) {
        let title = try Board.validateTitle(board.title)
        let columns = try board.columns.enumerated().map { index, column in
            (
                title: try named("columns[\(index)]") { try BoardColumn.validateTitle(column.title) },
                cards: try column.cards.enumerated().map { cardIndex, card in
                    let path = "columns[\(index)].cards[\(cardIndex)]"
                    return (
                        title: try named(path) { try BoardCard.validateTitle(card.title) },
                        description: try named(path) { try BoardCard.validateDescription(card.description) },
                        isArchived: card.isArchived
                    )
                }
            )
        }
        return try write { tx in
            var report = ImportReport()
            let boardId = tx.newID()
            try tx.insert(
                .board, id: boardId,
                [
                    (.boardTitle, title), (.nameKey, StoreContext.nameKey(title)), (.createdAt, tx.nowMillis),
                    (.modifiedAt, tx.nowMillis),
                ])
            report.count("board", \.created)
            let columnKeys = PositionKey.sequence(count: columns.count)
            for (column, columnKey) in zip(columns, columnKeys) {
                let columnId = tx.newID()
                try tx.insert(
                    .boardColumn, id: columnId,
                    [
                        (.boardId, boardId), (.listTitle, column.title), (.position, columnKey),
                        (.createdAt, tx.nowMillis), (.modifiedAt, tx.nowMillis),
                    ])
                report.count("column", \.created)
                for (card, cardKey) in zip(column.cards, PositionKey.sequence(count: column.cards.count)) {
                    try tx.insert(
                        .boardCard, id: tx.newID(),
                        [
                            (.columnId, columnId), (.cardTitle, card.title), (.cardDescription, card.description),
                            (.position, cardKey), (.isArchived, card.isArchived.storage), (.createdAt, tx.nowMillis),
                            (.modifiedAt, tx.nowMillis),
                        ])
                    report.count("card", \.created)
                }
            }
            return (try tx.context.board(boardId), report)
        }
    }

    private func named<T>(_ path: String, _ check: () throws -> T) throws -> T {
        do {
            return try check()
        } catch CardboxError.invalid(let field, let reason) {
            throw CardboxError.invalid(field: "\(path).\(field)", reason: reason)
        }
    }
}
