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
    }

    struct Preset: Encodable {
        let slug: String
        let name: String
        let count: Int
        let languages: String
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
    let frontLanguages: [LanguageChoice]
    let backLanguages: [LanguageChoice]
    let limit: Limit?
}

/// A deck's page: its counts, its five lists as tabs and the current tab's records.
struct DeckPage: Encodable {
    /// What the add-card form shows again after a refusal.
    struct Draft: Encodable {
        let front: String
        let back: String
        let tags: String

        init(_ form: [String: String]) {
            (front, back, tags) = (form["front"] ?? "", form["back"] ?? "", form["tags"] ?? "")
        }
    }

    struct Tab: Encodable {
        let name: String
        let label: String
        let count: Int
        let selected: Bool
    }

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

    let deck: DeckHeading
    let counts: DeckCountsView
    let tab: String
    let tabs: [Tab]
    let isCurrent: Bool
    let isArchived: Bool
    let isSuggestions: Bool
    let isWaiting: Bool
    let isRejected: Bool
    let hasDue: Bool
    let justAdded: Bool
    let draft: Draft
    /// Whether the refusal shown is the card limit's (the layout then offers to upgrade).
    let limitReached: Bool
    /// The current or archived tab's cards.
    var cards: CardList?
    var suggestions: [Suggestion] = [] { didSet { hasSuggestions = !suggestions.isEmpty } }
    var hasSuggestions = false
    var waiting: [Waiting] = [] { didSet { hasWaiting = !waiting.isEmpty } }
    var hasWaiting = false
    var rejected: [Rejected] = [] { didSet { hasRejected = !rejected.isEmpty } }
    var hasRejected = false
    /// The settings form, on the current tab.
    var settings: DeckSettingsForm?
}

/// A page of a deck's current or archived cards, its filter form and its pages.
struct CardList: Encodable {
    struct Filter: Encodable {
        struct Tag: Encodable {
            let name: String
            let selected: Bool
        }

        let q: String
        let favorites: Bool
        let isFiltered: Bool
        let tags: [Tag]
        let languages: [LanguageChoice]
    }

    struct Paging: Encodable {
        let page: Int
        let pages: Int
        let previous: String?
        let next: String?
    }

    let hasCards: Bool
    /// The rows, as `CardRows` writes them.
    let cardRows: String
    let filter: Filter
    let paging: Paging?
}

/// Decks, their cards and suggestions.
extension WebApp {
    /// Cards a deck's page shows at a time.
    static let cardsPerPage = 50

    /// Seed 000's five lists of a deck, as the deck page's tabs (`?tab=`).
    enum DeckTab: String, CaseIterable {
        case current, archived, suggestions, waiting, rejected

        var label: String {
            switch self {
            case .current: "Cards"
            case .archived: "Archived"
            case .suggestions: "Suggestions"
            case .waiting: "Waiting"
            case .rejected: "Rejected"
            }
        }

        func count(_ counts: DeckCounts) -> Int {
            switch self {
            case .current: counts.currentCards
            case .archived: counts.archivedCards
            case .suggestions: counts.visibleSuggestions
            case .waiting: counts.invisibleSuggestions
            case .rejected: counts.rejectedSuggestions
            }
        }
    }

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
        let page = DecksPage(
            decks: decks.map { DecksPage.Row(deck: DeckHeading($0.deck), counts: DeckCountsView($0.counts, $0.today)) },
            hasDecks: !decks.isEmpty,
            presets: PresetDeck.catalog.map {
                DecksPage.Preset(
                    slug: $0.slug, name: $0.name, count: $0.cards.count,
                    languages: PageText.languagePair($0.frontLanguage, $0.backLanguage))
            },
            frontLanguages: LanguageChoice.all(selected: "es"), backLanguages: LanguageChoice.all(selected: "en"),
            limit: allowance.cardLimit.map { limit in
                let remaining = allowance.remainingCards ?? 0
                return DecksPage.Limit(
                    used: allowance.cardCount, limit: limit, remaining: remaining, nearLimit: remaining * 5 <= limit)
            })
        return WebPage.html(
            .decks, title: "Decks", page, context: context, error: error, status: error == nil ? .ok : .badRequest,
            live: caller.cursor)
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
        let query = request.uri.queryParameters
        let tab = extras.tab ?? query["tab"].flatMap { DeckTab(rawValue: String($0)) } ?? .current
        let filter = tab == .current || tab == .archived ? Self.cardFilter(request, archived: tab == .archived) : nil
        // Past the last page shows an empty one; the bound keeps the offset from overflowing.
        let pageNumber = min(max(1, Int(query["page"].map(String.init) ?? "") ?? 1), Int.max / Self.cardsPerPage)
        let (detail, found) = try await actions.deckPage(
            caller, try Self.deckId(context), cards: filter, limit: Self.cardsPerPage,
            offset: (pageNumber - 1) * Self.cardsPerPage)
        var page = DeckPage(
            deck: DeckHeading(detail.deck), counts: DeckCountsView(detail.counts, detail.today), tab: tab.rawValue,
            tabs: DeckTab.allCases.map {
                DeckPage.Tab(name: $0.rawValue, label: $0.label, count: $0.count(detail.counts), selected: $0 == tab)
            },
            isCurrent: tab == .current, isArchived: tab == .archived, isSuggestions: tab == .suggestions,
            isWaiting: tab == .waiting, isRejected: tab == .rejected, hasDue: detail.counts.dueCards > 0,
            justAdded: query["added"] != nil, draft: DeckPage.Draft(extras.draft), limitReached: extras.limitReached)
        switch tab {
        case .current, .archived:
            if let filter, let found {
                page.cards = Self.cardList(request, detail.deck, filter, found, page: pageNumber, csrf: context.csrf)
            }
            if tab == .current { page.settings = DeckSettingsForm(detail.deck, extras.settings) }
        case .suggestions:
            page.suggestions = try await actions.suggestions(caller, in: detail.deck.id).map(DeckPage.Suggestion.init)
        case .waiting, .rejected:
            let hidden = try await actions.hiddenSuggestions(caller, in: detail.deck.id)
            page.waiting = hidden.waiting.map { DeckPage.Waiting(front: $0.front, back: $0.back) }
            let zone = try await actions.timeZone(caller)
            page.rejected = hidden.rejected.map {
                DeckPage.Rejected(front: $0.front, date: PageText.time($0.deletedAt, zone))
            }
        }
        return WebPage.rendered(
            .deck, title: detail.deck.name, page, context: context, error: extras.error,
            status: extras.error == nil ? .ok : .badRequest, live: caller.cursor)
    }

    /// Seed 001's filters of the current or archived tab, from the page's query.
    private static func cardFilter(_ request: Request, archived: Bool) -> CardFilter {
        CardFilter(
            archived: archived, favoritesOnly: request.uri.queryParameters["favorites"] != nil,
            tag: request.textQuery("tag"), language: request.textQuery("language"),
            search: request.uri.queryParameters["q"].map(String.init))
    }

    /// The current or archived tab's cards (a page of them), its filter form and its pages.
    private static func cardList(
        _ request: Request, _ deck: Deck, _ filter: CardFilter, _ found: (cards: [Card], total: Int, tags: [String]),
        page: Int, csrf: String
    ) -> CardList {
        let pages = max(1, (found.total + Self.cardsPerPage - 1) / Self.cardsPerPage)
        var paging: CardList.Paging?
        if pages > 1 {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            var items = request.uri.queryParameters.filter { $0.key != "page" }.map {
                "\($0.key)=\(String($0.value).addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
            }
            items.sort()
            let base = "/decks/\(deck.id)?" + (items + ["page="]).joined(separator: "&")
            paging = CardList.Paging(
                page: page, pages: pages, previous: page > 1 ? base + "\(page - 1)" : nil,
                next: page < pages ? base + "\(page + 1)" : nil)
        }
        return CardList(
            hasCards: !found.cards.isEmpty,
            cardRows: CardRows.html(
                found.cards, deck: deck.id, csrf: csrf, tab: filter.archived ? .archived : .current),
            filter: CardList.Filter(
                q: filter.search ?? "", favorites: filter.favoritesOnly,
                isFiltered: filter != CardFilter(archived: filter.archived),
                tags: found.tags.map { CardList.Filter.Tag(name: $0, selected: $0 == filter.tag) },
                languages: ([deck.frontLanguage] + (deck.backLanguage == deck.frontLanguage ? [] : [deck.backLanguage]))
                    .map {
                        LanguageChoice(code: $0, name: Language.name(of: $0), selected: $0 == filter.language)
                    }),
            paging: paging)
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
