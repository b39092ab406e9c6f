import CardboxAccountCopies
import CardboxCore
import CardboxExchange
import CardboxScheduling
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// The web app: pages rendered on the server that work on the account's store the server keeps
/// (`AccountReplicas`), through the same engine functions as the command line. What a page changes
/// is pushed to the sync state in the same request, so every device of the account gets it.
struct WebApp: Sendable {
    let database: any ServerDatabase
    let accounts: AccountService
    let actions: AccountActions
    let options: ServerOptions
    /// Whether the server speaks HTTPS (the session cookie is then `Secure`).
    let secure: Bool
    /// Wakes a live page when its account changes (a device's push, another tab's action).
    let news: AccountNews
    /// The pages most asked for, kept a second while nothing they show has changed.
    let pageCache = PageCache()
    /// Held while a recommended retention is worked out (one at a time on a server).
    let recommending = OneAtATime()
    /// Held while FSRS is fitted to a deck's reviews (one at a time on a server).
    let fitting = OneAtATime()

    func addRoutes(to router: Router<CardboxRequestContext>) {
        router.get(RouterPath(String(WebAssets.cssPath.dropFirst()))) { _, _ in
            Self.asset(WebAssets.css, type: "text/css; charset=utf-8")
        }
        router.get(RouterPath(String(WebAssets.javascriptPath.dropFirst()))) { _, _ in
            Self.asset(WebAssets.javascript, type: "text/javascript; charset=utf-8")
        }
        let pages = router.group().add(middleware: WebSession(accounts: accounts))
        addSessionRoutes(to: pages)
        addDeckRoutes(to: pages)
        addDeckSettingsRoutes(to: pages)
        pages.get("images/:sha256") { _, context in
            try await Self.image(actions, context, caller: try context.pageCaller(), thumbnail: false)
        }
        pages.get("images/:sha256/thumbnail") { _, context in
            try await Self.image(actions, context, caller: try context.pageCaller(), thumbnail: true)
        }
        addListRoutes(to: pages)
        addBoardRoutes(to: pages)
        addExchangeRoutes(to: pages)
        addAccountRoutes(to: pages)
    }

    /// First run, sign-up, sign in and out.
    private func addSessionRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("/") { _, context in try await home(context) }
        pages.get("setup") { request, context in try await setupPage(request, context) }
        pages.post("setup") { request, context in try await setup(request, context) }
        pages.get("signin") { _, context in
            WebPage.html(.signin, title: "Sign in", ["canSignUp": options.openSignup], context: context)
        }
        pages.get("signup") { _, context in
            try requireOpenSignup()
            return WebPage.html(.signup, title: "Create an account", context: context)
        }
        pages.post("signup") { request, context in try await signUp(request, context) }
        pages.post("signin") { request, context in try await signIn(request, context) }
        pages.post("signout") { request, context in try await signOut(request, context) }
    }

    /// Decks, their cards, study and suggestions.
    private func addDeckRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("decks") { _, context in try await decksPage(context) }
        pages.post("decks") { request, context in try await createDeck(request, context) }
        pages.get("decks/:deck") { request, context in
            try await cachedPage(request, context) { try await deckPage(request, context) }
        }
        pages.post("decks/:deck/cards") { request, context in try await addCard(request, context) }
        pages.post("presets/:preset") { request, context in
            do {
                return try await change(request, context, then: { (id: String) in "/decks/\(id)" }) { caller, _ in
                    let preset = try PresetDeck.named(context.parameters.get("preset") ?? "")
                    return try await actions.createDeck(caller, preset: preset).deck.id.description
                }
            } catch let error as CardboxError {
                return try await decksPage(context, error: WebPage.message(error))
            }
        }
        pages.get("decks/:deck/stats") { request, context in try await statsPage(request, context) }
        pages.get("decks/:deck/recommended-retention") { request, context in
            try await recommendedRetention(request, context)
        }
        pages.get("decks/:deck/study") { request, context in try await studyPage(request, context) }
        pages.post("decks/:deck/study") { request, context in try await answer(request, context) }
        pages.post("decks/:deck/study/undo") { request, context in try await undo(request, context) }
        pages.post("decks/:deck/suggestions/:suggestion/:review") { request, context in
            try await review(request, context)
        }
        pages.get("decks/:deck/cards/:card") { _, context in try await cardEditor(context) }
        pages.post("decks/:deck/cards/:card") { request, context in try await editCard(request, context) }
        pages.post("decks/:deck/cards/:card/:move") { request, context in
            try await change(request, context, then: { tab in try Self.tabPath(context, tab) }) { caller, form in
                let move: AccountActions.CardMove = try Self.choice(context, "move")
                try await actions.move(caller, try Self.id(context, "card"), in: try Self.deckId(context), move)
                return form["tab"] ?? ""
            }
        }
    }

    /// A deck's settings, its fitted FSRS parameters, and what acts on the whole deck.
    private func addDeckSettingsRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.post("decks/:deck/settings") { request, context in
            do {
                return try await change(request, context, then: { _ in "/decks/\(try Self.deckId(context))" }) {
                    caller, form in
                    guard let queued = Int(form["queuedSuggestions"] ?? "") else {
                        throw CardboxError.invalid(field: "queued suggestions", reason: "must be a whole number")
                    }
                    try await actions.configureDeck(
                        caller, try Self.deckId(context), name: form["name"] ?? "", queuedSuggestions: queued,
                        study: try Self.studySettings(form))
                }
            } catch let error as CardboxError {
                if case .notFound = error { throw error }
                return try await deckPage(request, context, refusal: error).response
            }
        }
        pages.post("decks/:deck/optimize") { request, context in try await optimize(request, context) }
        pages.post("decks/:deck/parameters") { request, context in
            do {
                return try await change(request, context, then: { _ in "/decks/\(try Self.deckId(context))" }) {
                    caller, form in
                    try await actions.keepParameters(caller, try Self.deckId(context), form["parameters"] ?? "")
                }
            } catch let error as CardboxError {
                if case .notFound = error { throw error }
                return try await deckPage(request, context, refusal: error).response
            }
        }
        pages.post("decks/:deck/delete") { request, context in
            try await change(request, context, then: { _ in "/decks" }) { caller, _ in
                try await actions.deleteDeck(caller, try Self.deckId(context))
            }
        }
        pages.post("decks/:deck/flows/:flow") { request, context in
            try await change(request, context, then: { tab in try Self.tabPath(context, tab) }) { caller, form in
                let flow: AccountActions.DeckFlow = try Self.choice(context, "flow")
                _ = try await actions.run(caller, flow, in: try Self.deckId(context))
                return form["tab"] ?? ""
            }
        }
    }

    /// The account page, its devices, and the live news pages follow.
    private func addAccountRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("account") { _, context in try await accountPage(context) }
        pages.get("events") { request, context in
            let caller = try context.pageCaller()
            let token = context.sessionToken ?? ""
            return NewsStream(database: database, news: news, pollInterval: options.newsPollInterval).response(
                account: caller.account.id, after: try request.integerQuery("after", default: 0),
                stillSignedIn: { [accounts] in try await accounts.caller(token: token) != nil })
        }
        pages.post("account/devices/:device/revoke") { request, context in try await revoke(request, context) }
    }

    /// An asset at its versioned address: it never changes there, so a browser keeps it a year.
    private static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=31536000, immutable"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: First run, sign in and out

    private func home(_ context: CardboxRequestContext) async throws -> Response {
        if context.caller != nil { return WebPage.redirect("/decks") }
        return WebPage.redirect(try await offersSetup(context) ? "/setup" : "/signin")
    }

    /// The first account is made from the browser only while the server has none, and only with
    /// the one-time setup link `cardbox serve` printed (`ServerOptions.setupToken`): whoever reached
    /// the server first would own it otherwise, and behind a reverse proxy every request seems to
    /// come from this machine.
    private func offersSetup(_ context: CardboxRequestContext) async throws -> Bool {
        guard options.setupToken != nil else { return false }
        return try await database.accounts().isEmpty
    }

    /// Whether the request carries the setup link's token.
    private func hasSetupToken(_ request: Request) -> Bool {
        guard let expected = options.setupToken, let given = request.uri.queryParameters["token"] else {
            return false
        }
        return constantTimeEqual(String(given), expected)
    }

    private func setupPage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        guard try await offersSetup(context) else { return WebPage.redirect("/signin") }
        return WebPage.html(.setup, title: "Welcome", ["hasToken": hasSetupToken(request)], context: context)
    }

    private func setup(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        try WebSession.requireSameOrigin(request)
        guard try await offersSetup(context) else { throw SetupClosed() }
        guard hasSetupToken(request) else {
            throw APIError(
                .forbidden, "the first account is made from the setup link 'cardbox serve' printed when it started")
        }
        return try await createAccount(request, context, page: .setup, title: "Welcome", first: true)
    }

    /// A new account from the form of `page` (a name not taken, a password of 8 or more
    /// characters), signed in at once; a refusal shows on the page with the name kept.
    private func createAccount(
        _ request: Request, _ context: CardboxRequestContext, page: Template, title: String, first: Bool = false
    ) async throws -> Response {
        let form = try await WebPage.form(request)
        let (user, password) = (form["user"] ?? "", form["password"] ?? "")
        do {
            if first {
                _ = try await accounts.addFirstAccount(name: user, password: password)
            } else {
                _ = try await accounts.addAccount(name: user, password: password)
            }
        } catch let error as CardboxError {
            return WebPage.html(
                page, title: title, ["user": user, "hasToken": first], context: context,
                error: WebPage.message(error), status: .badRequest)
        }
        return try await startSession(user: user, password: password, timeZone: form["timeZone"], request, context)
    }

    /// Anyone may make an account only on a server started with `--open-signup`.
    private func requireOpenSignup() throws {
        guard options.openSignup else {
            throw APIError(.forbidden, "sign-up is closed on this server; ask its administrator for an account")
        }
    }

    private func signUp(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        try WebSession.requireSameOrigin(request)
        try requireOpenSignup()
        return try await createAccount(request, context, page: .signup, title: "Create an account")
    }

    private func signIn(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        try WebSession.requireSameOrigin(request)
        let form = try await WebPage.form(request)
        let (user, password) = (form["user"] ?? "", form["password"] ?? "")
        do {
            return try await startSession(
                user: user, password: password, timeZone: form["timeZone"], request, context)
        } catch let error as CardboxError {
            let message =
                error == AccountService.wrongCredentials ? "Wrong account name or password." : WebPage.message(error)
            return WebPage.html(
                .signin, title: "Sign in", ["user": user, "canSignUp": options.openSignup], context: context,
                error: message, status: .unauthorized)
        }
    }

    /// Signs the browser in as a device of the account named, and sends it to its decks.
    /// `timeZone`, the browser's (its script fills the form's hidden field), becomes the account's
    /// where it is a zone: study days on this server's copy then begin and end in it.
    private func startSession(
        user: String, password: String, timeZone: String?, _ request: Request, _ context: CardboxRequestContext
    ) async throws -> Response {
        let signIn = try await accounts.signIn(
            name: user, password: password, deviceName: BrowserName.describe(userAgent: request.headers[.userAgent]),
            client: context.clientAddress(request, trusting: options.trustedProxies))
        if let timeZone, TimeZone(identifier: timeZone) != nil,
            let caller = try await accounts.caller(token: signIn.token)
        {
            _ = try? await actions.setSettings(caller, showCrossedOut: nil, timeZone: timeZone)
        }
        return WebPage.redirect("/decks", cookie: WebSession.cookie(signIn.token, secure: secure))
    }

    private func signOut(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        try context.checkCSRF(try await WebPage.form(request)["csrf"])
        let caller = try context.pageCaller()
        _ = try await database.revokeDevice(caller.device.id, account: caller.account.id, now: options.now())
        await news.signedOut(caller.account.id)
        return WebPage.redirect("/signin", cookie: WebSession.cookie(nil, secure: secure))
    }

    // MARK: Decks and cards

    private func decksPage(_ context: CardboxRequestContext, error: String? = nil) async throws -> Response {
        let caller = try context.pageCaller()
        let live = caller.cursor
        let (decks, allowance) = try await actions.decks(caller)
        var values: [String: Any] = [
            "presets": PresetDeck.catalog.map {
                [
                    "slug": $0.slug, "name": $0.name, "count": $0.cards.count,
                    "languages": Self.languagePair($0.frontLanguage, $0.backLanguage),
                ] as [String: Any]
            },
            "frontLanguages": Self.languageChoices(selected: "es"),
            "backLanguages": Self.languageChoices(selected: "en"),
            "hasDecks": !decks.isEmpty,
            "decks": decks.map { Self.deckValues($0.deck).merging(Self.countValues($0.counts, $0.today)) { $1 } },
        ]
        if let limit = allowance.cardLimit {
            let remaining = allowance.remainingCards ?? 0
            values["limit"] = [
                "used": allowance.cardCount, "limit": limit, "remaining": remaining,
                // Seed 001 shows what is left; it says so once a fifth or less of the plan remains.
                "nearLimit": remaining * 5 <= limit,
            ]
        }
        return WebPage.html(
            .decks, title: "Decks", values, context: context, error: error, status: error == nil ? .ok : .badRequest,
            live: live)
    }

    private func createDeck(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let form = try await WebPage.form(request)
        try context.checkCSRF(form["csrf"])
        let caller = try context.pageCaller()
        do {
            let deck = try await actions.createDeck(
                caller, name: form["name"] ?? "", frontLanguage: form["front"] ?? "", backLanguage: form["back"] ?? "")
            return WebPage.redirect("/decks/\(deck.id)")
        } catch let error as CardboxError {
            return try await decksPage(context, error: WebPage.message(error))
        }
    }

    /// The import page's Format menu, in the order it lists them.
    private static let formatLabels: KeyValuePairs<ImportFileFormat, String> = [
        .apkg: "Anki package (.apkg)", .csv: "CSV (Anki's plain text)", .tsv: "TSV (Anki's plain text)",
        .listall: "ListAll JSON", .trello: "Trello board (JSON)", .backup: "Cardbox backup",
    ]

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

    /// The page `make` makes, or the same page made a moment ago for this session from the same
    /// state of the account (see `PageCache`).
    private func cachedPage(
        _ request: Request, _ context: CardboxRequestContext, make: () async throws -> WebPage.Rendered
    ) async throws -> Response {
        let caller = try context.pageCaller()
        let key = PageCache.Key(
            account: caller.account.id, session: context.csrf, plan: caller.account.plan, cursor: caller.cursor,
            edition: actions.edition(caller), address: request.uri.description)
        return try await pageCache.page(key, make: make).response
    }

    /// A deck's page: `tab` (else the query's) chooses its list; a refusal shows as `error` (with the
    /// way to lift the card limit when it is that limit's).
    private func deckPage(
        _ request: Request, _ context: CardboxRequestContext, draft: [String: String] = [:],
        refusal: CardboxError? = nil, tab chosenTab: DeckTab? = nil, recommendation: Double? = nil,
        fit: FitResult? = nil
    ) async throws -> WebPage.Rendered {
        try await deckPage(
            request, context, draft: draft, error: refusal.map(WebPage.message),
            limitReached: refusal?.attempted != nil,
            tab: chosenTab, recommendation: recommendation, fit: fit)
    }

    /// A deck's page: its counts, its five lists as tabs, the add-card form and the current tab's
    /// records; cards a page at a time (`?page=N`) through seed 001's filters (`tag`, `favorites`,
    /// `language`, `q` to search).
    /// `error` is shown above it; `limitReached` adds the way to lift the card limit.
    private func deckPage(
        _ request: Request, _ context: CardboxRequestContext, draft: [String: String] = [:], error: String?,
        limitReached: Bool = false, tab chosenTab: DeckTab? = nil, recommendation: Double? = nil,
        fit: FitResult? = nil
    ) async throws -> WebPage.Rendered {
        let caller = try context.pageCaller()
        let live = caller.cursor
        let query = request.uri.queryParameters
        let tab = chosenTab ?? query["tab"].flatMap { DeckTab(rawValue: String($0)) } ?? .current
        let filter: CardFilter? =
            tab == .current || tab == .archived
            ? CardFilter(
                archived: tab == .archived, favoritesOnly: query["favorites"] != nil,
                tag: query["tag"].map(String.init).flatMap { $0.isEmpty ? nil : $0 },
                language: query["language"].map(String.init).flatMap { $0.isEmpty ? nil : $0 },
                search: query["q"].map(String.init)) : nil
        // Past the last page shows an empty one; the bound keeps the offset from overflowing.
        let page = min(max(1, Int(query["page"].map(String.init) ?? "") ?? 1), Int.max / Self.cardsPerPage)
        let (detail, found) = try await actions.deckPage(
            caller, try Self.deckId(context), cards: filter, limit: Self.cardsPerPage,
            offset: (page - 1) * Self.cardsPerPage)
        let deck = detail.deck
        var values = Self.countValues(detail.counts, detail.today)
        values["deck"] = Self.deckValues(deck)
        values["justAdded"] = query["added"] != nil
        values["queuedSuggestions"] = deck.queuedSuggestions
        values["study"] =
            [
                "desiredRetention": deck.study.desiredRetention, "newCardsPerDay": deck.study.newCardsPerDay,
                "reviewsPerDay": deck.study.reviewsPerDay, "learningSteps": deck.study.learningSteps,
                "relearningSteps": deck.study.relearningSteps, "maximumInterval": deck.study.maximumInterval,
                "enableFuzz": deck.study.enableFuzz,
            ] as [String: Any]
        if let recommendation {
            // Filled in, the settings open: Save keeps it.
            let shown = String(format: "%.2f", recommendation)
            values["recommendation"] = shown
            values["study"] = (values["study"] as? [String: Any] ?? [:]).merging(["desiredRetention": shown]) { $1 }
        }
        if let fit {
            values["fit"] =
                [
                    "reviews": fit.after.reviews, "improves": fit.improves,
                    "logLossBefore": String(format: "%.4f", fit.before.logLoss),
                    "logLossAfter": String(format: "%.4f", fit.after.logLoss),
                    "rmseBefore": String(format: "%.4f", fit.before.rmseBins),
                    "rmseAfter": String(format: "%.4f", fit.after.rmseBins),
                    "parameters": fit.parameters.map { String($0) }.joined(separator: ","),
                ] as [String: Any]
        }
        values["settingsOpen"] = recommendation != nil || fit != nil
        values["draft"] = draft
        values["limitReached"] = limitReached
        values["tab"] = tab.rawValue
        values["is" + tab.rawValue.prefix(1).uppercased() + tab.rawValue.dropFirst()] = true
        values["tabs"] = DeckTab.allCases.map {
            ["name": $0.rawValue, "label": $0.label, "count": $0.count(detail.counts), "selected": $0 == tab]
        }
        values["hasDue"] = detail.counts.dueCards > 0
        switch tab {
        case .current, .archived:
            if let filter, let found {
                values.merge(Self.cardValues(request, deck, filter, found, page: page, csrf: context.csrf)) { $1 }
            }
        case .suggestions:
            let suggestions = try await actions.suggestions(caller, in: deck.id)
            values["hasSuggestions"] = !suggestions.isEmpty
            values["suggestions"] = suggestions.map(Self.suggestionValues)
        case .waiting, .rejected:
            let hidden = try await actions.hiddenSuggestions(caller, in: deck.id)
            values["waiting"] = hidden.waiting.map {
                Self.suggestionValues($0).merging(["skipped": $0.isHidden]) { $1 }
            }
            values["hasWaiting"] = !hidden.waiting.isEmpty
            values["rejected"] = hidden.rejected.map { ["front": $0.front, "date": Self.dateText($0.deletedAt)] }
            values["hasRejected"] = !hidden.rejected.isEmpty
        }
        return WebPage.rendered(
            .deck, title: deck.name, values, context: context, error: error,
            status: error == nil ? .ok : .badRequest, live: live)
    }

    /// The current or archived tab's cards (a page of them), its filter form and its pages.
    private static func cardValues(
        _ request: Request, _ deck: Deck, _ filter: CardFilter, _ found: (cards: [Card], total: Int, tags: [String]),
        page: Int, csrf: String
    ) -> [String: Any] {
        var values: [String: Any] = [
            "hasCards": !found.cards.isEmpty,
            "cardRows": CardRows.html(
                found.cards, deck: deck.id, csrf: csrf, tab: filter.archived ? .archived : .current),
            "filter": [
                "q": filter.search ?? "", "favorites": filter.favoritesOnly,
                "isFiltered": filter != CardFilter(archived: filter.archived),
                "tags": found.tags.map { ["name": $0, "selected": $0 == filter.tag] },
                "languages": [deck.frontLanguage, deck.backLanguage].uniqued().map {
                    ["code": $0, "name": Language.name(of: $0), "selected": $0 == filter.language]
                },
            ] as [String: Any],
        ]
        let pages = max(1, (found.total + Self.cardsPerPage - 1) / Self.cardsPerPage)
        if pages > 1 {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            var items = request.uri.queryParameters.filter { $0.key != "page" }.map {
                "\($0.key)=\(String($0.value).addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
            }
            items.sort()
            let base = "/decks/\(deck.id)?" + (items + ["page="]).joined(separator: "&")
            values["paging"] = [
                "page": page, "pages": pages, "hasPrevious": page > 1, "previous": base + "\(page - 1)",
                "hasNext": page < pages, "next": base + "\(page + 1)",
            ]
        }
        return values
    }

    private func addCard(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let form = try await WebPage.form(request)
        try context.checkCSRF(form["csrf"])
        let caller = try context.pageCaller()
        let deckId = try Self.deckId(context)
        do {
            _ = try await actions.addCards(
                caller, to: deckId,
                CardDraft(front: form["front"] ?? "", back: form["back"] ?? "", tags: Self.tags(form["tags"] ?? "")))
            // Back to the form with the cursor in Front, as Anki keeps one in the first field (no
            // fragment in the address: a browser skips autofocus when it scrolls to one).
            return WebPage.redirect("/decks/\(deckId)?added")
        } catch let error as CardboxError {
            // The person's typing stays in the form beside what went wrong (seed 001's limit message).
            return try await deckPage(request, context, draft: form, refusal: error).response
        }
    }

    /// The card editor: every field of the card, its tags (the account's offered), its favorite mark
    /// and its picture. After a refusal, `typed` (the form as sent) fills it again beside the error.
    private func cardEditor(
        _ context: CardboxRequestContext, typed: CardForm? = nil, error: String? = nil
    ) async throws -> Response {
        let (deck, card, knownTags) = try await actions.card(
            try context.pageCaller(), try Self.id(context, "card"), in: try Self.deckId(context))
        let languages = Self.languageChoices(selected:)
        let values: [String: Any] = [
            "deck": Self.deckValues(deck),
            "card": [
                "id": card.id.description, "front": typed?.front ?? card.front, "back": typed?.back ?? card.back,
                "cardType": typed?.cardType ?? card.cardType, "notes": typed?.notes ?? card.notes,
                "isFavorite": typed.map { $0.isFavorite == "true" } ?? card.isFavorite,
                "tags": typed?.tags ?? card.tags.joined(separator: ", "), "isCloze": card.isCloze,
            ] as [String: Any],
            "frontLanguages": languages(typed?.frontLanguage ?? card.frontLanguage),
            "backLanguages": languages(typed?.backLanguage ?? card.backLanguage),
            "cardTypes": Card.suggestedTypes, "knownTags": knownTags,
            "hasImage": card.imageHash != nil, "image": card.imageHash ?? "",
        ]
        return WebPage.html(
            .card, title: "Edit \(card.front.prefix(40))", values, context: context, error: error,
            status: error == nil ? .ok : .badRequest)
    }

    private func editCard(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let form = try await CardForm.read(request)
        try context.checkCSRF(form.csrf)
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

    /// A deck's study settings from its settings form (nil when the form has none of them).
    static func studySettings(_ form: [String: String]) throws -> StudySettings? {
        guard form["desiredRetention"] != nil else { return nil }
        func number<T: LosslessStringConvertible>(_ name: String, _ label: String) throws -> T {
            guard let value = form[name].flatMap({ T($0.trimmingCharacters(in: .whitespaces)) }) else {
                throw CardboxError.invalid(field: label, reason: "must be a number")
            }
            return value
        }
        var study = StudySettings()
        study.desiredRetention = try number("desiredRetention", "desired retention")
        study.newCardsPerDay = try number("newCardsPerDay", "new cards a day")
        study.reviewsPerDay = try number("reviewsPerDay", "reviews a day")
        study.learningSteps = form["learningSteps"] ?? ""
        study.relearningSteps = form["relearningSteps"] ?? ""
        study.maximumInterval = try number("maximumInterval", "longest interval")
        study.enableFuzz = form["enableFuzz"] == "true"
        return study
    }

    /// Tags as typed in one field, separated by commas.
    static func tags(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Accepts, rejects or skips a suggestion; a refusal (seed 001's card limit) shows on the deck.
    private func review(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let form = try await WebPage.form(request)
        try context.checkCSRF(form["csrf"])
        let deckId = try Self.deckId(context)
        let suggestion: SuggestionID = try Self.id(context, "suggestion")
        let review: AccountActions.SuggestionReview = try Self.choice(context, "review")
        do {
            try await actions.review(try context.pageCaller(), suggestion, in: deckId, review)
            return WebPage.redirect("/decks/\(deckId)?tab=suggestions")
        } catch let error as CardboxError {
            if case .notFound = error { throw error }
            return try await deckPage(request, context, refusal: error, tab: .suggestions).response
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

    static func suggestionValues(_ suggestion: Suggestion) -> [String: Any] {
        var values: [String: Any] = [
            "id": suggestion.id.description, "front": suggestion.front, "back": suggestion.back,
            "context": suggestion.context,
            "category": suggestion.category.rawValue.replacingOccurrences(of: "_", with: " "),
            "hasImage": suggestion.imageHash != nil,
        ]
        if let hash = suggestion.imageHash { values["image"] = hash }
        return values
    }

    // MARK: Study

    /// Spans the stats page offers, in study days.
    static let statsSpans = [7, 30, 90, 365]

    /// A deck's study figures as charts: reviews per day, retention, and the cards coming due.
    private func statsPage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let days = Int(request.uri.queryParameters["days"].map(String.init) ?? "") ?? 30
        guard Self.statsSpans.contains(days) else {
            throw CardboxError.invalid(field: "days", reason: "must be one of 7, 30, 90 or 365")
        }
        let (deck, stats, timeZone) = try await actions.stats(
            try context.pageCaller(), try Self.deckId(context), days: days)
        let percent = { (retention: Retention) in retention.rate.map { "\(Int(($0 * 100).rounded())) %" } ?? "none yet"
        }
        let dayBars = { (counts: [DayCount], noun: String) in
            counts.map {
                // A study day starts at the account's local time (the dayStartHour setting, in its
                // time zone): its date is the local one.
                let day = $0.day.formatted(
                    Date.ISO8601FormatStyle(timeZone: timeZone).year().month().day().dateSeparator(.dash))
                return SVGChart.Bar(
                    label: String(day.dropFirst(5)), value: Double($0.count), title: "\($0.count) \(noun) \(day)")
            }
        }
        let retention = [("last \(days) days", stats.retentionRecent), ("all time", stats.retentionAllTime)].map {
            SVGChart.Bar(
                label: $0.0, value: $0.1.rate ?? 0,
                title: "\(percent($0.1)) remembered, \($0.1.passed) of \($0.1.reviews) reviews, \($0.0)")
        }
        let values: [String: Any] = [
            "deck": Self.deckValues(deck), "days": days,
            "spans": Self.statsSpans.map { ["days": $0, "selected": $0 == days] },
            "reviewTotal": stats.reviewsPerDay.reduce(0) { $0 + $1.count },
            "reviewsChart": SVGChart.bars(
                dayBars(stats.reviewsPerDay, "reviews on"), description: "Reviews on each of the last \(days) days",
                id: "reviews-chart"),
            "retentionRecent": percent(stats.retentionRecent), "retentionAll": percent(stats.retentionAllTime),
            "retentionChart": SVGChart.bars(
                retention, description: "Share of reviews remembered", maximum: 1, id: "retention-chart"),
            "forecastTotal": stats.dueForecast.reduce(0) { $0 + $1.count },
            "forecastChart": SVGChart.bars(
                dayBars(stats.dueForecast, "cards due on"), description: "Cards due on each of the next \(days) days",
                id: "forecast-chart"),
            "cardCounts": ["new", "learning", "review", "relearning", "archived"].map {
                ["name": $0, "count": stats.cardCounts[$0] ?? 0]
            },
        ]
        let workload = try await workloadValues(context, deck, days: days, timeZone: timeZone)
        return WebPage.html(
            .stats, title: "Stats: \(deck.name)", values.merging(workload) { $1 }, context: context)
    }

    /// The workload simulator's view of the next `days` at the deck's desired retention: minutes a
    /// day as a chart, and the totals.
    private func workloadValues(
        _ context: CardboxRequestContext, _ deck: Deck, days: Int, timeZone: TimeZone
    ) async throws -> [String: Any] {
        let (_, simulation) = try await actions.simulation(try context.pageCaller(), deck.id, days: days)
        let result = try await Self.offThePool {
            try simulation.simulator.simulate(
                desiredRetention: deck.study.desiredRetention, existing: simulation.existing)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = simulation.firstDay ?? calendar.startOfDay(for: options.now())
        let bars = result.seconds.enumerated().map { index, seconds in
            let day = (calendar.date(byAdding: .day, value: index, to: today) ?? today).formatted(
                Date.ISO8601FormatStyle(timeZone: timeZone).year().month().day().dateSeparator(.dash))
            let minutes = Int((seconds / 60).rounded())
            return SVGChart.Bar(
                label: String(day.dropFirst(5)), value: seconds / 60,
                title: "\(minutes) min on \(day): \(result.reviews[index]) reviews, \(result.newCards[index]) new")
        }
        return [
            "workload": [
                "reviews": result.reviews.reduce(0, +).formatted(),
                "newCards": result.newCards.reduce(0, +).formatted(),
                "hours": String(format: "%.1f", result.seconds.reduce(0, +) / 3600),
                "memorized": String(format: "%.0f", result.memorized.last ?? 0),
                "retention": String(format: "%.2f", deck.study.desiredRetention),
            ],
            "workloadChart": SVGChart.bars(
                bars, description: "Expected study minutes on each of the next \(days) days", id: "workload-chart"),
        ]
    }

    /// The deck page with the recommended desired retention filled into its settings (a year of
    /// study simulated: see `WorkloadSimulator.optimalRetention`). One at a time on a server: each
    /// is a few seconds of every core.
    private func recommendedRetention(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let (_, simulation) = try await actions.simulation(
            try context.pageCaller(), try Self.deckId(context), days: 365)
        guard recommending.take() else {
            let error = "Another recommended retention is being worked out on this server: try again in a moment."
            return try await deckPage(request, context, error: error).response
        }
        defer { recommending.release() }
        let best = try await Self.offThePool {
            try simulation.simulator.optimalRetention(existing: simulation.existing)
        }
        return try await deckPage(request, context, recommendation: best).response
    }

    /// Fits FSRS to the deck's reviews and shows the old and new fit, with a button to keep the new
    /// parameters (nothing is kept before). One fit at a time on a server.
    private func optimize(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let form = try await WebPage.form(request)
        try context.checkCSRF(form["csrf"])
        let (histories, start) = try await actions.fitInputs(try context.pageCaller(), try Self.deckId(context))
        guard fitting.take() else {
            let error = "Another fit is being worked out on this server: try again in a moment."
            return try await deckPage(request, context, error: error).response
        }
        defer { fitting.release() }
        do {
            let fit = try await Self.offThePool { try FSRSOptimizer().fit(histories, from: start) }
            return try await deckPage(request, context, fit: fit).response
        } catch let error as SchedulingError {
            let refusal = CardboxError.invalid(field: "reviews", reason: error.localizedDescription)
            return try await deckPage(request, context, refusal: refusal).response
        }
    }

    /// Runs CPU work on a thread of its own, not one of the cooperative pool's few.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// The next card of the deck; `?answered` (after an answer) offers to undo it.
    private func studyPage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let (deck, next) = try await actions.nextCard(try context.pageCaller(), in: try Self.deckId(context))
        var values: [String: Any] = [
            "deck": Self.deckValues(deck), "canUndo": request.uri.queryParameters["answered"] != nil,
        ]
        if let next {
            values["next"] =
                [
                    "card": [
                        "id": next.card.id.description, "question": WebText.cardSide(next.card, revealed: false),
                        "revealed": WebText.cardSide(next.card, revealed: true), "back": next.card.back,
                        "notes": next.card.notes, "isCloze": next.card.isCloze,
                    ] as [String: Any],
                    "hasNotes": !next.card.notes.isEmpty,
                    "remaining": [
                        "new": next.remaining.new, "learning": next.remaining.learning, "review": next.remaining.review,
                    ],
                    "buttons": StudyInterval.buttons.enumerated().map { index, label in
                        [
                            "rating": index + 1, "label": label,
                            "interval": next.nextDue[String(index + 1)].map {
                                StudyInterval.label(from: next.at, to: $0)
                            }
                                ?? "",
                        ] as [String: Any]
                    },
                ] as [String: Any]
        }
        return WebPage.html(.study, title: "Study \(deck.name)", values, context: context)
    }

    private func answer(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let form = try await WebPage.form(request)
        try context.checkCSRF(form["csrf"])
        let deckId = try Self.deckId(context)
        guard let card = form["card"].flatMap(CardID.init) else {
            throw CardboxError.invalid(field: "card", reason: "the form names no card")
        }
        _ = try await actions.answer(
            try context.pageCaller(), in: deckId, card: card, rating: Int(form["rating"] ?? "") ?? 0)
        return WebPage.redirect("/decks/\(deckId)/study?answered")
    }

    private func undo(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        try context.checkCSRF(try await WebPage.form(request)["csrf"])
        let deckId = try Self.deckId(context)
        _ = try await actions.undo(try context.pageCaller(), in: deckId)
        return WebPage.redirect("/decks/\(deckId)/study")
    }

    // MARK: Import and export

    private func addExchangeRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("exchange") { _, context in try await exchangePage(context) }
        pages.post("exchange/import") { request, context in
            let form = try await ImportForm.read(request)
            try context.checkCSRF(form.csrf)
            do {
                let report = try await actions.importFile(try context.pageCaller(), form.file, try form.options)
                return try await exchangePage(context, report: report)
            } catch let error as CardboxError {
                return try await exchangePage(context, typed: form, error: WebPage.message(error))
            }
        }
        pages.get("exchange/export/:format") { request, context in
            try await Self.download(actions, request, context, caller: try context.pageCaller())
        }
    }

    /// Import (a file and where its cards go) and export (a backup, ListAll JSON, a deck as TSV or
    /// CSV); after an import, its report. After a refusal, `typed` fills the form again (all but
    /// the file, which a browser never lets a page choose).
    private func exchangePage(
        _ context: CardboxRequestContext, report: ImportReport? = nil, typed: ImportForm? = nil, error: String? = nil
    ) async throws -> Response {
        let caller = try context.pageCaller()
        let (decks, _) = try await actions.decks(caller)
        var values: [String: Any] = [
            "decks": decks.map { ["id": $0.deck.id.description, "name": $0.deck.name] },
            "hasDecks": !decks.isEmpty,
            "typedDeck": typed?.deck ?? "",
            "frontLanguages": Self.languageChoices(selected: typed?.front ?? ""),
            "backLanguages": Self.languageChoices(selected: typed?.back ?? "en"),
            "formats": [["value": "", "label": "Tell from the file", "selected": (typed?.format ?? "").isEmpty]]
                + Self.formatLabels.map { format, label in
                    ["value": format.rawValue, "label": label, "selected": format.rawValue == typed?.format]
                },
            "duplicates": DuplicatePolicy.allCases.map {
                [
                    "value": $0.rawValue, "label": Self.duplicateLabels[$0] ?? "",
                    "selected": $0.rawValue == typed?.onDuplicate,
                ]
            },
        ]
        if let report {
            values["report"] = ["lines": report.lines.isEmpty ? ["nothing to import"] : report.lines]
        }
        return WebPage.html(
            .exchange, title: "Import and export", values, context: context, error: error,
            status: error == nil ? .ok : .badRequest)
    }

    private static let duplicateLabels: [DuplicatePolicy: String] = [
        .skip: "skip them", .replace: "replace them", .copy: "keep both",
    ]

    /// Every ISO 639-1 language by name, for a `<select>`, `selected` chosen.
    static func languageChoices(selected: String) -> [[String: Any]] {
        Language.codes.map { ["code": $0, "name": Language.name(of: $0), "selected": $0 == selected] }
            .sorted { ($0["name"] as? String ?? "") < ($1["name"] as? String ?? "") }
    }

    /// A file of the account to download: `:format` is listall, backup, csv or tsv (`?deck=` for
    /// the last two; `?list=` narrows ListAll to one list).
    static func download(
        _ actions: AccountActions, _ request: Request, _ context: CardboxRequestContext, caller: Caller
    ) async throws -> Response {
        let format: ExportFormat = try choice(context, "format")
        let deck: DeckID? = try request.textQuery("deck").map { try id($0, kind: "deck") }
        let list: ListID? = try request.textQuery("list").map { try id($0, kind: "list") }
        let file = try await actions.export(caller, format, deck: deck, list: list)
        return Response(
            status: .ok,
            headers: [
                .contentType: format.mimeType, .contentDisposition: "attachment; filename=\"\(format.fileName)\"",
                .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: file.data)))
    }

    // MARK: Lists

    private func addListRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("lists") { _, context in try await listsPage(context) }
        pages.post("lists") { request, context in
            try await change(request, context, then: { "/lists/\($0)" }) { caller, form in
                try await actions.createList(caller, name: form["name"] ?? "").id.description
            }
        }
        pages.get("lists/:list") { request, context in
            try await listPage(context, justAdded: request.uri.queryParameters["added"] != nil)
        }
        pages.post("lists/:list/move") { request, context in
            try await change(request, context, then: { _ in "/lists" }) { caller, form in
                _ = try await actions.moveList(caller, try Self.listId(context), to: try Self.position(form))
            }
        }
        pages.post("lists/:list/rename") { request, context in
            try await change(request, context, then: { _ in "/lists/\(try Self.listId(context))" }) { caller, form in
                _ = try await actions.renameList(caller, try Self.listId(context), to: form["name"] ?? "")
            }
        }
        pages.post("lists/:list/delete") { request, context in
            try await change(request, context, then: { _ in "/lists" }) { caller, _ in
                try await actions.deleteList(caller, try Self.listId(context))
            }
        }
        pages.post("lists/:list/crossed-out") { request, context in
            try await change(request, context, then: { _ in "/lists/\(try Self.listId(context))" }) { caller, form in
                try await actions.setShowCrossedOut(caller, form["show"] == "true", shownOn: try Self.listId(context))
            }
        }
        pages.post("lists/:list/items") { request, context in try await addItem(request, context) }
        let item = "lists/:list/items/:item"
        pages.post(RouterPath(item)) { request, context in
            try await change(request, context, then: { _ in "/lists/\(try Self.listId(context))" }) { caller, form in
                _ = try await actions.editItem(
                    caller, try Self.itemId(context), in: try Self.listId(context),
                    ItemChanges(
                        title: form["title"], description: form["description"],
                        quantity: try form["quantity"].map(Self.quantity)))
            }
        }
        pages.post(RouterPath(item + "/cross")) { request, context in
            try await change(request, context, then: { _ in "/lists/\(try Self.listId(context))" }) { caller, _ in
                _ = try await actions.crossItem(
                    caller, try Self.itemId(context), in: try Self.listId(context), crossedOut: nil)
            }
        }
        pages.post(RouterPath(item + "/move")) { request, context in
            try await change(request, context, then: { _ in "/lists/\(try Self.listId(context))" }) { caller, form in
                let target: ListID? = try form["list"].map { try Self.id($0, kind: "list") }
                _ = try await actions.moveItem(
                    caller, try Self.itemId(context), in: try Self.listId(context),
                    to: form["position"] == nil ? nil : try Self.position(form), into: target)
            }
        }
        pages.post(RouterPath(item + "/images")) { request, context in try await addItemImage(request, context) }
        pages.post(RouterPath(item + "/images/:image/delete")) { request, context in
            try await change(request, context, then: { _ in "/lists/\(try Self.listId(context))" }) { caller, _ in
                try await actions.removeItemImage(
                    caller, try Self.id(context, "image"), of: try Self.itemId(context), in: try Self.listId(context))
            }
        }
        pages.post(RouterPath(item + "/delete")) { request, context in
            try await change(request, context, then: { _ in "/lists/\(try Self.listId(context))" }) { caller, _ in
                try await actions.deleteItem(caller, try Self.itemId(context), in: try Self.listId(context))
            }
        }
    }

    /// The up and down arrows of the row shown at `index`, given the place among all its siblings
    /// (`orders`, one per row shown) of each row shown: a move's position counts the rows the page
    /// hides (crossed-out items, archived board cards), so a row goes to the place of the row shown
    /// before or after it. The first row has no up arrow and the last no down arrow.
    /// The template's names are `up`/`hasUp` and `down`/`hasDown` unless others are given (a
    /// board's columns move left and right).
    static func arrows(_ index: Int, of orders: [Int], back: String = "Up", forward: String = "Down")
        -> [String: Any]
    {
        var values: [String: Any] = ["has\(back)": index > 0, "has\(forward)": index + 1 < orders.count]
        if index > 0 { values[back.lowercased()] = orders[index - 1] }
        if index + 1 < orders.count { values[forward.lowercased()] = orders[index + 1] }
        return values
    }

    /// A form that changes something: its CSRF token checked, the change made, then the browser sent
    /// to `then` (given what the change returned). A refusal shows on the page it came from.
    private func change<T: Sendable>(
        _ request: Request, _ context: CardboxRequestContext, then destination: (T) throws -> String,
        _ body: (Caller, [String: String]) async throws -> T
    ) async throws -> Response {
        let form = try await WebPage.form(request)
        try context.checkCSRF(form["csrf"])
        let result = try await body(try context.pageCaller(), form)
        return WebPage.redirect(try destination(result))
    }

    private func listsPage(_ context: CardboxRequestContext, error: String? = nil) async throws -> Response {
        let caller = try context.pageCaller()
        let live = caller.cursor
        let lists = try await actions.lists(caller)
        let values: [String: Any] = [
            "hasLists": !lists.isEmpty,
            "lists": lists.enumerated().map { index, entry in
                [
                    "id": entry.list.id.description, "name": entry.list.name, "count": entry.items,
                    "order": index,
                ].merging(Self.arrows(index, of: Array(0..<lists.count)), uniquingKeysWith: { $1 })
            },
        ]
        return WebPage.html(.lists, title: "Lists", values, context: context, error: error, live: live)
    }

    /// A list's page; `justAdded` (after an item was added) puts the cursor back in New item.
    private func listPage(
        _ context: CardboxRequestContext, draft: [String: String] = [:], error: String? = nil, justAdded: Bool = false
    ) async throws -> Response {
        let caller = try context.pageCaller()
        let live = caller.cursor
        let (list, showCrossedOut, lists) = try await actions.list(caller, try Self.listId(context))
        let items = list.items ?? []
        let orders = items.map(\.orderNumber)
        let values: [String: Any] = [
            "list": ["id": list.id.description, "name": list.name], "showCrossedOut": showCrossedOut,
            "hasItems": !items.isEmpty, "draft": draft, "justAdded": justAdded,
            "isEmpty": (lists.first { $0.list.id == list.id }?.items ?? 0) == 0,
            "items": items.enumerated().map { index, item in
                Self.arrows(index, of: orders).merging(
                    [
                        "id": item.id.description, "title": item.title, "description": item.description,
                        "hasDescription": !item.description.isEmpty,
                        "descriptionHTML": WebText.linkified(item.description),
                        "quantity": item.quantity.map { String($0) } ?? "", "hasQuantity": item.quantity != nil,
                        "crossed": item.isCrossedOut, "order": item.orderNumber,
                        // Seed 002: a list shows how many images an item has; they load when its details open.
                        "hasImages": !(item.images ?? []).isEmpty,
                        "imageLabel": (item.images?.count ?? 0) == 1 ? "1 image" : "\(item.images?.count ?? 0) images",
                        "images": (item.images ?? []).map {
                            ["id": $0.id.description, "sha256": $0.sha256, "itemId": item.id.description]
                        },
                        "canAddImage": (item.images?.count ?? 0) < Limits.imagesPerItem,
                    ] as [String: Any], uniquingKeysWith: { $1 })
            },
            "hasOtherLists": lists.count > 1,
            "otherLists": lists.filter { $0.list.id != list.id }.map {
                ["id": $0.list.id.description, "name": $0.list.name]
            },
        ]
        return WebPage.html(
            .list, title: list.name, values, context: context, error: error, status: error == nil ? .ok : .badRequest,
            live: live)
    }

    private func addItem(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let form = try await WebPage.form(request)
        try context.checkCSRF(form["csrf"])
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

    /// An image chosen in an item's form (multipart/form-data: the CSRF token and the file): a refusal
    /// (not an image, too large, the eleventh) shows on the list.
    private func addItemImage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let upload = try await ImageUpload.read(request)
        try context.checkCSRF(upload.csrf)
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

    // MARK: Boards

    private func addBoardRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("boards") { _, context in try await boardsPage(context) }
        pages.post("boards") { request, context in
            try await change(request, context, then: { "/boards/\($0)" }) { caller, form in
                try await actions.createBoard(caller, title: form["title"] ?? "").id.description
            }
        }
        pages.get("boards/:board") { request, context in try await boardPage(request, context) }
        pages.post("boards/:board/rename") { request, context in
            try await change(request, context, then: Self.boardPath(context)) { caller, form in
                try await actions.renameBoard(caller, try Self.boardId(context), to: form["title"] ?? "")
            }
        }
        pages.post("boards/:board/delete") { request, context in
            try await change(request, context, then: { _ in "/boards" }) { caller, _ in
                try await actions.deleteBoard(caller, try Self.boardId(context))
            }
        }
        pages.post("boards/:board/columns") { request, context in
            try await change(request, context, then: Self.boardPath(context)) { caller, form in
                _ = try await actions.addColumn(caller, to: try Self.boardId(context), title: form["title"] ?? "")
            }
        }
        pages.post("boards/:board/columns/:column/move") { request, context in
            try await changeColumn(request, context) { store, column, form in
                _ = try store.moveColumn(column, to: try Self.position(form))
            }
        }
        pages.post("boards/:board/columns/:column/cards") { request, context in
            // Back with the cursor in the column's New card field, for the next one.
            let column: ColumnID = try Self.id(context, "column")
            return try await change(
                request, context, then: { _ in "/boards/\(try Self.boardId(context))?added=\(column)" }
            ) {
                caller, form in
                try await actions.addBoardCard(
                    caller, to: column, of: try Self.boardId(context),
                    title: form["title"] ?? "")
            }
        }
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

    /// A form that changes a column of the board in the path.
    private func changeColumn(
        _ request: Request, _ context: CardboxRequestContext,
        _ body: @escaping @Sendable (CardboxStore, ColumnID, [String: String]) throws -> Void
    ) async throws -> Response {
        let board = try Self.boardId(context)
        let column: ColumnID = try Self.id(context, "column")
        return try await change(request, context, then: { _ in "/boards/\(board)" }) { caller, form in
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
        return try await change(request, context, then: { _ in "/boards/\(board)" + (archived ? "?archived" : "") }) {
            caller, form in
            try await actions.changeBoardCard(caller, card, of: board) { store in try body(store, card, form) }
        }
    }

    private func boardsPage(_ context: CardboxRequestContext) async throws -> Response {
        let caller = try context.pageCaller()
        let live = caller.cursor
        let boards = try await actions.boards(caller)
        let values: [String: Any] = [
            "hasBoards": !boards.isEmpty,
            "boards": boards.map { ["id": $0.id.description, "title": $0.boardTitle] },
        ]
        return WebPage.html(.boards, title: "Boards", values, context: context, live: live)
    }

    /// A board: its columns side by side, each with its cards; `?archived` shows archived cards too.
    private func boardPage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let caller = try context.pageCaller()
        let live = caller.cursor
        let archived = request.uri.queryParameters["archived"] != nil
        let added = request.uri.queryParameters["added"].map(String.init)
        // Archived cards are read even when hidden: a move's position counts them (see `arrows`).
        let board = try await actions.board(caller, try Self.boardId(context), archived: true)
        let columns = board.columns ?? []
        let values: [String: Any] = [
            "board": ["id": board.id.description, "title": board.boardTitle], "archived": archived,
            "columns": columns.enumerated().map { index, column in
                let all = column.cards ?? []
                let cards = archived ? all : all.filter { !$0.isArchived }
                let orders = cards.map(\.orderNumber)
                return Self.arrows(index, of: Array(columns.indices), back: "Left", forward: "Right").merging(
                    [
                        "id": column.id.description, "title": column.listTitle, "count": cards.count,
                        "order": index, "total": all.count, "justAdded": column.id.description == added,
                        "cards": cards.enumerated().map { position, card in
                            Self.arrows(position, of: orders).merging(
                                [
                                    "id": card.id.description, "title": card.cardTitle, "column": column.id.description,
                                    "description": card.cardDescription ?? "",
                                    "hasDescription": !(card.cardDescription ?? "").isEmpty,
                                    "descriptionHTML": WebText.linkified(card.cardDescription ?? ""),
                                    "isArchived": card.isArchived, "order": card.orderNumber,
                                    "hasPrevious": index > 0,
                                    "previous": index > 0 ? columns[index - 1].id.description : "",
                                    "hasNext": index + 1 < columns.count,
                                    "next": index + 1 < columns.count ? columns[index + 1].id.description : "",
                                ] as [String: Any], uniquingKeysWith: { $1 })
                        },
                    ] as [String: Any], uniquingKeysWith: { $1 })
            },
        ]
        return WebPage.html(.board, title: board.boardTitle, values, context: context, live: live)
    }

    // MARK: Account

    private func accountPage(_ context: CardboxRequestContext) async throws -> Response {
        let caller = try context.pageCaller()
        let live = caller.cursor
        let devices = try await database.devices(account: caller.account.id)
        let syncs = try await database.syncStatus(account: caller.account.id)
        let allowance = try await actions.allowance(caller)
        let zone = try await actions.timeZone(caller)
        let planText =
            allowance.cardLimit.map { "Free plan: \(allowance.cardCount) of \($0) cards used." }
            ?? "Premium plan: unlimited cards (\(allowance.cardCount) so far)."
        let values: [String: Any] = [
            "account": ["name": caller.account.name], "planText": planText, "free": allowance.cardLimit != nil,
            "devices": devices.map { device in
                var values: [String: Any] = [
                    "id": device.id.uuidString.lowercased(), "name": device.name,
                    "current": device.id == caller.device.id, "revoked": device.revokedAt != nil,
                    "lastSeen": device.lastSeenAt.map { Self.timeText($0, zone) } ?? "never",
                ]
                if let sync = syncs[device.id] { values["sync"] = Self.syncValues(sync, cursor: live, zone: zone) }
                return values
            },
        ]
        return WebPage.html(.account, title: "Account", values, context: context, live: live)
    }

    /// A device's last sync: when, whether changes made since wait for it, and why its last push
    /// was refused, if it was.
    static func syncValues(_ sync: DeviceSyncStatus, cursor: Int64, zone: TimeZone) -> [String: Any] {
        var values: [String: Any] = [
            "last": timeText(sync.lastSyncAt, zone), "upToDate": (sync.pulledCursor ?? -1) >= cursor,
            "hasError": sync.lastError != nil,
        ]
        if let error = sync.lastError {
            values["error"] = error
            values["errorAt"] = sync.lastErrorAt.map { timeText($0, zone) } ?? ""
        }
        return values
    }

    private func revoke(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        try context.checkCSRF(try await WebPage.form(request)["csrf"])
        let caller = try context.pageCaller()
        guard let device = context.parameters.get("device").flatMap(UUID.init(uuidString:)),
            try await database.revokeDevice(device, account: caller.account.id, now: options.now())
        else { throw CardboxError.notFound(kind: "device", reference: context.parameters.get("device") ?? "") }
        await news.signedOut(caller.account.id)
        return WebPage.redirect("/account")
    }

    // MARK: Values for templates

    static func deckId(_ context: CardboxRequestContext) throws -> DeckID { try id(context, "deck") }

    /// The deck's page at the tab a form came from (the current tab when it names none it knows).
    static func tabPath(_ context: CardboxRequestContext, _ tab: String) throws -> String {
        let tab = DeckTab(rawValue: tab) ?? .current
        return "/decks/\(try deckId(context))" + (tab == .current ? "" : "?tab=\(tab.rawValue)")
    }

    static func listId(_ context: CardboxRequestContext) throws -> ListID { try id(context, "list") }

    static func boardId(_ context: CardboxRequestContext) throws -> BoardID { try id(context, "board") }

    /// Where a board's forms send the browser back to: the board.
    static func boardPath<Result>(_ context: CardboxRequestContext) -> (Result) throws -> String {
        { _ in "/boards/\(try boardId(context))" }
    }

    /// The id a path parameter names, or not found (the kind of record is the parameter's name).
    static func id<Record>(_ context: CardboxRequestContext, _ parameter: String) throws -> TypedID<Record> {
        try id(context.parameters.get(parameter) ?? "", kind: parameter)
    }

    /// The record `text` names (a form's, a body's or a query's id): one that cannot be is not found.
    static func id<Record>(_ text: String, kind: String) throws -> TypedID<Record> {
        guard let id = TypedID<Record>(text) else { throw CardboxError.notFound(kind: kind, reference: text) }
        return id
    }

    /// The choice a path parameter names from a closed set (an action's name), or not found.
    static func choice<Choice: RawRepresentable>(_ context: CardboxRequestContext, _ parameter: String) throws -> Choice
    where Choice.RawValue == String {
        guard let text = context.parameters.get(parameter), let choice = Choice(rawValue: text) else {
            throw CardboxError.notFound(kind: parameter, reference: context.parameters.get(parameter) ?? "")
        }
        return choice
    }

    /// One of a form's or query's fixed choices (an export's format, an import's duplicate policy).
    static func choice<Choice: RawRepresentable & CaseIterable>(_ text: String, field: String) throws -> Choice
    where Choice.RawValue == String {
        guard let choice = Choice(rawValue: text) else {
            let known = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw CardboxError.invalid(field: field, reason: "'\(text)' is not one of \(known)")
        }
        return choice
    }

    static func itemId(_ context: CardboxRequestContext) throws -> ItemID { try id(context, "item") }

    /// A 0-based position from a form.
    static func position(_ form: [String: String]) throws -> Int {
        guard let text = form["position"], let position = Int(text), position >= 0 else {
            throw CardboxError.invalid(field: "position", reason: "must be 0 or more")
        }
        return position
    }

    /// An item's quantity as typed: empty clears it; otherwise the engine's rule (any 32-bit integer).
    static func quantity(_ text: String) throws -> Int32? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : try Validate.quantity(text: trimmed)
    }

    private static func deckValues(_ deck: Deck) -> [String: Any] {
        [
            "id": deck.id.description, "name": deck.name, "frontLanguage": deck.frontLanguage,
            "backLanguage": deck.backLanguage, "languages": languagePair(deck.frontLanguage, deck.backLanguage),
        ]
    }

    /// A deck's languages as every page shows them: "Spanish → English".
    static func languagePair(_ front: String, _ back: String) -> String {
        "\(Language.name(of: front)) → \(Language.name(of: back))"
    }

    /// A deck's size, and what is left to study today: due (learning and review) and new cards.
    private static func countValues(_ counts: DeckCounts, _ today: StudyCounts) -> [String: Any] {
        let due = today.learning + today.review
        return ["current": counts.currentCards, "due": due, "new": today.new, "canStudy": due + today.new > 0]
    }

    /// A moment as people read it, in the account's zone (the browser's, given at sign-in):
    /// "26 Nov 2026, 14:32".
    static func timeText(_ date: Date, _ zone: TimeZone) -> String {
        date.formatted(
            Date.VerbatimFormatStyle(
                format: """
                    \(day: .defaultDigits) \(month: .abbreviated) \(year: .defaultDigits), \
                    \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)
                    """, locale: Locale(identifier: "en_GB"), timeZone: zone, calendar: Calendar(identifier: .gregorian)
            ))
    }

    private static func dateText(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false))
    }
}

/// A slot for work the server does one at a time: taken, or refused while taken.
final class OneAtATime: Sendable {
    private let taken = Mutex(false)

    /// Whether the slot was free (it is now taken).
    func take() -> Bool {
        taken.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }

    func release() { taken.withLock { $0 = false } }
}
