import CardboxAccountCopies
import CardboxCore
import CardboxExchange
import CardboxImaging
import CardboxScheduling
import CardboxServer
import CardboxStore
import Foundation

/// What a signed-in person can do from the web, once: the pages and the JSON API under `/api/v1`
/// both call these. Each works on the server's copy of the caller's account (`AccountReplicas`)
/// through the engine's own functions; a change is pushed to the sync state before it returns, so
/// every device of the account gets it.
struct AccountActions: Sendable {
    let replicas: AccountReplicas?
    let options: ServerOptions
    /// Told after a change reached the sync state (devices waiting for news wake up).
    let published: @Sendable (UUID) async -> Void

    /// A deck with its counts: cards in each list, and what is left to study today.
    struct DeckSummary: Encodable, Sendable {
        var deck: Deck
        var counts: DeckCounts
        var today: StudyCounts
    }

    /// A deck with its counts and its current cards.
    struct DeckDetail: Encodable, Sendable {
        var deck: Deck
        var counts: DeckCounts
        var today: StudyCounts
        var cards: [Card]
    }

    func decks(_ caller: Caller) async throws -> (decks: [DeckSummary], allowance: CardAllowance) {
        try await read(caller) { store in
            (
                try store.decks().map {
                    DeckSummary(deck: $0, counts: try store.deckCounts($0.id), today: try store.studyCounts(in: $0.id))
                }, try Self.serverAllowance(caller, store)
            )
        }
    }

    func createDeck(_ caller: Caller, name: String, frontLanguage: String, backLanguage: String) async throws -> Deck {
        try await write(caller) { store in
            try store.createDeck(name: name, frontLanguage: frontLanguage, backLanguage: backLanguage)
        }
    }

    /// A new deck with all of a preset's cards, or nothing if the plan's card limit would be passed
    /// (seed 001's `addPresetCards`).
    func createDeck(_ caller: Caller, preset: PresetDeck) async throws -> (deck: Deck, cards: [Card]) {
        try await write(caller) { store in try store.createDeck(preset: preset) }
    }

    /// The account's time zone: its study days', and the one its pages show times in.
    func timeZone(_ caller: Caller) async throws -> TimeZone {
        try await read(caller) { store in try store.studyTimeZone() }
    }

    /// A deck's study figures over the last `days` study days: reviews, retention, forecast.
    /// The deck's statistics, with the time zone its study days are counted in (the account's).
    func stats(_ caller: Caller, _ deck: DeckID, days: Int) async throws
        -> (deck: Deck, stats: StudyStats, timeZone: TimeZone)
    {
        try await read(caller) { store in
            (try store.deck(deck), try store.stats(in: deck, days: days), try store.studyTimeZone())
        }
    }

    /// A deck as the workload simulator starts from it, `days` ahead (see `DeckSimulation`).
    func simulation(
        _ caller: Caller, _ deck: DeckID, days: Int
    ) async throws -> (deck: Deck, simulation: DeckSimulation) {
        try await read(caller) { store in try store.simulation(of: deck, days: days) }
    }

    /// Imports `data` (a file a person uploaded) into the account: all of it or nothing. The bytes
    /// go to a private temporary file first, as an Anki package is read from disk.
    func importFile(_ caller: Caller, _ data: Data, _ options: ImportOptions) async throws -> ImportReport {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-import-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("upload")
        try data.write(to: file)
        return try await write(caller) { store in
            try store.importFile(at: file.path, named: "the uploaded file", options)
        }
    }

    /// A file of the account in `format` (a deck's cards for CSV/TSV; all lists, or one, for ListAll).
    func export(_ caller: Caller, _ format: ExportFormat, deck: DeckID?, list: ListID?) async throws -> ExportedFile {
        if format == .csv || format == .tsv, deck == nil {
            throw CardboxError.invalid(field: "deck", reason: "a CSV or TSV export is of one deck: name it")
        }
        return try await read(caller) { store in try store.export(format, deck: deck, list: list) }
    }

    /// The most cards the API lists with a deck.
    static let cardsShown = 500

    /// A deck with its counts and its current cards, `limit` of them from `offset` on.
    func deck(_ caller: Caller, _ deck: DeckID, limit: Int = cardsShown, offset: Int = 0) async throws -> DeckDetail {
        try await read(caller) { store in
            DeckDetail(
                deck: try store.deck(deck), counts: try store.deckCounts(deck), today: try store.studyCounts(in: deck),
                cards: try store.cards(in: deck, limit: limit, offset: offset))
        }
    }

    /// A deck's page in one read of the account: the deck, its counts, and (for the card tabs) a page
    /// of its cards through `filter`, how many match, and the account's tags.
    func deckPage(_ caller: Caller, _ deck: DeckID, cards filter: CardFilter?, limit: Int, offset: Int) async throws
        -> (detail: DeckDetail, cards: (cards: [Card], total: Int, tags: [String])?)
    {
        try await read(caller) { store in
            let detail = DeckDetail(
                deck: try store.deck(deck), counts: try store.deckCounts(deck), today: try store.studyCounts(in: deck),
                cards: [])
            return (detail, try filter.map { try Self.cardPage(store, deck, $0, limit: limit, offset: offset) })
        }
    }

    /// A page of a deck's cards through `filter`, how many match in all, and the account's tags.
    static func cardPage(
        _ store: CardboxStore, _ deck: DeckID, _ filter: CardFilter, limit: Int, offset: Int
    ) throws -> (cards: [Card], total: Int, tags: [String]) {
        (
            try store.cards(in: deck, filter: filter, limit: limit, offset: offset),
            try store.cardCount(in: deck, filter: filter), try store.tags().map(\.name)
        )
    }

    /// A deck's current or archived cards through seed 001's filters, `limit` from `offset` on.
    func cards(_ caller: Caller, in deck: DeckID, _ filter: CardFilter, limit: Int, offset: Int) async throws -> (
        cards: [Card], total: Int, tags: [String]
    ) {
        try await read(caller) { store in try Self.cardPage(store, deck, filter, limit: limit, offset: offset) }
    }

    /// What can be done to one card from its deck's lists (seed 000's movement flows, seed 001's favorite).
    enum CardMove: String, Sendable {
        case archive, restore, delete, favorite
    }

    func move(_ caller: Caller, _ card: CardID, in deck: DeckID, _ move: CardMove) async throws {
        try await write(caller) { store in
            _ = try Self.requireCard(card, in: deck, store)
            switch move {
            case .archive: _ = try store.setArchived(card, true)
            case .restore: _ = try store.setArchived(card, false)
            case .delete: try store.deleteCard(card)
            case .favorite: _ = try store.setFavorite(card)
            }
        }
    }

    /// A card of `deck` for its editor, with the deck and the account's tags (to pick from).
    func card(_ caller: Caller, _ card: CardID, in deck: DeckID) async throws -> (
        deck: Deck, card: Card, tags: [String]
    ) {
        try await read(caller) { store in
            let found = try Self.requireCard(card, in: deck, store)
            return (try store.deck(deck), found, try store.tags().map(\.name))
        }
    }

    /// Changes a card of `deck`: any of its fields, tags, favorite mark and image, in one transaction.
    func editCard(_ caller: Caller, _ card: CardID, in deck: DeckID, _ changes: CardChanges) async throws -> Card {
        try await write(caller) { store in
            _ = try Self.requireCard(card, in: deck, store)
            return try store.editCard(card, changes)
        }
    }

    /// The card, if it is in `deck`: an id from elsewhere is not found, as if it did not exist.
    private static func requireCard(_ card: CardID, in deck: DeckID, _ store: CardboxStore) throws -> Card {
        let found = try store.card(card)
        guard found.deckId == deck else { throw CardboxError.notFound(kind: "card", reference: card.description) }
        return found
    }

    /// Renames a deck, sets how many suggestions it keeps queued (0: none, seed 000) and, given
    /// them, its study settings (all but the fitted FSRS parameters, which stay), in one
    /// transaction: a refusal of any (a name taken) leaves all as they were.
    func configureDeck(
        _ caller: Caller, _ deck: DeckID, name: String, queuedSuggestions: Int, study: StudySettings? = nil
    ) async throws {
        try await write(caller) { store in
            let current = try store.deck(deck)
            var study = study
            // The form has no place for fitted FSRS parameters: they stay as they are.
            study?.fsrsParameters = current.study.fsrsParameters
            _ = try store.configureDeck(
                deck, name: current.name == name ? nil : name, queuedSuggestions: queuedSuggestions,
                study: study == current.study ? nil : study)
        }
    }

    /// The deck's review histories and the parameters it schedules with now (FSRS-6's defaults when
    /// it has none of its own): what a fit starts from.
    func fitInputs(_ caller: Caller, _ deck: DeckID) async throws -> (histories: [ReviewHistory], start: [Double]) {
        try await read(caller) { store in
            (
                try store.reviewHistories(in: deck),
                try store.deck(deck).study.fsrsParameters ?? FSRSParameters.defaultValues
            )
        }
    }

    /// Keeps fitted FSRS parameters (comma-separated, as the fit's page gives them) on the deck,
    /// checked against FSRS's bounds first.
    func keepParameters(_ caller: Caller, _ deck: DeckID, _ text: String) async throws {
        let parameters: FSRSParameters
        do {
            parameters = try FSRSParameters(parsing: text)
        } catch let error as SchedulingError {
            throw CardboxError.invalid(field: "parameters", reason: error.localizedDescription)
        }
        try await write(caller) { store in
            var study = try store.deck(deck).study
            study.fsrsParameters = parameters.values
            _ = try store.configureDeck(deck, name: nil, queuedSuggestions: nil, study: study)
        }
    }

    func deleteDeck(_ caller: Caller, _ deck: DeckID) async throws {
        try await write(caller) { store in try store.deleteDeck(deck) }
    }

    /// Moves a deck's cards into another deck of the account and deletes it (`mergeDeck`).
    func mergeDeck(_ caller: Caller, _ deck: DeckID, into target: DeckID) async throws -> Deck {
        try await write(caller) { store in try store.mergeDeck(deck, into: target) }
    }

    func mergeList(_ caller: Caller, _ list: ListID, into target: ListID) async throws -> ItemList {
        try await write(caller) { store in try store.mergeList(list, into: target) }
    }

    func mergeBoard(_ caller: Caller, _ board: BoardID, into target: BoardID) async throws -> Board {
        try await write(caller) { store in try store.mergeBoard(board, into: target) }
    }

    /// Seed 000's deck-wide flows, and seed 001's delete all (of the deck's cards).
    enum DeckFlow: String, Sendable {
        case archiveDue = "archive-due", clearSuggestions = "clear-suggestions", resetRejected = "reset-rejected"
        case deleteAllCards = "delete-all-cards"
    }

    /// Runs a deck-wide flow; answers how many records it moved.
    func run(_ caller: Caller, _ flow: DeckFlow, in deck: DeckID) async throws -> Int {
        try await write(caller) { store in
            switch flow {
            case .archiveDue: try store.archiveDueCards(deck)
            case .clearSuggestions: try store.clearSuggestions(deck)
            case .resetRejected: try store.resetRejectedSuggestions(deck)
            case .deleteAllCards: try store.deleteAllCards(in: deck)
            }
        }
    }

    /// A deck's suggestions not shown for review (waiting for their picture, or skipped), and its
    /// rejected ones.
    func hiddenSuggestions(_ caller: Caller, in deck: DeckID) async throws -> (
        waiting: [Suggestion], rejected: [RejectedSuggestion]
    ) {
        try await read(caller) { store in
            (
                // A skipped suggestion is hidden by its rejected record: it is listed with the rejected.
                try store.suggestions(in: deck, includeAll: true).filter { !$0.isVisible && !$0.isHidden },
                try store.rejectedSuggestions(in: deck)
            )
        }
    }

    /// Seed 000's review of suggestions: what the person does with a visible one.
    enum SuggestionReview: String, Sendable {
        case accept, reject, skip
    }

    /// A deck's visible suggestions (those with their image, not skipped), oldest first.
    func suggestions(_ caller: Caller, in deck: DeckID) async throws -> [Suggestion] {
        try await read(caller) { store in try store.suggestions(in: deck) }
    }

    /// Accepts (it becomes a card: the plan's limit applies), rejects or skips a suggestion of `deck`.
    func review(_ caller: Caller, _ suggestion: SuggestionID, in deck: DeckID, _ review: SuggestionReview)
        async throws
    {
        try await write(caller) { store in
            guard try store.suggestion(suggestion).deckId == deck else {
                throw CardboxError.notFound(kind: "suggestion", reference: suggestion.description)
            }
            switch review {
            case .accept: _ = try store.acceptSuggestion(suggestion)
            case .reject: _ = try store.rejectSuggestion(suggestion)
            case .skip: _ = try store.skipSuggestion(suggestion)
            }
        }
    }

    /// A stored image of the account (or its thumbnail), as a browser can show it.
    func image(_ caller: Caller, sha256: String, thumbnail: Bool) async throws -> (data: Data, mimeType: String) {
        try await requireReplicas().ensureImage(caller.account.id, sha256: sha256)
        return try await read(caller) { store in
            if thumbnail {
                let small = try store.imageThumbnail(sha256: sha256).thumbnail
                return (small.data, small.mimeType)
            }
            let image = try store.imageData(sha256: sha256)
            // Browsers other than Safari show no HEIC: such an image is sent as a JPEG.
            guard image.mimeType == ImageFormat.heic.mimeType else { return image }
            return (try ImageIngest.displayable(image.data), ImageFormat.jpeg.mimeType)
        }
    }

    /// Adds what a person wrote: one card, or the cloze cards of a front with deletions.
    func addCards(_ caller: Caller, to deck: DeckID, _ draft: CardDraft) async throws -> [Card] {
        try await write(caller) { store in try store.addWrittenCards(to: deck, draft) }
    }

    /// The deck and its next card to study (nil when nothing is left today).
    func nextCard(_ caller: Caller, in deck: DeckID) async throws -> (deck: Deck, next: StudyCard?) {
        try await read(caller) { store in (try store.deck(deck), try store.nextStudyCard(in: deck)) }
    }

    /// Answers a card of `deck`. The deck is what the request is about (not found: 404); a card that
    /// is not one of its cards makes the request wrong (400).
    func answer(_ caller: Caller, in deck: DeckID, card: CardID, rating: Int) async throws -> StudyAnswer {
        try await write(caller) { store in try store.answer(card, inDeck: deck, rating: rating) }
    }

    /// What a page keeps to study `deck` with no network (see `CardboxStore.offlineStudy`).
    func offlineStudy(_ caller: Caller, _ deck: DeckID) async throws -> OfflineStudy {
        try await read(caller) { store in try store.offlineStudy(in: deck) }
    }

    /// The answers a page gave with no network, applied in one write (and so one push).
    func applyGivenAnswers(_ caller: Caller, in deck: DeckID, _ answers: [GivenAnswer]) async throws
        -> [GivenAnswer.Outcome]
    {
        try await write(caller) { store in try store.applyGivenAnswers(answers, inDeck: deck) }
    }

    func undo(_ caller: Caller, in deck: DeckID) async throws -> Card {
        try await write(caller) { store in try store.undoLastAnswer(in: deck) }
    }

    func allowance(_ caller: Caller) async throws -> CardAllowance {
        try await read(caller) { store in try Self.serverAllowance(caller, store) }
    }

    /// The account's allowance under the plan the server holds for it: the copy's own record of the
    /// plan follows it only at the copy's next write.
    static func serverAllowance(_ caller: Caller, _ store: CardboxStore) throws -> CardAllowance {
        CardAllowance(
            plan: caller.account.plan, cardCount: try store.allowance().cardCount, freeCardLimit: Limits.freeCardLimit)
    }

    // MARK: Lists (seed 002)

    /// The lists in order, each with how many items it holds (crossed out or not).
    func lists(_ caller: Caller) async throws -> [(list: ItemList, items: Int)] {
        try await read(caller) { store in
            try store.lists().map { ($0, try store.list($0.id, includeCrossedOut: true).items?.count ?? 0) }
        }
    }

    func createList(_ caller: Caller, name: String) async throws -> ItemList {
        try await write(caller) { store in try store.createList(name: name) }
    }

    /// A list with its items (crossed-out ones as the `showCrossedOutItems` setting says), the
    /// setting, and the other lists (where an item can move).
    func list(_ caller: Caller, _ list: ListID) async throws -> (
        list: ItemList, showCrossedOut: Bool, lists: [(list: ItemList, items: Int)]
    ) {
        let lists = try await lists(caller)
        return try await read(caller) { store in (try store.list(list), try store.settings().showCrossedOutItems, lists)
        }
    }

    /// Attaches an image to an item of `list` (seed 002: JPEG, PNG or HEIC, at most 5 MB, 10 an item).
    func addItemImage(_ caller: Caller, _ item: ItemID, in list: ListID, data: Data) async throws -> ItemImage {
        try await write(caller) { store in
            try Self.requireItem(item, in: list, store)
            return try store.addItemImage(to: item, data: data)
        }
    }

    func removeItemImage(_ caller: Caller, _ image: ItemImageID, of item: ItemID, in list: ListID) async throws {
        try await write(caller) { store in
            try Self.requireItem(item, in: list, store)
            guard try store.itemImages(of: item).contains(where: { $0.id == image }) else {
                throw CardboxError.notFound(kind: "image", reference: image.description)
            }
            try store.removeItemImage(image)
        }
    }

    func renameList(_ caller: Caller, _ list: ListID, to name: String) async throws -> ItemList {
        try await write(caller) { store in try store.renameList(list, to: name) }
    }

    func moveList(_ caller: Caller, _ list: ListID, to position: Int) async throws -> ItemList {
        try await write(caller) { store in try store.moveList(list, to: position) }
    }

    func deleteList(_ caller: Caller, _ list: ListID) async throws {
        try await write(caller) { store in try store.deleteList(list) }
    }

    /// Seed 002's `showCrossedOutItems`, an account-wide setting; set from a list's page, only while
    /// that list (`shownOn`) exists.
    func setShowCrossedOut(_ caller: Caller, _ show: Bool, shownOn list: ListID? = nil) async throws {
        _ = try await write(caller) { store in
            if let list { _ = try store.list(list) }
            return try store.setSetting("showCrossedOutItems", to: show ? "true" : "false")
        }
    }

    /// Sets the settings given, in one write: whether lists show crossed-out items, and the
    /// person's time zone (their study days on this server's copy begin and end in it).
    func setSettings(_ caller: Caller, showCrossedOut: Bool?, timeZone: String?) async throws -> UserSettings {
        try await write(caller) { store in
            try store.setSettings(
                [("showCrossedOutItems", showCrossedOut.map { $0 ? "true" : "false" }), ("timeZone", timeZone)]
                    .compactMap { key, value in value.map { (key, $0) } })
        }
    }

    func addItem(_ caller: Caller, to list: ListID, _ draft: ItemDraft) async throws -> Item {
        try await write(caller) { store in
            try store.addItem(to: list, title: draft.title, description: draft.description, quantity: draft.quantity)
        }
    }

    /// Changes an item of `list` (an item of another list is not found there).
    func editItem(_ caller: Caller, _ item: ItemID, in list: ListID, _ changes: ItemChanges) async throws -> Item {
        try await write(caller) { store in
            try Self.requireItem(item, in: list, store)
            return try store.editItem(item, changes)
        }
    }

    func crossItem(_ caller: Caller, _ item: ItemID, in list: ListID, crossedOut: Bool?) async throws -> Item {
        try await write(caller) { store in
            try Self.requireItem(item, in: list, store)
            return try store.crossItem(item, crossedOut: crossedOut)
        }
    }

    /// Moves an item of `list` to `position` there, or into `target` (a list's move of seed 002).
    func moveItem(_ caller: Caller, _ item: ItemID, in list: ListID, to position: Int?, into target: ListID?)
        async throws -> Item
    {
        try await write(caller) { store in
            try Self.requireItem(item, in: list, store)
            return try store.moveItem(item, to: position, inList: target)
        }
    }

    func deleteItem(_ caller: Caller, _ item: ItemID, in list: ListID) async throws {
        try await write(caller) { store in
            try Self.requireItem(item, in: list, store)
            try store.deleteItem(item)
        }
    }

    private static func requireItem(_ item: ItemID, in list: ListID, _ store: CardboxStore) throws {
        guard try store.item(item).listId == list else {
            throw CardboxError.notFound(kind: "item", reference: item.description)
        }
    }

    // MARK: Boards (seed 003)

    func boards(_ caller: Caller) async throws -> [Board] {
        try await read(caller) { store in try store.boards() }
    }

    func createBoard(_ caller: Caller, title: String) async throws -> Board {
        try await write(caller) { store in try store.createBoard(title: title) }
    }

    /// A board with its columns and their cards in order (archived cards too, with `archived`).
    func board(_ caller: Caller, _ board: BoardID, archived: Bool = false) async throws -> Board {
        try await read(caller) { store in try store.board(board, includeArchived: archived) }
    }

    func renameBoard(_ caller: Caller, _ board: BoardID, to title: String) async throws {
        _ = try await write(caller) { store in try store.renameBoard(board, to: title) }
    }

    func deleteBoard(_ caller: Caller, _ board: BoardID) async throws {
        try await write(caller) { store in try store.deleteBoard(board) }
    }

    func addColumn(_ caller: Caller, to board: BoardID, title: String) async throws -> BoardColumn {
        try await write(caller) { store in try store.addColumn(to: board, title: title) }
    }

    /// Changes a column of `board` (a column of another board is not found there).
    func changeColumn(
        _ caller: Caller, _ column: ColumnID, of board: BoardID,
        _ change: @escaping @Sendable (CardboxStore) throws -> Void
    ) async throws {
        try await write(caller) { store in
            guard try store.board(board).columns?.contains(where: { $0.id == column }) == true else {
                throw CardboxError.notFound(kind: "column", reference: column.description)
            }
            try change(store)
        }
    }

    func addBoardCard(_ caller: Caller, to column: ColumnID, of board: BoardID, title: String) async throws {
        try await changeColumn(caller, column, of: board) { store in
            _ = try store.addBoardCard(to: column, title: title)
        }
    }

    /// Changes a card of `board`, archived or not (a card of another board is not found there).
    func changeBoardCard(
        _ caller: Caller, _ card: BoardCardID, of board: BoardID,
        _ change: @escaping @Sendable (CardboxStore) throws -> Void
    ) async throws {
        try await write(caller) { store in
            let cards = try store.board(board, includeArchived: true).columns?.flatMap { $0.cards ?? [] } ?? []
            guard cards.contains(where: { $0.id == card }) else {
                throw CardboxError.notFound(kind: "card", reference: card.description)
            }
            try change(store)
        }
    }

    // MARK: The account's store

    /// Reads the caller's account's copy, caught up to the cursor read with the caller's token.
    private func read<T: Sendable>(_ caller: Caller, _ body: @escaping @Sendable (CardboxStore) throws -> T)
        async throws -> T
    {
        try await requireReplicas().read(caller.account.id, atLeast: caller.cursor, body)
    }

    /// The caller's account's edition in this process (see `AccountReplicas.edition(of:)`).
    func edition(_ caller: Caller) -> Int { replicas?.edition(of: caller.account.id) ?? 0 }

    /// Changes the caller's account's copy, caught up to the cursor read with the caller's token.
    private func write<T: Sendable>(_ caller: Caller, _ body: @escaping @Sendable (CardboxStore) throws -> T)
        async throws -> T
    {
        let account = caller.account.id
        return try await requireReplicas().write(
            account, plan: caller.account.plan, now: options.now(), atLeast: caller.cursor, body,
            pushed: { await published(account) })
    }

    private func requireReplicas() throws -> AccountReplicas {
        guard let replicas else {
            throw APIError(
                .serviceUnavailable,
                "the web app needs the server's copies of accounts: start it without --cache-folder none")
        }
        return replicas
    }
}
