import CardboxCore
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird
import NIOCore

/// A card of a deck: its editor, its moves, and the account's images.
extension WebApp {
    func addCardRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("decks/:deck/cards/:card") { _, context in try await cardEditor(context) }
        pages.post("decks/:deck/cards/:card") { request, context in try await editCard(request, context) }
        pages.post("decks/:deck/cards/:card/:move") { _, context in
            try await change(context, then: { tab in try Self.tabPath(context, tab) }) { caller, form in
                let move: AccountActions.CardMove = try Self.choice(context, "move")
                try await actions.move(caller, try Self.id(context, "card"), in: try Self.deckId(context), move)
                return form["tab"] ?? ""
            }
        }
        pages.get("images/:sha256") { _, context in
            try await Self.image(actions, context, caller: try context.pageCaller(), thumbnail: false)
        }
        pages.get("images/:sha256/thumbnail") { _, context in
            try await Self.image(actions, context, caller: try context.pageCaller(), thumbnail: true)
        }
    }

    /// The card editor: every field of the card, its tags (the account's offered), its favorite mark
    /// and its picture. After a refusal, `typed` (the form as sent) fills it again beside the error.
    private func cardEditor(
        _ context: CardboxRequestContext, typed: CardForm? = nil, error: String? = nil
    ) async throws -> Response {
        let (deck, card, knownTags) = try await actions.card(
            try context.pageCaller(), try Self.id(context, "card"), in: try Self.deckId(context))
        let page = Self.cardEditorModel(deck, card, knownTags: knownTags, typed: typed)
        return WebPage.html(
            .card, title: "Edit \(card.front.prefix(40))", page, context: context, error: error,
            status: error == nil ? .ok : .badRequest)
    }

    /// The card editor's model, as the browser's replica makes it offline.
    static func cardEditorModel(_ deck: Deck, _ card: Card, knownTags: [String], typed: CardForm? = nil) -> JSONValue {
        WebPageModels.cardEditor(
            deck: .init(
                id: deck.id.description, name: deck.name, frontLanguage: deck.frontLanguage,
                backLanguage: deck.backLanguage),
            card: .init(
                id: card.id.description, front: typed?.front ?? card.front, back: typed?.back ?? card.back,
                cardType: typed?.cardType ?? card.cardType, notes: typed?.notes ?? card.notes,
                frontLanguage: typed?.frontLanguage ?? card.frontLanguage,
                backLanguage: typed?.backLanguage ?? card.backLanguage,
                isFavorite: typed.map { $0.isFavorite == "true" } ?? card.isFavorite,
                tags: typed?.tags ?? card.tags.joined(separator: ", "), isCloze: card.isCloze,
                imageHash: card.imageHash),
            knownTags: knownTags)
    }

    private func editCard(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let form = try await CardForm.read(request)
        let deckId = try Self.deckId(context)
        do {
            _ = try await actions.editCard(
                try context.pageCaller(), try Self.id(context, "card"), in: deckId, form.changes)
            return WebPage.redirect("/decks/\(deckId)")
        } catch let error as CardboxError {
            if case .notFound = error { throw error }
            return try await cardEditor(context, typed: form, error: WebPage.message(error))
        }
    }

    /// An image of the caller's account, or its thumbnail. Named by content, so it never changes:
    /// browsers keep it (privately) for a year.
    static func image(
        _ actions: AccountActions, _ context: CardboxRequestContext, caller: Caller, thumbnail: Bool
    ) async throws -> Response {
        let sha256 = try CheckedImage.checkHash(context.parameters.get("sha256") ?? "")
        let image = try await actions.image(caller, sha256: sha256, thumbnail: thumbnail)
        return Response(
            status: .ok,
            headers: [.contentType: image.mimeType, .cacheControl: "private, max-age=31536000, immutable"],
            body: .init(byteBuffer: ByteBuffer(bytes: image.data)))
    }
}
