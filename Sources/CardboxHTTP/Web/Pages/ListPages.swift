import CardboxCore
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird

/// Lists and their items.
extension WebApp {
    func addListRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("lists") { _, context in try await listsPage(context) }
        pages.post("lists") { _, context in
            try await change(context, then: { "/lists/\($0)" }) { caller, form in
                try await actions.createList(caller, name: form["name"] ?? "").id.description
            }
        }
        pages.get("lists/:list") { request, context in
            try await listPage(context, justAdded: request.uri.queryParameters["added"] != nil)
        }
        pages.post("lists/:list/move") { _, context in
            try await change(context, then: { _ in "/lists" }) { caller, form in
                _ = try await actions.moveList(caller, try Self.listId(context), to: try Self.position(form))
            }
        }
        pages.post("lists/:list/rename") { _, context in
            try await changeList(context) { caller, list, form in
                _ = try await actions.renameList(caller, list, to: form["name"] ?? "")
            }
        }
        pages.post("lists/:list/merge") { _, context in
            try await change(context, then: { into in "/lists/\(into)" }) { caller, form in
                try await actions.mergeList(
                    caller, try Self.listId(context), into: try Self.id(form["into"] ?? "", kind: "list")
                ).id.description
            }
        }
        pages.post("lists/:list/delete") { _, context in
            try await change(context, then: { _ in "/lists" }) { caller, _ in
                try await actions.deleteList(caller, try Self.listId(context))
            }
        }
        pages.post("lists/:list/crossed-out") { _, context in
            try await changeList(context) { caller, list, form in
                try await actions.setShowCrossedOut(caller, form["show"] == "true", shownOn: list)
            }
        }
    }

    func addListItemRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.post("lists/:list/items") { _, context in try await addItem(context) }
        let item = "lists/:list/items/:item"
        pages.post(RouterPath(item)) { _, context in
            try await changeItem(context) { caller, item, list, form in
                _ = try await actions.editItem(
                    caller, item, in: list,
                    ItemChanges(
                        title: form["title"], description: form["description"],
                        quantity: try form["quantity"].map(Self.quantity)))
            }
        }
        pages.post(RouterPath(item + "/cross")) { _, context in
            try await changeItem(context) { caller, item, list, _ in
                _ = try await actions.crossItem(caller, item, in: list, crossedOut: nil)
            }
        }
        pages.post(RouterPath(item + "/move")) { _, context in
            try await changeItem(context) { caller, item, list, form in
                let target: ListID? = try form["list"].map { try Self.id($0, kind: "list") }
                _ = try await actions.moveItem(
                    caller, item, in: list, to: form["position"] == nil ? nil : try Self.position(form), into: target)
            }
        }
        pages.post(RouterPath(item + "/images")) { request, context in try await addItemImage(request, context) }
        pages.post(RouterPath(item + "/images/:image/delete")) { _, context in
            try await changeItem(context) { caller, item, list, _ in
                try await actions.removeItemImage(caller, try Self.id(context, "image"), of: item, in: list)
            }
        }
        pages.post(RouterPath(item + "/delete")) { _, context in
            try await changeItem(context) { caller, item, list, _ in
                try await actions.deleteItem(caller, item, in: list)
            }
        }
    }

    /// A form that changes the list in the path; back to the list.
    private func changeList(
        _ context: CardboxRequestContext, _ body: (Caller, ListID, [String: String]) async throws -> Void
    ) async throws -> Response {
        let list = try Self.listId(context)
        return try await change(context, then: { _ in "/lists/\(list)" }) { caller, form in
            try await body(caller, list, form)
        }
    }

    /// A form that changes an item of the list in the path; back to the list.
    private func changeItem(
        _ context: CardboxRequestContext, _ body: (Caller, ItemID, ListID, [String: String]) async throws -> Void
    ) async throws -> Response {
        let item = try Self.itemId(context)
        return try await changeList(context) { caller, list, form in try await body(caller, item, list, form) }
    }

    private func listsPage(_ context: CardboxRequestContext) async throws -> Response {
        let caller = try context.pageCaller()
        let lists = try await actions.lists(caller)
        return WebPage.html(.lists, title: "Lists", Self.listsPageModel(lists), context: context, live: caller.cursor)
    }

    /// A list's page (`list` with the items shown), as the browser's replica makes it offline.
    static func listPageModel(
        _ list: ItemList, showCrossedOut: Bool, lists: [(list: ItemList, items: Int)], draft: [String: String] = [:],
        justAdded: Bool = false
    ) -> JSONValue {
        let items = (list.items ?? []).map { item in
            WebPageModels.ListItem(
                id: item.id.description, title: item.title, description: item.description,
                quantity: item.quantity.map(Int64.init), isCrossedOut: item.isCrossedOut,
                orderNumber: item.orderNumber,
                images: (item.images ?? []).map { (id: $0.id.description, sha256: $0.sha256) })
        }
        return WebPageModels.list(
            Self.name(list), items: items, isEmpty: (lists.first { $0.list.id == list.id }?.items ?? 0) == 0,
            showCrossedOut: showCrossedOut,
            otherLists: lists.filter { $0.list.id != list.id }.map { Self.name($0.list) },
            draft: .init(
                title: draft["title"] ?? "", quantity: draft["quantity"] ?? "", description: draft["description"] ?? ""),
            justAdded: justAdded)
    }

    /// The lists page, as the browser's replica makes it offline.
    static func listsPageModel(_ lists: [(list: ItemList, items: Int)]) -> JSONValue {
        WebPageModels.lists(lists.map { (Self.name($0.list), $0.items) })
    }

    private static func name(_ list: ItemList) -> WebPageModels.ListName {
        .init(id: list.id.description, name: list.name)
    }

    /// A list's page; `justAdded` (after an item was added) puts the cursor back in New item.
    private func listPage(
        _ context: CardboxRequestContext, draft: [String: String] = [:], error: String? = nil, justAdded: Bool = false
    ) async throws -> Response {
        let caller = try context.pageCaller()
        let (list, showCrossedOut, lists) = try await actions.list(caller, try Self.listId(context))
        let page = Self.listPageModel(
            list, showCrossedOut: showCrossedOut, lists: lists, draft: draft, justAdded: justAdded)
        return WebPage.html(
            .list, title: list.name, page, context: context, error: error, status: error == nil ? .ok : .badRequest,
            live: caller.cursor)
    }

    private func addItem(_ context: CardboxRequestContext) async throws -> Response {
        let form = context.formFields
        let listId = try Self.listId(context)
        do {
            let quantity = try form["quantity"].flatMap { $0.isEmpty ? nil : try Self.quantity($0) }
            _ = try await actions.addItem(
                try context.pageCaller(), to: listId,
                ItemDraft(title: form["title"] ?? "", description: form["description"] ?? "", quantity: quantity))
            return WebPage.redirect("/lists/\(listId)?added")
        } catch let error as CardboxError {
            return try await listPage(context, draft: form, error: WebPage.message(error))
        }
    }

    /// An image chosen in an item's form (multipart/form-data: the file; its CSRF token is in the
    /// form's address): a refusal (not an image, too large, the eleventh) shows on the list.
    private func addItemImage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let upload = try await ImageUpload.read(request)
        let listId = try Self.listId(context)
        do {
            _ = try await actions.addItemImage(
                try context.pageCaller(), try Self.itemId(context), in: listId, data: upload.image)
            return WebPage.redirect("/lists/\(listId)")
        } catch let error as CardboxError {
            if case .notFound = error { throw error }
            return try await listPage(context, error: WebPage.message(error))
        }
    }
}
