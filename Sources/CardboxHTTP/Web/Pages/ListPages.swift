import CardboxCore
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird

/// The lists page: every list, in its order.
struct ListsPage: Encodable {
    struct Row: Encodable {
        let id: String
        let name: String
        let count: Int
        let order: Int
        let arrows: Arrows
    }

    let lists: [Row]
    let hasLists: Bool
}

/// A list's page: its items, the new-item form, and where an item can move.
struct ListPage: Encodable {
    struct Heading: Encodable {
        let id: String
        let name: String
    }

    /// What the new-item form shows again after a refusal.
    struct Draft: Encodable {
        let title: String
        let quantity: String
        let description: String

        init(_ form: [String: String]) {
            (title, quantity, description) = (form["title"] ?? "", form["quantity"] ?? "", form["description"] ?? "")
        }
    }

    struct Item: Encodable {
        struct Image: Encodable {
            let id: String
            let sha256: String
            let itemId: String
        }

        let id: String
        let title: String
        let description: String
        /// The description with its links made links.
        let descriptionHTML: String
        let hasDescription: Bool
        let quantity: String
        let hasQuantity: Bool
        let crossed: Bool
        let order: Int
        let arrows: Arrows
        /// Seed 002: a list shows how many images an item has; they load when its details open.
        let images: [Image]
        let hasImages: Bool
        let imageLabel: String
        let canAddImage: Bool

        init(_ item: CardboxCore.Item, arrows: Arrows) {
            id = item.id.description
            (title, description) = (item.title, item.description)
            descriptionHTML = WebText.linkified(item.description)
            hasDescription = !item.description.isEmpty
            quantity = item.quantity.map { String($0) } ?? ""
            hasQuantity = item.quantity != nil
            (crossed, order) = (item.isCrossedOut, item.orderNumber)
            self.arrows = arrows
            images = (item.images ?? []).map {
                Image(id: $0.id.description, sha256: $0.sha256, itemId: item.id.description)
            }
            hasImages = !images.isEmpty
            imageLabel = images.count == 1 ? "1 image" : "\(images.count) images"
            canAddImage = images.count < Limits.imagesPerItem
        }
    }

    let list: Heading
    let items: [Item]
    let hasItems: Bool
    /// Whether the list has no item at all (rather than only crossed-out ones, hidden).
    let isEmpty: Bool
    let showCrossedOut: Bool
    let draft: Draft
    let justAdded: Bool
    let otherLists: [Heading]
    let hasOtherLists: Bool
}

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
        let page = ListsPage(
            lists: lists.enumerated().map { index, entry in
                ListsPage.Row(
                    id: entry.list.id.description, name: entry.list.name, count: entry.items, order: index,
                    arrows: Arrows(index, of: Array(lists.indices)))
            }, hasLists: !lists.isEmpty)
        return WebPage.html(.lists, title: "Lists", page, context: context, live: caller.cursor)
    }

    /// A list's page; `justAdded` (after an item was added) puts the cursor back in New item.
    private func listPage(
        _ context: CardboxRequestContext, draft: [String: String] = [:], error: String? = nil, justAdded: Bool = false
    ) async throws -> Response {
        let caller = try context.pageCaller()
        let (list, showCrossedOut, lists) = try await actions.list(caller, try Self.listId(context))
        let items = list.items ?? []
        let orders = items.map(\.orderNumber)
        let others = lists.filter { $0.list.id != list.id }
        let page = ListPage(
            list: .init(id: list.id.description, name: list.name),
            items: items.enumerated().map { ListPage.Item($1, arrows: Arrows($0, of: orders)) },
            hasItems: !items.isEmpty, isEmpty: (lists.first { $0.list.id == list.id }?.items ?? 0) == 0,
            showCrossedOut: showCrossedOut, draft: ListPage.Draft(draft), justAdded: justAdded,
            otherLists: others.map { .init(id: $0.list.id.description, name: $0.list.name) },
            hasOtherLists: !others.isEmpty)
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
