import CardboxCore
import CardboxExchange
import CardboxServer
import CardboxStore
import CardboxWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web app's actions as JSON, under `/api/v1` (in `/openapi.yaml`): the same `AccountActions`
/// the pages call. A device token (`Authorization: Bearer`) or the browser's session cookie signs a
/// request in; with the cookie, a request that changes something also carries the page's CSRF token
/// in `X-CSRF-Token`.
struct WebAPI: Sendable {
    let actions: AccountActions
    let accounts: AccountService
    let options: ServerOptions
    /// The sync API's: an account's requests count against one rate, whichever API they use.
    let limiter: RateLimiter

    func addRoutes(to router: Router<CardboxRequestContext>) {
        let api = router.group("api/v1").add(middleware: WebAPIAuthentication(accounts: accounts))
            .add(middleware: AccountRateLimit(limiter: limiter))
        addDeckRoutes(to: api)
        addCardRoutes(to: api)
        addStudyRoutes(to: api)
        addOfflineRoutes(to: api)
        addSuggestionRoutes(to: api)
        addListRoutes(to: api)
        addBoardRoutes(to: api)
        addAccountRoutes(to: api)
    }

    /// Decks: listed, made (also from a preset), imported into and exported; their stats.
    private func addDeckRoutes(to api: RouterGroup<CardboxRequestContext>) {
        api.get("decks") { _, context in
            let (decks, allowance) = try await actions.decks(try context.requireCaller())
            return EncodedJSON(DecksAnswer(decks: decks, allowance: allowance))
        }
        api.post("decks") { request, context in
            let body = try await request.decodeBody(NewDeckRequest.self, context)
            let deck = try await actions.createDeck(
                try context.requireCaller(), name: body.name, frontLanguage: body.frontLanguage,
                backLanguage: body.backLanguage)
            return EncodedJSON(DeckReply(deck: deck), status: .created)
        }
        api.post("import") { request, context in
            let text = request.textQuery
            let options = ImportOptions(
                format: try text("format").map { try WebApp.choice($0, field: "format") },
                onDuplicate: try WebApp.choice(text("onDuplicate") ?? "skip", field: "onDuplicate"), deck: text("deck"),
                frontLanguage: text("front"), backLanguage: text("back") ?? "en")
            let data = try await request.collectBody(
                upTo: ImportForm.limit, tooLarge: ImportForm.tooLarge)
            let report = try await actions.importFile(try context.requireCaller(), Data(buffer: data), options)
            return EncodedJSON(report)
        }
        api.get("export/:format") { request, context in
            try await WebApp.download(actions, request, context, caller: try context.requireCaller())
        }
        api.get("presets") { _, _ in
            EncodedJSON(PresetsReply(presets: PresetDeck.catalog.map(WebAPI.preset)))
        }
        api.post("presets/:preset") { _, context in
            let preset = try PresetDeck.named(context.parameters.get("preset") ?? "")
            let made = try await actions.createDeck(try context.requireCaller(), preset: preset)
            return EncodedJSON(PresetDeckReply(deck: made.deck, cards: made.cards.count), status: .created)
        }
        api.get("decks/:deck/stats") { request, context in
            let days = Int(try request.integerQuery("days", default: 30))
            return EncodedJSON(
                try await actions.stats(try context.requireCaller(), try WebApp.deckId(context), days: days).stats)
        }
        api.get("decks/:deck") { _, context in
            EncodedJSON(try await actions.deck(try context.requireCaller(), try WebApp.deckId(context)))
        }
    }

    /// A deck's cards: added, read, changed, given a picture, listed through filters, moved.
    private func addCardRoutes(to api: RouterGroup<CardboxRequestContext>) {
        api.post("decks/:deck/cards") { request, context in
            // A card's texts may be long (seed limits: front 10,000, back and notes 50,000 characters).
            let body = try await request.decodeBody(NewCardRequest.self, context, limit: 1 << 20)
            let draft = CardDraft(
                front: body.front, back: body.back ?? "", notes: body.notes ?? "", tags: body.tags ?? [])
            let cards = try await actions.addCards(try context.requireCaller(), to: try WebApp.deckId(context), draft)
            return EncodedJSON(AddedCardsReply(card: cards[0], cards: cards), status: .created)
        }
        api.get("decks/:deck/cards/:card") { _, context in
            let (_, card, _) = try await actions.card(
                try context.requireCaller(), try WebApp.id(context, "card"), in: try WebApp.deckId(context))
            return EncodedJSON(CardReply(card: card))
        }
        api.post("decks/:deck/cards/:card") { request, context in
            let body = try await request.decodeBody(CardEditRequest.self, context, limit: 1 << 20)
            let card = try await actions.editCard(
                try context.requireCaller(), try WebApp.id(context, "card"), in: try WebApp.deckId(context),
                CardChanges(
                    front: body.front, back: body.back, cardType: body.cardType, notes: body.notes, tags: body.tags,
                    removeImage: body.removeImage ?? false, frontLanguage: body.frontLanguage,
                    backLanguage: body.backLanguage, isFavorite: body.isFavorite))
            return EncodedJSON(CardReply(card: card))
        }
        api.put("decks/:deck/cards/:card/image") { request, context in
            let data = try await request.collectBody(
                upTo: Limits.imageBytes,
                tooLarge: MultipartForm.imageTooLarge)
            let card = try await actions.editCard(
                try context.requireCaller(), try WebApp.id(context, "card"), in: try WebApp.deckId(context),
                CardChanges(image: Data(buffer: data)))
            return EncodedJSON(CardReply(card: card))
        }
        api.get("decks/:deck/cards") { request, context in
            let query = request.uri.queryParameters
            let text = request.textQuery
            let flag = { (name: String) throws -> Bool in
                switch query[Substring(name)].map(String.init) {
                case nil, "false": return false
                case "true": return true
                default: throw CardboxError.invalid(field: name, reason: "must be true or false")
                }
            }
            let filter = CardFilter(
                archived: try flag("archived"), favoritesOnly: try flag("favorites"), tag: text("tag"),
                language: text("language"), search: text("q"))
            let limit = Int(try request.integerQuery("limit", default: Int64(AccountActions.cardsShown)))
            let offset = Int(try request.integerQuery("offset", default: 0))
            guard (1...AccountActions.cardsShown).contains(limit), offset >= 0 else {
                throw CardboxError.invalid(
                    field: "limit", reason: "must be 1 to \(AccountActions.cardsShown), offset 0 or more")
            }
            let found = try await actions.cards(
                try context.requireCaller(), in: try WebApp.deckId(context), filter, limit: limit, offset: offset)
            return EncodedJSON(CardsReply(cards: found.cards, total: found.total))
        }
        api.post("decks/:deck/cards/:card/:move") { _, context in
            let move: AccountActions.CardMove = try WebApp.choice(context, "move")
            let caller = try context.requireCaller()
            let deck = try WebApp.deckId(context)
            try await actions.move(caller, try WebApp.id(context, "card"), in: deck, move)
            return EncodedJSON(CountsReply(counts: try await actions.deck(caller, deck, limit: 0).counts))
        }
    }

    /// Study: the next card, an answer, undo.
    private func addStudyRoutes(to api: RouterGroup<CardboxRequestContext>) {
        api.get("decks/:deck/study") { _, context in
            let (_, next) = try await actions.nextCard(try context.requireCaller(), in: try WebApp.deckId(context))
            return EncodedJSON(NextAnswer(next: next))
        }
        api.post("decks/:deck/study") { request, context in
            let body = try await request.decodeBody(AnswerRequest.self, context)
            guard let card = CardID(body.card) else {
                throw CardboxError.invalid(field: "card", reason: "must be a card's id")
            }
            let answer = try await actions.answer(
                try context.requireCaller(), in: try WebApp.deckId(context), card: card, rating: body.rating)
            return EncodedJSON(answer)
        }
        api.post("decks/:deck/study/undo") { _, context in
            let card = try await actions.undo(try context.requireCaller(), in: try WebApp.deckId(context))
            return EncodedJSON(CardReply(card: card))
        }
    }

    /// A deck's flows and suggestions, and the account's images.
    private func addSuggestionRoutes(to api: RouterGroup<CardboxRequestContext>) {
        api.post("decks/:deck/flows/:flow") { _, context in
            let flow: AccountActions.DeckFlow = try WebApp.choice(context, "flow")
            let caller = try context.requireCaller()
            let deck = try WebApp.deckId(context)
            let moved = try await actions.run(caller, flow, in: deck)
            return EncodedJSON(FlowReply(moved: moved, counts: try await actions.deck(caller, deck, limit: 0).counts))
        }
        api.get("decks/:deck/suggestions") { _, context in
            EncodedJSON(
                SuggestionsReply(
                    suggestions: try await actions.suggestions(
                        try context.requireCaller(), in: try WebApp.deckId(context))
                ))
        }
        api.post("decks/:deck/suggestions/:suggestion/:review") { _, context in
            let review: AccountActions.SuggestionReview = try WebApp.choice(context, "review")
            let caller = try context.requireCaller()
            let deck = try WebApp.deckId(context)
            try await actions.review(caller, try WebApp.id(context, "suggestion"), in: deck, review)
            return EncodedJSON(SuggestionsReply(suggestions: try await actions.suggestions(caller, in: deck)))
        }
        api.get("images/:sha256") { _, context in
            try await WebApp.image(actions, context, caller: try context.requireCaller(), thumbnail: false)
        }
        api.get("images/:sha256/thumbnail") { _, context in
            try await WebApp.image(actions, context, caller: try context.requireCaller(), thumbnail: true)
        }
    }

    static func preset(_ preset: PresetDeck) -> PresetsReply.Preset {
        PresetsReply.Preset(
            slug: preset.slug, name: preset.name, frontLanguage: preset.frontLanguage,
            backLanguage: preset.backLanguage, cards: preset.cards.count)
    }

    struct DecksAnswer: Encodable {
        var decks: [AccountActions.DeckSummary]
        var allowance: CardAllowance
    }

    /// The next card to study; `next` is null when nothing is left today.
    struct NextAnswer: Encodable {
        var next: StudyCard?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(next, forKey: .next)  // null, not left out
        }

        enum CodingKeys: String, CodingKey { case next }
    }
}

/// Signs an `/api/v1` request in by its device token or its session cookie (then, for a request that
/// changes something, with the session's CSRF token in `X-CSRF-Token`).
struct WebAPIAuthentication: RouterMiddleware {
    typealias Context = CardboxRequestContext
    let accounts: AccountService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            context.caller = try await accounts.caller(token: String(header.dropFirst("Bearer ".count)))
        } else if let (caller, token) = try await SessionCookie.caller(request, accounts: accounts) {
            context.caller = caller
            context.sessionToken = token
        }
        guard context.caller != nil else {
            throw APIError(.unauthorized, "sign in first: this request needs a device token or a browser session")
        }
        return try await next(request, context)
    }
}
