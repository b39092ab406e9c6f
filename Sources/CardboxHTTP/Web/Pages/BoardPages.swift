import CardboxCore
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird

/// Boards, their columns and cards.
extension WebApp {
    func addBoardRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("boards") { _, context in try await boardsPage(context) }
        pages.post("boards") { _, context in
            try await change(context, then: { "/boards/\($0)" }) { caller, form in
                try await actions.createBoard(caller, title: form["title"] ?? "").id.description
            }
        }
        pages.get("boards/:board") { request, context in try await boardPage(request, context) }
        pages.post("boards/:board/rename") { _, context in
            try await change(context, then: Self.boardPath(context)) { caller, form in
                try await actions.renameBoard(caller, try Self.boardId(context), to: form["title"] ?? "")
            }
        }
        pages.post("boards/:board/merge") { _, context in
            try await change(context, then: { into in "/boards/\(into)" }) { caller, form in
                try await actions.mergeBoard(
                    caller, try Self.boardId(context), into: try Self.id(form["into"] ?? "", kind: "board")
                ).id.description
            }
        }
        pages.post("boards/:board/delete") { _, context in
            try await change(context, then: { _ in "/boards" }) { caller, _ in
                try await actions.deleteBoard(caller, try Self.boardId(context))
            }
        }
        pages.post("boards/:board/columns") { _, context in
            try await change(context, then: Self.boardPath(context)) { caller, form in
                _ = try await actions.addColumn(caller, to: try Self.boardId(context), title: form["title"] ?? "")
            }
        }
        pages.post("boards/:board/columns/:column/move") { _, context in
            try await changeColumn(context) { store, column, form in
                _ = try store.moveColumn(column, to: try Self.position(form))
            }
        }
        pages.post("boards/:board/columns/:column/cards") { _, context in
            // Back with the cursor in the column's New card field, for the next one.
            let column: ColumnID = try Self.id(context, "column")
            return try await change(context, then: { _ in "/boards/\(try Self.boardId(context))?added=\(column)" }) {
                caller, form in
                try await actions.addBoardCard(
                    caller, to: column, of: try Self.boardId(context), title: form["title"] ?? "")
            }
        }
        addBoardCardRoutes(to: pages)
    }

    private func addBoardCardRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.post("boards/:board/cards/:card") { request, context in
            try await changeBoardCard(request, context) { store, card, form in
                _ = try store.editBoardCard(card, title: form["title"], description: form["description"])
            }
        }
        pages.post("boards/:board/cards/:card/move") { request, context in
            try await changeBoardCard(request, context) { store, card, form in
                let column: ColumnID? = try form["column"].map { try Self.id($0, kind: "column") }
                _ = try store.moveBoardCard(
                    card, to: form["position"] == nil ? nil : try Self.position(form), inColumn: column)
            }
        }
        pages.post("boards/:board/cards/:card/archive") { request, context in
            try await changeBoardCard(request, context) { store, card, form in
                _ = try store.setBoardCardArchived(card, form["archived"] != "false")
            }
        }
        pages.post("boards/:board/cards/:card/delete") { request, context in
            try await changeBoardCard(request, context) { store, card, _ in try store.deleteBoardCard(card) }
        }
    }

    /// Where a board's forms send the browser back to: the board.
    static func boardPath<Result>(_ context: CardboxRequestContext) -> (Result) throws -> String {
        { _ in "/boards/\(try boardId(context))" }
    }

    /// A form that changes a column of the board in the path.
    private func changeColumn(
        _ context: CardboxRequestContext,
        _ body: @escaping @Sendable (CardboxStore, ColumnID, [String: String]) throws -> Void
    ) async throws -> Response {
        let board = try Self.boardId(context)
        let column: ColumnID = try Self.id(context, "column")
        return try await change(context, then: { _ in "/boards/\(board)" }) { caller, form in
            try await actions.changeColumn(caller, column, of: board) { store in try body(store, column, form) }
        }
    }

    /// A form that changes a card of the board in the path (archived ones too).
    private func changeBoardCard(
        _ request: Request, _ context: CardboxRequestContext,
        _ body: @escaping @Sendable (CardboxStore, BoardCardID, [String: String]) throws -> Void
    ) async throws -> Response {
        let board = try Self.boardId(context)
        let card: BoardCardID = try Self.id(context, "card")
        let archived = request.uri.queryParameters["archived"] != nil
        return try await change(context, then: { _ in "/boards/\(board)" + (archived ? "?archived" : "") }) {
            caller, form in
            try await actions.changeBoardCard(caller, card, of: board) { store in try body(store, card, form) }
        }
    }

    private func boardsPage(_ context: CardboxRequestContext) async throws -> Response {
        let caller = try context.pageCaller()
        let boards = try await actions.boards(caller)
        return WebPage.html(
            .boards, title: "Boards", Self.boardsPageModel(boards), context: context, live: caller.cursor)
    }

    /// The boards page, as the browser's replica makes it offline.
    static func boardsPageModel(_ boards: [Board]) -> JSONValue {
        WebPageModels.boards(boards.map { .init(id: $0.id.description, name: $0.boardTitle) })
    }

    /// A board: its columns side by side, each with its cards; `?archived` shows archived cards too.
    private func boardPage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let caller = try context.pageCaller()
        // Archived cards are read even when hidden: a move's position counts them (see `WebPageModels.arrows`).
        let board = try await actions.board(caller, try Self.boardId(context), archived: true)
        let page = Self.boardPageModel(
            board, archived: request.uri.queryParameters["archived"] != nil,
            justAddedTo: request.uri.queryParameters["added"].map(String.init))
        return WebPage.html(.board, title: board.boardTitle, page, context: context, live: caller.cursor)
    }

    /// A board's page (`board` read with its archived cards), as the browser's replica makes it offline.
    static func boardPageModel(_ board: Board, archived: Bool, justAddedTo added: String? = nil) -> JSONValue {
        WebPageModels.board(
            .init(id: board.id.description, name: board.boardTitle), archived: archived,
            columns: (board.columns ?? []).map { column in
                WebPageModels.BoardColumn(
                    id: column.id.description, title: column.listTitle,
                    cards: (column.cards ?? []).map { card in
                        WebPageModels.BoardCard(
                            id: card.id.description, title: card.cardTitle, description: card.cardDescription,
                            isArchived: card.isArchived, orderNumber: card.orderNumber)
                    })
            }, justAddedTo: added)
    }
}
