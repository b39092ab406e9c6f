import CardboxCore
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird

struct BoardsPage: Encodable {
    struct Row: Encodable {
        let id: String
        let title: String
    }

    let boards: [Row]
    let hasBoards: Bool
}

/// A board: its columns side by side, each with its cards.
struct BoardPage: Encodable {
    struct Heading: Encodable {
        let id: String
        let title: String
    }

    struct Column: Encodable {
        let id: String
        let title: String
        /// The cards shown, and all of them (archived ones too: a drop's position counts them).
        let count: Int
        let total: Int
        let order: Int
        let arrows: JSONValue
        /// Whether a card was just added here (the cursor goes back to its New card field).
        let justAdded: Bool
        let cards: [Card]
    }

    struct Card: Encodable {
        let id: String
        let title: String
        let column: String
        let description: String
        let descriptionHTML: String
        let hasDescription: Bool
        let isArchived: Bool
        let order: Int
        let arrows: JSONValue
        /// The columns before and after the card's, where its side arrows move it.
        let previousColumn: String?
        let nextColumn: String?
    }

    let board: Heading
    /// Whether archived cards are shown.
    let archived: Bool
    let columns: [Column]
}

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
        let page = BoardsPage(
            boards: boards.map { .init(id: $0.id.description, title: $0.boardTitle) }, hasBoards: !boards.isEmpty)
        return WebPage.html(.boards, title: "Boards", page, context: context, live: caller.cursor)
    }

    /// A board: its columns side by side, each with its cards; `?archived` shows archived cards too.
    private func boardPage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let caller = try context.pageCaller()
        let archived = request.uri.queryParameters["archived"] != nil
        let added = request.uri.queryParameters["added"].map(String.init)
        // Archived cards are read even when hidden: a move's position counts them (see `WebPageModels.arrows`).
        let board = try await actions.board(caller, try Self.boardId(context), archived: true)
        let columns = board.columns ?? []
        let page = BoardPage(
            board: .init(id: board.id.description, title: board.boardTitle), archived: archived,
            columns: columns.enumerated().map { index, column in
                let all = column.cards ?? []
                let cards = archived ? all : all.filter { !$0.isArchived }
                let orders = cards.map(\.orderNumber)
                let (previous, next) = (
                    index > 0 ? columns[index - 1].id.description : nil,
                    index + 1 < columns.count ? columns[index + 1].id.description : nil
                )
                return BoardPage.Column(
                    id: column.id.description, title: column.listTitle, count: cards.count, total: all.count,
                    order: index, arrows: WebPageModels.arrows(index, of: Array(columns.indices)),
                    justAdded: column.id.description == added,
                    cards: cards.enumerated().map { position, card in
                        BoardPage.Card(
                            id: card.id.description, title: card.cardTitle, column: column.id.description,
                            description: card.cardDescription ?? "",
                            descriptionHTML: HTMLText.linkified(card.cardDescription ?? ""),
                            hasDescription: !(card.cardDescription ?? "").isEmpty, isArchived: card.isArchived,
                            order: card.orderNumber, arrows: WebPageModels.arrows(position, of: orders),
                            previousColumn: previous,
                            nextColumn: next)
                    })
            })
        return WebPage.html(.board, title: board.boardTitle, page, context: context, live: caller.cursor)
    }
}
