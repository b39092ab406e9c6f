import CardboxCore
import CardboxServer
import CardboxStore
import CardboxWire
import Foundation
import Hummingbird

/// `/api/v1` for lists (seed 002), boards (seed 003), the account's devices and a deck's settings:
/// the same actions as the pages, at the same paths, with JSON bodies. A change answers the record
/// as it is now; a deletion is `DELETE` on the record's path (forms can only post, so the pages
/// post to `…/delete`) and answers 204.
extension WebAPI {
    func addListRoutes(to api: RouterGroup<CardboxRequestContext>) {
        api.get("lists") { _, context in
            let lists = try await actions.lists(try context.requireCaller())
            return EncodedJSON(ListsReply(lists: lists.map { ListsReply.Summary(list: $0.list, items: $0.items) }))
        }
        api.post("lists") { request, context in
            let body = try await request.decodeBody(NameRequest.self, context)
            let list = try await actions.createList(try context.requireCaller(), name: body.name)
            return EncodedJSON(ListReply(list: list), status: .created)
        }
        api.get("lists/:list") { _, context in
            let found = try await actions.list(try context.requireCaller(), try WebApp.listId(context))
            return EncodedJSON(ListShownReply(list: found.list, showCrossedOutItems: found.showCrossedOut))
        }
        api.post("lists/:list/rename") { request, context in
            let body = try await request.decodeBody(NameRequest.self, context)
            let list = try await actions.renameList(
                try context.requireCaller(), try WebApp.listId(context), to: body.name)
            return EncodedJSON(ListReply(list: list))
        }
        api.post("lists/:list/move") { request, context in
            let body = try await request.decodeBody(PositionRequest.self, context)
            let list = try await actions.moveList(
                try context.requireCaller(), try WebApp.listId(context), to: try Self.position(body.position))
            return EncodedJSON(ListReply(list: list))
        }
        api.delete("lists/:list") { _, context in
            try await actions.deleteList(try context.requireCaller(), try WebApp.listId(context))
            return Response(status: .noContent)
        }
        api.post("lists/:list/items") { request, context in
            let body = try await request.decodeBody(NewItemRequest.self, context, limit: 1 << 20)
            let item = try await actions.addItem(
                try context.requireCaller(), to: try WebApp.listId(context),
                ItemDraft(
                    title: body.title, description: body.description ?? "",
                    quantity: try Self.quantity(body.quantity)))
            return EncodedJSON(ItemReply(item: item), status: .created)
        }
        addItemRoutes(to: api)
        api.post("settings") { request, context in
            let body = try await request.decodeBody(SettingsRequest.self, context)
            let (show, zone) = (body.showCrossedOutItems, body.timeZone)
            guard show != nil || zone != nil else {
                throw CardboxError.invalid(field: "body", reason: "needs showCrossedOutItems or timeZone")
            }
            let settings = try await actions.setSettings(
                try context.requireCaller(), showCrossedOut: show, timeZone: zone)
            return EncodedJSON(
                SettingsReply(showCrossedOutItems: settings.showCrossedOutItems, timeZone: settings.timeZone))
        }
    }

    private func addItemRoutes(to api: RouterGroup<CardboxRequestContext>) {
        let item = "lists/:list/items/:item"
        api.post(RouterPath(item)) { request, context in
            let body = try await request.decodeBody(ItemEditRequest.self, context, limit: 1 << 20)
            let changed = try await actions.editItem(
                try context.requireCaller(), try WebApp.itemId(context), in: try WebApp.listId(context),
                ItemChanges(
                    title: body.title, description: body.description,
                    quantity: try body.quantity.map(Self.quantity)))
            return EncodedJSON(ItemReply(item: changed))
        }
        api.post(RouterPath(item + "/cross")) { request, context in
            let body = try await request.decodeBody(CrossRequest.self, context)
            let changed = try await actions.crossItem(
                try context.requireCaller(), try WebApp.itemId(context), in: try WebApp.listId(context),
                crossedOut: body.crossedOut)
            return EncodedJSON(ItemReply(item: changed))
        }
        api.post(RouterPath(item + "/move")) { request, context in
            let body = try await request.decodeBody(ItemMoveRequest.self, context)
            let target: ListID? = try body.list.map { try WebApp.id($0, kind: "list") }
            let moved = try await actions.moveItem(
                try context.requireCaller(), try WebApp.itemId(context), in: try WebApp.listId(context),
                to: try body.position.map(Self.position), into: target)
            return EncodedJSON(ItemReply(item: moved))
        }
        api.delete(RouterPath(item)) { _, context in
            try await actions.deleteItem(
                try context.requireCaller(), try WebApp.itemId(context), in: try WebApp.listId(context))
            return Response(status: .noContent)
        }
        api.put(RouterPath(item + "/images")) { request, context in
            let data = try await request.collectBody(
                upTo: Limits.imageBytes,
                tooLarge: MultipartForm.imageTooLarge)
            let image = try await actions.addItemImage(
                try context.requireCaller(), try WebApp.itemId(context), in: try WebApp.listId(context),
                data: Data(buffer: data))
            return EncodedJSON(ItemImageReply(image: image), status: .created)
        }
        api.delete(RouterPath(item + "/images/:image")) { _, context in
            try await actions.removeItemImage(
                try context.requireCaller(), try WebApp.id(context, "image"), of: try WebApp.itemId(context),
                in: try WebApp.listId(context))
            return Response(status: .noContent)
        }
    }

    func addBoardRoutes(to api: RouterGroup<CardboxRequestContext>) {
        api.get("boards") { _, context in
            EncodedJSON(BoardsReply(boards: try await actions.boards(try context.requireCaller())))
        }
        api.post("boards") { request, context in
            let body = try await request.decodeBody(TitleRequest.self, context)
            let board = try await actions.createBoard(try context.requireCaller(), title: body.title)
            return EncodedJSON(BoardReply(board: board), status: .created)
        }
        api.get("boards/:board") { request, context in
            let archived = request.uri.queryParameters["archived"] == "true"
            return try await boardAnswer(context, archived: archived)
        }
        api.post("boards/:board/rename") { request, context in
            let body = try await request.decodeBody(TitleRequest.self, context)
            try await actions.renameBoard(try context.requireCaller(), try WebApp.boardId(context), to: body.title)
            return try await boardAnswer(context)
        }
        api.delete("boards/:board") { _, context in
            try await actions.deleteBoard(try context.requireCaller(), try WebApp.boardId(context))
            return Response(status: .noContent)
        }
        api.post("boards/:board/columns") { request, context in
            let body = try await request.decodeBody(TitleRequest.self, context)
            let column = try await actions.addColumn(
                try context.requireCaller(), to: try WebApp.boardId(context), title: body.title)
            return EncodedJSON(ColumnReply(column: column), status: .created)
        }
        api.post("boards/:board/columns/:column/move") { request, context in
            let body = try await request.decodeBody(PositionRequest.self, context)
            let (column, position): (ColumnID, Int) = (
                try WebApp.id(context, "column"), try Self.position(body.position)
            )
            try await actions.changeColumn(try context.requireCaller(), column, of: try WebApp.boardId(context)) {
                _ = try $0.moveColumn(column, to: position)
            }
            return try await boardAnswer(context)
        }
        api.post("boards/:board/columns/:column/cards") { request, context in
            let body = try await request.decodeBody(TitleRequest.self, context, limit: 1 << 20)
            try await actions.addBoardCard(
                try context.requireCaller(), to: try WebApp.id(context, "column"), of: try WebApp.boardId(context),
                title: body.title)
            return try await boardAnswer(context, status: .created)
        }
        addBoardCardRoutes(to: api)
    }

    private func addBoardCardRoutes(to api: RouterGroup<CardboxRequestContext>) {
        api.post("boards/:board/cards/:card") { request, context in
            let body = try await request.decodeBody(BoardCardEditRequest.self, context, limit: 1 << 20)
            let (title, description) = (body.title, body.description)
            return try await changeBoardCard(context) { store, card in
                _ = try store.editBoardCard(card, title: title, description: description)
            }
        }
        api.post("boards/:board/cards/:card/move") { request, context in
            let body = try await request.decodeBody(BoardCardMoveRequest.self, context)
            let column: ColumnID? = try body.column.map { try WebApp.id($0, kind: "column") }
            let position = try body.position.map(Self.position)
            return try await changeBoardCard(context) { store, card in
                _ = try store.moveBoardCard(card, to: position, inColumn: column)
            }
        }
        api.post("boards/:board/cards/:card/archive") { request, context in
            let body = try await request.decodeBody(ArchiveRequest.self, context)
            let archived = body.archived ?? true
            return try await changeBoardCard(context) { store, card in
                _ = try store.setBoardCardArchived(card, archived)
            }
        }
        api.delete("boards/:board/cards/:card") { _, context in
            _ = try await changeBoardCard(context) { store, card in try store.deleteBoardCard(card) }
            return Response(status: .noContent)
        }
    }

    /// Changes the card in the path, a card of the board in the path; answers the board.
    private func changeBoardCard(
        _ context: CardboxRequestContext, _ change: @escaping @Sendable (CardboxStore, BoardCardID) throws -> Void
    ) async throws -> EncodedJSON<BoardReply> {
        let card: BoardCardID = try WebApp.id(context, "card")
        try await actions.changeBoardCard(try context.requireCaller(), card, of: try WebApp.boardId(context)) {
            try change($0, card)
        }
        return try await boardAnswer(context, archived: true)
    }

    /// The board in the path with its columns and cards (archived ones too, with `archived`).
    private func boardAnswer(
        _ context: CardboxRequestContext, archived: Bool = false, status: HTTPResponse.Status = .ok
    ) async throws -> EncodedJSON<BoardReply> {
        let board = try await actions.board(
            try context.requireCaller(), try WebApp.boardId(context), archived: archived)
        return EncodedJSON(BoardReply(board: board), status: status)
    }

    func addAccountRoutes(to api: RouterGroup<CardboxRequestContext>) {
        api.get("account/devices") { _, context in
            let caller = try context.requireCaller()
            return EncodedJSON(
                DevicesReply(devices: try await accounts.store.devices(account: caller.account.id).map(\.wire)))
        }
        api.post("account/devices/:device/revoke") { _, context in
            let caller = try context.requireCaller()
            guard let device = context.parameters.get("device").flatMap(UUID.init(uuidString:)),
                try await accounts.store.revokeDevice(device, account: caller.account.id, now: options.now())
            else { throw CardboxError.notFound(kind: "device", reference: context.parameters.get("device") ?? "") }
            return Response(status: .noContent)
        }
        api.post("decks/:deck/settings") { request, context in
            let body = try await request.decodeBody(DeckSettingsRequest.self, context)
            let caller = try context.requireCaller()
            let deck = try WebApp.deckId(context)
            try await actions.configureDeck(
                caller, deck, name: body.name, queuedSuggestions: body.queuedSuggestions, study: body.study)
            return EncodedJSON(DeckReply(deck: try await actions.deck(caller, deck, limit: 0).deck))
        }
        api.delete("decks/:deck") { _, context in
            try await actions.deleteDeck(try context.requireCaller(), try WebApp.deckId(context))
            return Response(status: .noContent)
        }
    }
}

extension WebAPI {
    /// A place in an order, 0 first.
    static func position(_ value: Int) throws -> Int {
        guard value >= 0 else { throw CardboxError.invalid(field: "position", reason: "must be 0 or more") }
        return value
    }

    /// An item's quantity, as seed 002 allows it (nil: none).
    static func quantity(_ value: Int?) throws -> Int32? { try Validate.quantity(value) }
}
