import CardboxCore
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird

/// The decks page: the account's decks, the presets, the new-deck form and the plan's limit.
struct DecksPage: Encodable {
    struct Row: Encodable {
        let deck: DeckHeading
        let counts: DeckCountsView
        /// When it was made, for decks of one name (two devices each made "Spanish" before they
        /// synced), with the others it can merge into.
        let made: String?
        let hasMergeTargets: Bool
        let mergeTargets: [MergeTarget]
    }

    struct MergeTarget: Encodable {
        let id: String
        let label: String
    }

    struct Preset: Encodable {
        let slug: String
        let name: String
        let count: Int
        let languages: String
        /// Set when the plan has no room for its cards: said instead of the Add button.
        let noRoom: String?
    }

    /// The free plan's card limit, as seed 001 shows it.
    struct Limit: Encodable {
        let used: Int
        let limit: Int
        let remaining: Int
        /// Seed 001 says what is left once a fifth or less of the plan remains.
        let nearLimit: Bool
    }

    let decks: [Row]
    let hasDecks: Bool
    let presets: [Preset]
    let hasPresets: Bool
    let frontLanguages: [LanguageChoice]
    let backLanguages: [LanguageChoice]
    let limit: Limit?
}

/// A deck's page: its body (heading, tabs and card tabs: `WebPageModels.deck`, which the browser's
/// replica makes too) and what only the server shows: suggestions and the settings form.
struct DeckPage: Encodable {
    struct Suggestion: Encodable {
        let id: String
        let front: String
        let back: String
        let context: String
        /// "usage example".
        let category: String
        let image: String?

        init(_ suggestion: CardboxCore.Suggestion) {
            id = suggestion.id.description
            (front, back, context) = (suggestion.front, suggestion.back, suggestion.context)
            category = suggestion.category.rawValue.replacingOccurrences(of: "_", with: " ")
            image = suggestion.imageHash
        }
    }

    struct Waiting: Encodable {
        let front: String
        let back: String
    }

    struct Rejected: Encodable {
        let front: String
        let date: String
    }

    let body: JSONValue
    /// Whether the refusal shown is the card limit's (the layout then offers to upgrade).
    let limitReached: Bool
    var suggestions: [Suggestion] = [] { didSet { hasSuggestions = !suggestions.isEmpty } }
    var hasSuggestions = false
    var waiting: [Waiting] = [] { didSet { hasWaiting = !waiting.isEmpty } }
    var hasWaiting = false
    var rejected: [Rejected] = [] { didSet { hasRejected = !rejected.isEmpty } }
    var hasRejected = false
    /// The settings form, on the current tab.
    var settings: DeckSettingsForm?
}

/// Decks, their cards and suggestions.
extension WebApp {
    typealias DeckTab = WebPageModels.DeckTab

    func addDeckRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("decks") { _, context in try await decksPage(context) }
        pages.post("decks") { _, context in try await createDeck(context) }
        pages.post("presets/:preset") { _, context in
            do {
                return try await change(context, then: { (id: String) in "/decks/\(id)" }) { caller, _ in
                    let preset = try PresetDeck.named(context.parameters.get("preset") ?? "")
                    return try await actions.createDeck(caller, preset: preset).deck.id.description
                }
            } catch let error as CardboxError {
                return try await decksPage(context, error: WebPage.message(error))
            }
        }
        pages.get("decks/:deck") { request, context in
            try await cachedPage(request, context) { try await deckPage(request, context) }
        }
        pages.post("decks/:deck/cards") { request, context in try await addCard(request, context) }
        pages.post("decks/:deck/suggestions/:suggestion/:review") { request, context in
            try await review(request, context)
        }
    }

    private func decksPage(_ context: CardboxRequestContext, error: String? = nil) async throws -> Response {
        let caller = try context.pageCaller()
        let (decks, allowance) = try await actions.decks(caller)
        let presets = PresetDeck.offered(besides: decks.map(\.deck.name))
        let page = DecksPage(
            decks: Self.deckRows(decks, zone: try await actions.timeZone(caller)),
            hasDecks: !decks.isEmpty,
            presets: presets.map {
                DecksPage.Preset(
                    slug: $0.slug, name: $0.name, count: $0.cards.count,
                    languages: PageText.languagePair($0.frontLanguage, $0.backLanguage), noRoom: $0.roomNote(allowance))
            },
            hasPresets: !presets.isEmpty, frontLanguages: LanguageChoice.all(selected: "es"),
            backLanguages: LanguageChoice.all(selected: "en"),
            limit: allowance.cardLimit.map { limit in
                let remaining = allowance.remainingCards ?? 0
                return DecksPage.Limit(
                    used: allowance.cardCount, limit: limit, remaining: remaining, nearLimit: remaining * 5 <= limit)
            })
        return WebPage.html(
            .decks, title: "Decks", page, context: context, error: error, status: error == nil ? .ok : .badRequest,
            live: caller.cursor)
    }

    /// The decks page's rows: decks of one name (letters of any case) say when each was made and
    /// offer to merge into the others.
    private static func deckRows(_ decks: [AccountActions.DeckSummary], zone: TimeZone) -> [DecksPage.Row] {
        let made = decks.map { PageText.time($0.deck.createdAt, zone) }
        let others = WebPageModels.namesakes(decks.map(\.deck.name))
        return decks.indices.map { index in
            let entry = decks[index]
            return DecksPage.Row(
                deck: DeckHeading(entry.deck), counts: DeckCountsView(entry.counts, entry.today),
                made: others[index].isEmpty ? nil : made[index], hasMergeTargets: !others[index].isEmpty,
                mergeTargets: others[index].map {
                    .init(id: decks[$0].deck.id.description, label: "\(decks[$0].deck.name) · made \(made[$0])")
                })
        }
    }

    private func createDeck(_ context: CardboxRequestContext) async throws -> Response {
        let form = context.formFields
        do {
            let deck = try await actions.createDeck(
                try context.pageCaller(), name: form["name"] ?? "", frontLanguage: form["front"] ?? "",
                backLanguage: form["back"] ?? "")
            return WebPage.redirect("/decks/\(deck.id)")
        } catch let error as CardboxError {
            return try await decksPage(context, error: WebPage.message(error))
        }
    }

    /// What a deck's page shows beside its records: a refusal, and the settings form's state.
    struct DeckPageExtras {
        var draft: [String: String] = [:]
        var error: String?
        /// Whether `error` is the card limit's (the page then offers the way to lift it).
        var limitReached = false
        var tab: DeckTab?
        var settings = DeckSettingsForm.Shown()
        /// A refused settings form's fields, shown again as typed.
        var typedSettings: [String: String]?

        init(refusal: CardboxError? = nil) {
            error = refusal.map(WebPage.message)
            limitReached = refusal?.attempted != nil
        }
    }

    /// A deck's page: `extras.tab` (else the query's) chooses its list; cards a page at a time
    /// (`?page=N`) through seed 001's filters (`tag`, `favorites`, `language`, `q` to search).
    func deckPage(
        _ request: Request, _ context: CardboxRequestContext, _ extras: DeckPageExtras = DeckPageExtras()
    ) async throws -> WebPage.Rendered {
        let caller = try context.pageCaller()
        let asked = ReplicaRecords.DeckPageRequest(
            deck: try Self.deckId(context).description,
            query: request.formQuery, tab: extras.tab)
        let tab = asked.tab
        let filter =
            tab.listsCards ? Self.cardFilter(asked.query, archived: tab == .archived) : nil
        let (detail, found) = try await actions.deckPage(
            caller, try Self.deckId(context), cards: filter, limit: WebPageModels.cardsPerPage,
            offset: (asked.page - 1) * WebPageModels.cardsPerPage)
        let deck = detail.deck
        var page = DeckPage(
            body: Self.deckPageModel(detail, cards: found, asked, draft: extras.draft, csrf: context.csrf),
            limitReached: extras.limitReached)
        switch tab {
        case .current: page.settings = DeckSettingsForm(deck, extras.settings, typed: extras.typedSettings)
        case .archived: break
        case .suggestions:
            page.suggestions = try await actions.suggestions(caller, in: deck.id).map(DeckPage.Suggestion.init)
        case .waiting, .rejected:
            let hidden = try await actions.hiddenSuggestions(caller, in: deck.id)
            page.waiting = hidden.waiting.map { DeckPage.Waiting(front: $0.front, back: $0.back) }
            let zone = try await actions.timeZone(caller)
            page.rejected = hidden.rejected.map {
                DeckPage.Rejected(front: $0.front, date: PageText.time($0.deletedAt, zone))
            }
        }
        return WebPage.rendered(
            .deck, title: deck.name, page, context: context, error: extras.error,
            status: extras.error == nil ? .ok : .badRequest, live: caller.cursor)
    }

    /// A deck's page body, as the browser's replica makes it offline: `found` is the card tab's page
    /// of cards, how many match and the account's tags.
    static func deckPageModel(
        _ detail: AccountActions.DeckDetail, cards found: (cards: [Card], total: Int, tags: [String])?,
        _ asked: ReplicaRecords.DeckPageRequest, draft: [String: String] = [:], csrf: String
    ) -> JSONValue {
        let deck = detail.deck
        let cards = found.map { found in
            WebPageModels.CardPage(
                rows: found.cards.map(Self.cardRow), total: found.total, page: asked.page, tags: found.tags,
                query: asked.queryItems)
        }
        return WebPageModels.deck(
            .init(
                id: deck.id.description, name: deck.name, frontLanguage: deck.frontLanguage,
                backLanguage: deck.backLanguage),
            counts: Self.counts(detail), tab: asked.tab, cards: cards, query: asked.query,
            draft: .init(front: draft["front"] ?? "", back: draft["back"] ?? "", tags: draft["tags"] ?? ""),
            justAdded: asked.justAdded, csrf: csrf)
    }

    /// Seed 001's filters of the current or archived tab, as the store takes them.
    static func cardFilter(_ query: WebPageModels.CardQuery, archived: Bool) -> CardFilter {
        CardFilter(
            archived: archived, favoritesOnly: query.favoritesOnly, tag: query.tag, language: query.language,
            search: query.search)
    }

    private static func cardRow(_ card: Card) -> WebPageModels.CardRow {
        .init(
            id: card.id.description, front: card.front, back: card.back, clozeNumber: card.clozeNumber,
            tags: card.tags, isFavorite: card.isFavorite)
    }

    private static func counts(_ detail: AccountActions.DeckDetail) -> WebPageModels.DeckCounts {
        var counts = WebPageModels.DeckCounts()
        counts.current = detail.counts.currentCards
        counts.archived = detail.counts.archivedCards
        counts.suggestions = detail.counts.visibleSuggestions
        counts.waiting = detail.counts.invisibleSuggestions
        counts.rejected = detail.counts.rejectedSuggestions
        counts.dueNow = detail.counts.dueCards
        counts.dueToday = detail.today.learning + detail.today.review
        counts.newToday = detail.today.new
        return counts
    }

    private func addCard(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let form = context.formFields
        let deckId = try Self.deckId(context)
        do {
            _ = try await actions.addCards(
                try context.pageCaller(), to: deckId,
                CardDraft(front: form["front"] ?? "", back: form["back"] ?? "", tags: Self.tags(form["tags"] ?? "")))
            // Back to the form with the cursor in Front, as Anki keeps one in the first field (no
            // fragment in the address: a browser skips autofocus when it scrolls to one).
            return WebPage.redirect("/decks/\(deckId)?added")
        } catch let error as CardboxError {
            // The person's typing stays in the form beside what went wrong (seed 001's limit message).
            var extras = DeckPageExtras(refusal: error)
            extras.draft = form
            return try await deckPage(request, context, extras).response
        }
    }

    /// Accepts, rejects or skips a suggestion; a refusal (seed 001's card limit) shows on the deck.
    private func review(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let deckId = try Self.deckId(context)
        let suggestion: SuggestionID = try Self.id(context, "suggestion")
        let review: AccountActions.SuggestionReview = try Self.choice(context, "review")
        do {
            try await actions.review(try context.pageCaller(), suggestion, in: deckId, review)
            return WebPage.redirect("/decks/\(deckId)?tab=suggestions")
        } catch let error as CardboxError {
            if case .notFound = error { throw error }
            var extras = DeckPageExtras(refusal: error)
            extras.tab = .suggestions
            return try await deckPage(request, context, extras).response
        }
    }

    /// The deck's page at the tab a form came from (the current tab when it names none it knows).
    static func tabPath(_ context: CardboxRequestContext, _ tab: String) throws -> String {
        let tab = DeckTab(rawValue: tab) ?? .current
        return "/decks/\(try deckId(context))" + (tab == .current ? "" : "?tab=\(tab.rawValue)")
    }
}
