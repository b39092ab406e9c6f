import CardboxConvergence
import CardboxCore
import CardboxStore
import CardboxSync
import Foundation
import Testing

@testable import CardboxHTTP

/// The pages the browser draws from its replica with no network (the lists, a list, a deck's study
/// page, the boards, a board) are the server's: the replica makes the same model from the same records
/// (`WebPageModels`), and mustache.js draws the server's template from it as swift-mustache does.
@Suite("Offline pages: the server's templates, the server's models")
struct OfflinePagesTests {
    /// A store with two lists (crossed-out items, quantities, descriptions with links and text a
    /// page must escape, a name with a combining mark after a quote), and a replica of it.
    static func shopping(showCrossedOut: Bool) throws -> (CardboxStore, ReplicaRecords, [ListID]) {
        let setting = ListWritesParityTests.Setting(seed: 3)
        let store = try CardboxStore.inMemory(environment: setting.environment())
        let groceries = try store.createList(name: "Groceries \"\u{301} <b>")
        let hardware = try store.createList(name: "Hardware")
        _ = try store.createList(name: "Empty")
        let milk = try store.addItem(to: groceries.id, title: "milk", description: "", quantity: 2)
        _ = try store.addItem(
            to: groceries.id, title: "bread & 'butter'", description: "see https://example.org/bread. Or not <i>")
        let eggs = try store.addItem(to: groceries.id, title: "eggs", description: "", quantity: -1)
        _ = try store.addItem(to: groceries.id, title: "tea", description: "HTTP://TEA.example, (http://x.y)")
        _ = try store.crossItem(milk.id, crossedOut: true)
        _ = try store.crossItem(eggs.id, crossedOut: true)
        _ = try store.addItem(to: hardware.id, title: "nails", description: "")
        _ = try store.setSetting("showCrossedOutItems", to: showCrossedOut ? "TRUE" : "off")
        let (replica, _) = try ListWritesParityTests.replica(of: store, at: setting.milliseconds)
        return (store, replica, try store.lists().map(\.id))
    }

    static func listsWithCounts(_ store: CardboxStore) throws -> [(list: ItemList, items: Int)] {
        try store.lists().map { ($0, try store.list($0.id, includeCrossedOut: true).items?.count ?? 0) }
    }

    @Test("the lists and each list, crossed-out items shown or not: the replica's model is the server's")
    func listModels() throws {
        for showCrossedOut in [false, true] {
            let (store, replica, lists) = try Self.shopping(showCrossedOut: showCrossedOut)
            let counts = try Self.listsWithCounts(store)
            #expect(replica.listsPage() == WebApp.listsPageModel(counts))
            for id in lists {
                let server = WebApp.listPageModel(try store.list(id), showCrossedOut: showCrossedOut, lists: counts)
                #expect(try replica.listPage(id.description) == server)
            }
            let groceries = try replica.listPage(lists[0].description)
            let html = WebTemplates.render(.listbody, groceries)
            #expect(html.contains("eggs") == showCrossedOut && html.contains("tea"))
            #expect(html.contains(#"<a href="https://example.org/bread" rel="noopener noreferrer nofollow""#))
        }
    }

    @Test("a deck's study page: the replica's model is the server's, its intervals, counts and notes")
    func studyModel() throws {
        let setting = ListWritesParityTests.Setting(seed: 4)
        let store = try CardboxStore.inMemory(environment: setting.environment())
        let deck = try store.createDeck(name: "Words <3", frontLanguage: "es", backLanguage: "en")
        // The first new card is the oldest.
        _ = try store.addWrittenCards(to: deck.id, CardDraft(front: "perro", back: "dog", notes: "a \"pet\""))
        setting.milliseconds += 1_000
        _ = try store.addWrittenCards(
            to: deck.id, CardDraft(front: "{{c1::rojo::color}} y {{c2::azul}}", back: "colores"))
        setting.milliseconds += 1_000
        let (replica, _) = try ListWritesParityTests.replica(of: store, at: setting.milliseconds)
        let now = setting.milliseconds
        let view = try replica.studyView(
            deck: deck.id.description, now: Int64(now), day: StudyWritesParityTests.day(now))
        guard case .object(let members) = view else {
            Issue.record("the study view is an object")
            return
        }
        let server = WebApp.studyPageModel(deck, try store.nextStudyCard(in: deck.id), canUndo: false)
        #expect(members["page"] == server)
        #expect(WebTemplates.render(.studybody, server).contains("a &quot;pet&quot;"))
    }

    /// A store with two boards (one card archived, one with a description), and a replica of it.
    static func boards() throws -> (CardboxStore, ReplicaRecords, [BoardID]) {
        let setting = ListWritesParityTests.Setting(seed: 5)
        let store = try CardboxStore.inMemory(environment: setting.environment())
        let trip = try store.createBoard(title: "Trip <3")
        setting.milliseconds += 1_000
        let other = try store.createBoard(title: "Another")
        let todo = try store.addColumn(to: trip.id, title: "To do")
        let doing = try store.addColumn(to: trip.id, title: "Doing")
        _ = try store.addColumn(to: trip.id, title: "Done")
        let tent = try store.addBoardCard(to: todo.id, title: "tent")
        _ = try store.addBoardCard(to: todo.id, title: "map")
        _ = try store.editBoardCard(tent.id, description: "see https://example.org/tent")
        _ = try store.setBoardCardArchived(try store.addBoardCard(to: todo.id, title: "old").id, true)
        _ = try store.addBoardCard(to: doing.id, title: "boots & 'socks'")
        let (replica, _) = try ListWritesParityTests.replica(of: store, at: setting.milliseconds)
        return (store, replica, [trip.id, other.id])
    }

    @Test("the boards and each board, archived cards shown or not: the replica's model is the server's")
    func boardModels() throws {
        let (store, replica, boards) = try Self.boards()
        #expect(replica.boardsPage() == WebApp.boardsPageModel(try store.boards()))
        for id in boards {
            for archived in [false, true] {
                let server = WebApp.boardPageModel(try store.board(id, includeArchived: true), archived: archived)
                #expect(try replica.boardPage(id.description, archived: archived) == server)
            }
        }
        let trip = WebTemplates.render(.boardbody, try replica.boardPage(boards[0].description, archived: false))
        #expect(trip.contains("tent") && !trip.contains(">old<") && trip.contains("boots &amp; &#39;socks&#39;"))
    }

    /// A store with a deck of many cards (tags in two spellings, a favorite, a cloze text, capitals
    /// beyond ASCII, one card in French, an archived one, one answered and due again), suggestions
    /// shown, waiting and rejected, and a replica of it.
    static func deck() throws -> (CardboxStore, ReplicaRecords, DeckID, UInt64) {
        let setting = ListWritesParityTests.Setting(seed: 6)
        let store = try CardboxStore.inMemory(environment: setting.environment())
        _ = try store.setPlan(.premium)
        let deck = try store.createDeck(name: "Días <3", frontLanguage: "es", backLanguage: "en")
        let dog = try store.addCards(
            to: deck.id, [CardDraft(front: "perro", back: "dog", notes: "a \"pet\"", tags: ["Animals", "pets"])])[0]
        _ = try store.setFavorite(dog.id, true)
        setting.milliseconds += 1_000
        _ = try store.addWrittenCards(
            to: deck.id, CardDraft(front: "{{c1::rojo}} y {{c2::azul}}", back: "colores", tags: ["animals "]))
        // Cards made in one millisecond list by id on every device (a real device mints them in
        // order); these ids are random, so the store's order of storing them is not the ids'.
        setting.milliseconds += 1
        let tree = try store.addCards(
            to: deck.id, ["ÁRBOL", "uno", "dos", "tres"].map { CardDraft(front: $0, back: "tree <b>") })[0]
        var french = CardChanges()
        french.frontLanguage = "fr"
        _ = try store.editCard(tree.id, french)
        for number in 1...55 {
            setting.milliseconds += 10
            _ = try store.addCards(to: deck.id, [CardDraft(front: "word \(number)", back: "palabra \(number)")])
        }
        _ = try store.setArchived(try store.addCards(to: deck.id, [CardDraft(front: "old", back: "viejo")])[0].id, true)
        _ = try store.answer(dog.id, rating: 1)
        let picture = ImageStoreContractTests.png
        _ = try store.addSuggestion(to: deck.id, SuggestionDraft(front: "gato", back: "cat"), image: picture)
        _ = try store.addSuggestion(to: deck.id, SuggestionDraft(front: "pez", back: "fish", imagePrompt: "a fish"))
        let rejected = try store.addSuggestion(
            to: deck.id, SuggestionDraft(front: "Loro ", back: "parrot"), image: picture)
        _ = try store.skipSuggestion(rejected.id)
        setting.milliseconds += 20 * 60_000
        let (replica, _) = try ListWritesParityTests.replica(of: store, at: setting.milliseconds)
        return (store, replica, deck.id, setting.milliseconds)
    }

    /// Deck pages' queries: each tab, each filter, a second page, a page past the last.
    static let deckQueries: [[(name: String, value: String)]] = [
        [], [("tab", "archived")], [("q", " árbol ")], [("q", "PET")], [("tag", "ANIMALS")], [("favorites", "")],
        [("language", "fr"), ("tab", "current")], [("page", "2")], [("q", "word"), ("page", "2"), ("added", "")],
        [("page", "99")], [("tab", "suggestions")], [("tab", "waiting")], [("tab", "rejected")], [("tab", "nonsense")],
        [("q", "no such card é&=")],
    ]

    /// The server's deck page body for `query`, from the store.
    static func serverDeckPage(
        _ store: CardboxStore, _ deck: DeckID, _ query: [(name: String, value: String)]
    ) throws -> JSONValue {
        let asked = ReplicaRecords.DeckPageRequest(deck: deck.description, query: query)
        let detail = AccountActions.DeckDetail(
            deck: try store.deck(deck), counts: try store.deckCounts(deck), today: try store.studyCounts(in: deck),
            cards: [])
        let found =
            asked.tab.listsCards
            ? try AccountActions.cardPage(
                store, deck, WebApp.cardFilter(asked.query, archived: asked.tab == .archived),
                limit: WebPageModels.cardsPerPage, offset: (asked.page - 1) * WebPageModels.cardsPerPage) : nil
        return WebApp.deckPageModel(detail, cards: found, asked, csrf: "")
    }

    @Test("a deck's page, each tab, filter and page: the replica's model is the server's")
    func deckModels() throws {
        let (store, replica, deck, now) = try Self.deck()
        for query in Self.deckQueries {
            let server = try Self.serverDeckPage(store, deck, query)
            let offline = try replica.deckPage(
                .init(deck: deck.description, query: query), now: Int64(now), day: StudyWritesParityTests.day(now))
            #expect(offline == server, "\(query)")
        }
        // Study takes the cards made in one millisecond in the same order as the list.
        let queue = try replica.studyQueue(
            deck: deck.description, now: Int64(now), day: StudyWritesParityTests.day(now), limit: 100)
        #expect(queue.map(\.id) == (try store.dueQueue(in: deck, limit: 100).map(\.id.description)))
        let knownTags = try store.tags().map(\.name)
        for card in try store.cards(in: deck) + store.cards(in: deck, filter: CardFilter(archived: true)) {
            let server = WebApp.cardEditorModel(try store.deck(deck), card, knownTags: knownTags)
            #expect(try replica.cardPage(deck: deck.description, card: card.id.description) == server)
        }
        #expect(throws: CardboxError.notFound(kind: "card", reference: deck.description)) {
            try replica.cardPage(deck: deck.description, card: deck.description)
        }
        let first = WebTemplates.render(.deckbody, try Self.serverDeckPage(store, deck, []))
        // Seed 000's counts: 62 current cards, one due again (its learning step passed), 50 a page.
        #expect(first.contains("62 cards ·\n1 due") && first.contains("page 1 of 2"))
        #expect(first.contains("cloze c2") && first.contains("tree &lt;b&gt;") && !first.contains(">old<"))
        let searched = WebTemplates.render(.deckbody, try Self.serverDeckPage(store, deck, [("q", "árbol")]))
        #expect(searched.contains("ÁRBOL") && !searched.contains("perro"))
        let tabs = WebTemplates.render(.deckbody, try Self.serverDeckPage(store, deck, [("tab", "suggestions")]))
        #expect(tabs.contains("Suggestions\n<span class=\"muted\">1</span>"))
        #expect(tabs.contains("Waiting\n<span class=\"muted\">1</span>"))
        #expect(tabs.contains("Rejected\n<span class=\"muted\">1</span>"))
    }

    @Test("mustache.js (the browser's) draws each model with the server's template as swift-mustache does")
    func sameHTMLInTheBrowser() throws {
        let (browser, folder) = try ReplicaWasmTests.node()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pages = folder.appendingPathComponent("pages.js")
        try Data(WebAssets.pagesScript.utf8).write(to: pages)
        var models: [(Template, JSONValue)] = []
        for showCrossedOut in [false, true] {
            let (store, replica, lists) = try Self.shopping(showCrossedOut: showCrossedOut)
            models.append((.listsbody, replica.listsPage()))
            for id in lists { models.append((.listbody, try replica.listPage(id.description))) }
            models.append((.listbody, WebApp.listPageModel(try store.list(lists[0]), showCrossedOut: true, lists: [])))
        }
        let next = WebPageModels.StudyCard(
            id: "c", front: "{{c1::<b>rojo</b>::hint}} & {{c2::azul}}", back: "'colores'", notes: "", clozeNumber: 1,
            imageHash: String(repeating: "ab", count: 32), intervals: ["1m", "6m", "10m", "4d"],
            remaining: (1, 2, 3))
        models.append((.studybody, WebPageModels.study(deck: .init(id: "d", name: "Días"), next: next, canUndo: true)))
        models.append((.studybody, WebPageModels.study(deck: .init(id: "d", name: "x"), next: nil, canUndo: false)))
        models.append((.listsbody, WebPageModels.lists([])))
        let (_, boardReplica, boards) = try Self.boards()
        models.append((.boardsbody, boardReplica.boardsPage()))
        models.append((.boardsbody, WebPageModels.boards([])))
        for id in boards {
            for archived in [false, true] {
                models.append((.boardbody, try boardReplica.boardPage(id.description, archived: archived)))
            }
        }
        let (deckStore, deckReplica, deck, now) = try Self.deck()
        for query in Self.deckQueries {
            models.append(
                (
                    .deckbody,
                    try deckReplica.deckPage(
                        .init(deck: deck.description, query: query), now: Int64(now),
                        day: StudyWritesParityTests.day(now))
                ))
        }
        for card in try deckStore.cards(in: deck).prefix(4) {
            models.append((.cardbody, try deckReplica.cardPage(deck: deck.description, card: card.id.description)))
        }
        var refused = try Self.serverDeckPage(deckStore, deck, [])
        if case .object(var members) = refused {
            members["draft"] = .object(["front": .string("<i>x</i>"), "back": .string("'"), "tags": .string("a, b")])
            refused = .object(members)
        }
        models.append((.deckbody, refused))
        for (template, model) in models {
            let object = try JSONSerialization.jsonObject(with: Data(model.jsonText.utf8))
            let answer = try browser.send(["pages": pages.path, "render": template.rawValue, "model": object])
            #expect(answer["html"] == .string(WebTemplates.render(template, model)), "\(template)")
        }
    }
}
