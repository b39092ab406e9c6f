import CardboxCore
import Foundation
import GRDB

extension CardboxStore {
    // MARK: Boards

    public func createBoard(title: String) throws -> Board {
        let title = try Board.validateTitle(title)
        return try write { tx in
            let id = tx.newID()
            try tx.insert(
                .board, id: id,
                [
                    (.boardTitle, title), (.nameKey, StoreContext.nameKey(title)), (.createdAt, tx.nowMillis),
                    (.modifiedAt, tx.nowMillis),
                ])
            return try tx.context.board(id)
        }
    }

    public func boards() throws -> [Board] {
        try read { context in
            try Row.fetchAll(
                context.db.cachedStatement(sql: "SELECT * FROM board ORDER BY createdAt, id"),
                arguments: []
            ).map(Board.init(row:))
        }
    }

    /// A board with its columns in order, each with its cards in order; archived cards only when
    /// `includeArchived` (they keep their order numbers either way).
    public func board(_ reference: BoardID, includeArchived: Bool = false) throws -> Board {
        try read { context in
            let id = try context.existing(reference, .board)
            var board = try context.board(id)
            var cardsByColumn: [String: [BoardCard]] = [:]
            let cardRows = try Row.fetchAll(
                context.db.cachedStatement(
                    sql: """
                        SELECT boardCard.* FROM boardCard JOIN boardColumn ON boardColumn.id = boardCard.columnId
                        WHERE boardColumn.boardId = ?
                        ORDER BY boardCard.columnId, boardCard.position, boardCard.id
                        """), arguments: [id])
            for row in cardRows {
                let columnId: String = TableRow<Columns.BoardCard>(row)[.columnId]
                let card = try BoardCard(row: row, orderNumber: cardsByColumn[columnId]?.count ?? 0)
                cardsByColumn[columnId, default: []].append(card)
            }
            if !includeArchived {
                cardsByColumn = cardsByColumn.mapValues { $0.filter { !$0.isArchived } }
            }
            board.columns = try Row.fetchAll(
                context.db.cachedStatement(
                    sql: "SELECT * FROM boardColumn WHERE boardId = ? ORDER BY position, id"),
                arguments: [id]
            ).enumerated().map { index, row in
                try BoardColumn(
                    row: row, orderNumber: index, cards: cardsByColumn[TableRow<Columns.BoardColumn>(row).id] ?? [])
            }
            return board
        }
    }

    public func renameBoard(_ reference: BoardID, to newTitle: String) throws -> Board {
        let title = try Board.validateTitle(newTitle)
        return try write { tx in
            let id = try tx.context.existing(reference, .board)
            try tx.update(
                .board, id: id,
                [(.boardTitle, title), (.nameKey, StoreContext.nameKey(title)), (.modifiedAt, tx.nowMillis)])
            return try tx.context.board(id)
        }
    }

    /// Seed 003: deleting a board deletes its columns and their cards (cascade).
    public func deleteBoard(_ reference: BoardID) throws {
        try write { tx in
            try tx.delete(.board, id: try tx.context.existing(reference, .board))
        }
    }

    // MARK: Columns

    /// Adds a column at the end of the board (or at `position`, 0-based).
    public func addColumn(to boardReference: BoardID, title: String, position: Int? = nil) throws -> BoardColumn {
        let title = try BoardColumn.validateTitle(title)
        return try write { tx in
            let boardId = try tx.context.existing(boardReference, .board)
            let id = tx.newID()
            let key = try tx.position(.boardColumn, parentId: boardId, at: position)
            try tx.insert(
                .boardColumn, id: id,
                [
                    (.boardId, boardId), (.listTitle, title), (.position, key), (.createdAt, tx.nowMillis),
                    (.modifiedAt, tx.nowMillis),
                ])
            return try tx.context.boardColumn(id)
        }
    }

    public func renameColumn(_ reference: ColumnID, to newTitle: String) throws -> BoardColumn {
        let title = try BoardColumn.validateTitle(newTitle)
        return try write { tx in
            let id = try tx.context.existing(reference, .boardColumn)
            try tx.update(.boardColumn, id: id, [(.listTitle, title), (.modifiedAt, tx.nowMillis)])
            return try tx.context.boardColumn(id)
        }
    }

    /// Moves a column to `position` (0-based) on its board.
    public func moveColumn(_ reference: ColumnID, to position: Int?) throws -> BoardColumn {
        try write { tx in
            let id = try tx.context.existing(reference, .boardColumn)
            let boardId = try tx.context.boardColumn(id).boardId.storage
            let key = try tx.position(.boardColumn, parentId: boardId, at: position, excluding: id)
            try tx.update(.boardColumn, id: id, [(.position, key), (.modifiedAt, tx.nowMillis)])
            return try tx.context.boardColumn(id)
        }
    }

    /// Deletes a column and its cards (cascade).
    public func deleteColumn(_ reference: ColumnID) throws {
        try write { tx in
            try tx.delete(.boardColumn, id: try tx.context.existing(reference, .boardColumn))
        }
    }

    // MARK: Cards

    /// Adds a card at the end of a column (or at `position`, 0-based).
    public func addBoardCard(
        to columnReference: ColumnID, title: String, description: String? = nil, position: Int? = nil
    ) throws -> BoardCard {
        let title = try BoardCard.validateTitle(title)
        let description = try BoardCard.validateDescription(description)
        return try write { tx in
            let columnId = try tx.context.existing(columnReference, .boardColumn)
            let id = tx.newID()
            let key = try tx.position(.boardCard, parentId: columnId, at: position)
            try tx.insert(
                .boardCard, id: id,
                [
                    (.columnId, columnId), (.cardTitle, title), (.cardDescription, description), (.position, key),
                    (.createdAt, tx.nowMillis), (.modifiedAt, tx.nowMillis),
                ])
            return try tx.context.boardCard(id)
        }
    }

    /// Changes a card's title and/or description (an empty description removes it).
    public func editBoardCard(_ reference: BoardCardID, title: String? = nil, description: String? = nil) throws
        -> BoardCard
    {
        var fields: Assignments<Columns.BoardCard> = []
        if let title { fields.append((.cardTitle, try BoardCard.validateTitle(title))) }
        if let description { fields.append((.cardDescription, try BoardCard.validateDescription(description))) }
        return try write { tx in
            let id = try tx.context.existing(reference, .boardCard)
            if !fields.isEmpty { try tx.update(.boardCard, id: id, fields + [(.modifiedAt, tx.nowMillis)]) }
            return try tx.context.boardCard(id)
        }
    }

    /// Seed 003's drag and drop: moves a card to `position` (0-based) in its column or in another column
    /// of the same board, as one write of (column, position).
    public func moveBoardCard(
        _ reference: BoardCardID, to position: Int?, inColumn columnReference: ColumnID? = nil
    ) throws -> BoardCard {
        try write { tx in
            let id = try tx.context.existing(reference, .boardCard)
            let card = try tx.context.boardCard(id)
            let columnId =
                try columnReference.map { try tx.context.existing($0, .boardColumn) } ?? card.columnId.storage
            let fromBoard = try tx.context.boardColumn(card.columnId.storage).boardId
            guard try tx.context.boardColumn(columnId).boardId == fromBoard else {
                throw CardboxError.invalid(field: "column", reason: "cards move between columns of the same board only")
            }
            let key = try tx.position(.boardCard, parentId: columnId, at: position, excluding: id)
            try tx.update(
                .boardCard, id: id, [(.columnId, columnId), (.position, key), (.modifiedAt, tx.nowMillis)])
            return try tx.context.boardCard(id)
        }
    }

    /// Archives a card (hidden from the board, kept), or brings it back.
    public func setBoardCardArchived(_ reference: BoardCardID, _ archived: Bool) throws -> BoardCard {
        try write { tx in
            let id = try tx.context.existing(reference, .boardCard)
            try tx.update(.boardCard, id: id, [(.isArchived, archived.storage), (.modifiedAt, tx.nowMillis)])
            return try tx.context.boardCard(id)
        }
    }

    public func deleteBoardCard(_ reference: BoardCardID) throws {
        try write { tx in try tx.delete(.boardCard, id: tx.context.existing(reference, .boardCard)) }
    }
}

extension StoreContext {
    func board(_ id: String) throws -> Board {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM board WHERE id = ?"), arguments: [id])
        else { throw CardboxError.notFound(kind: "board", reference: id) }
        return try Board(row: row)
    }

    func boardColumn(_ id: String) throws -> BoardColumn {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM boardColumn WHERE id = ?"),
                arguments: [id])
        else { throw CardboxError.notFound(kind: "column", reference: id) }
        let column = TableRow<Columns.BoardColumn>(row)
        let orderNumber = try orderNumber(.boardColumn, parentId: column[.boardId], position: column[.position], id: id)
        return try BoardColumn(row: row, orderNumber: orderNumber, cards: nil)
    }

    func boardCard(_ id: String) throws -> BoardCard {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM boardCard WHERE id = ?"),
                arguments: [id])
        else { throw CardboxError.notFound(kind: "board card", reference: id) }
        let card = TableRow<Columns.BoardCard>(row)
        let orderNumber = try orderNumber(.boardCard, parentId: card[.columnId], position: card[.position], id: id)
        return try BoardCard(row: row, orderNumber: orderNumber)
    }
}

extension Board {
    init(row: Row) throws {
        let row = TableRow<Columns.Board>(row)
        self.init(
            id: try .init(stored: row.id), boardTitle: row[.boardTitle],
            createdAt: Date(storageMillis: row[.createdAt]), modifiedAt: Date(storageMillis: row[.modifiedAt]))
    }
}

extension BoardColumn {
    init(row: Row, orderNumber: Int, cards: [BoardCard]?) throws {
        let row = TableRow<Columns.BoardColumn>(row)
        self.init(
            id: try .init(stored: row.id), boardId: try .init(stored: row[.boardId]), listTitle: row[.listTitle],
            orderNumber: orderNumber, createdAt: Date(storageMillis: row[.createdAt]),
            modifiedAt: Date(storageMillis: row[.modifiedAt]), cards: cards)
    }
}

extension BoardCard {
    init(row: Row, orderNumber: Int) throws {
        let row = TableRow<Columns.BoardCard>(row)
        self.init(
            id: try .init(stored: row.id), columnId: try .init(stored: row[.columnId]), cardTitle: row[.cardTitle],
            cardDescription: row[.cardDescription], orderNumber: orderNumber,
            createdAt: Date(storageMillis: row[.createdAt]), modifiedAt: Date(storageMillis: row[.modifiedAt]))
        isArchived = row[.isArchived]
    }
}
