import CardboxCore
import Foundation
import Testing

@testable import CardboxStore

@Suite("Decks and cards in the store")
struct DeckAndCardStoreTests {
    @Test("a card takes its deck's language pair; tags are found or created case-insensitively")
    func addCard() throws {
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        let first = try store.addCard(
            to: try store.resolve("Spanish"), CardDraft(front: "hola", back: "hello", tags: ["Greeting"]))
        let second = try store.addCard(
            to: deck.id, CardDraft(front: "adiós", back: "bye", tags: [" greeting "]))
        #expect(first.frontLanguage == "es" && first.backLanguage == "en" && first.deckId == deck.id)
        #expect(second.tags == ["greeting"])
        let tags = try store.tags()
        #expect(tags.count == 1)
        #expect(tags[0].name == "Greeting" && tags[0].cardCount == 2)
        #expect(try store.card(first.id).tags == ["Greeting"])
    }

    @Test("deck names are unique per account, case-insensitively")
    func uniqueDeckNames() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        #expect(throws: CardboxError.alreadyExists(kind: "deck", name: "spanish")) {
            try store.createDeck(name: "spanish", frontLanguage: "es", backLanguage: "en")
        }
        #expect(try store.deck(try store.resolve("SPANISH")).name == "Spanish")
        #expect(throws: CardboxError.self) {
            try store.createDeck(name: "German", frontLanguage: "zz", backLanguage: "en")
        }
        #expect(try store.decks().count == 1)
    }

    @Test("the 26th card on the free plan is refused with seed 001's message, and nothing changes")
    func cardLimit() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        for index in 0..<25 {
            _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "w\(index)", back: "x"))
        }
        let changes = try store.changeCount()
        #expect(throws: CardboxError.cardLimitExceeded(currentCount: 25, limit: 25, remainingCards: 0)) {
            try store.addCard(to: try store.resolve("D"), CardDraft(front: "one more", back: "x", tags: ["new"]))
        }
        #expect(try store.rowCount("card") == 25)
        #expect(try store.rowCount("tag") == 0)
        #expect(try store.changeCount() == changes)
        _ = try store.setPlan(.premium)
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "one more", back: "x"))
        #expect(try store.allowance().cardCount == 26)
    }

    @Test("the free limit is configurable")
    func configurableLimit() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.setPlan(.free, freeCardLimit: 1)
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "a", back: "b"))
        #expect(throws: CardboxError.cardLimitExceeded(currentCount: 1, limit: 1, remainingCards: 0)) {
            try store.addCard(to: try store.resolve("D"), CardDraft(front: "c", back: "d"))
        }
    }

    @Test("a preset deck is added whole or not at all")
    func presetAllOrNothing() throws {
        let store = try TestStore.make()
        let spanish = try PresetDeck.named("spanish-basics")
        #expect(throws: CardboxError.cardLimitExceeded(currentCount: 0, limit: 25, remainingCards: 25, adding: 30)) {
            try store.createDeck(preset: spanish)
        }
        #expect(try store.decks().isEmpty)
        #expect(try store.rowCount("card") == 0)
        _ = try store.setPlan(.premium)
        let (deck, cards) = try store.createDeck(preset: spanish)
        #expect(cards.count == 30 && deck.name == "Spanish Basics")
        // One batch shares one timestamp; the cards still list in the preset's order.
        #expect(try store.cards(in: try store.resolve("Spanish Basics")).map(\.front) == spanish.cards.map(\.front))
    }

    @Test("a batch with one invalid card adds nothing and names the card")
    func batchValidation() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let drafts = [CardDraft(front: "a", back: "b"), CardDraft(front: "  ", back: "c")]
        #expect(throws: CardboxError.invalid(field: "card 2 front", reason: "cannot be empty")) {
            try store.addCards(to: try store.resolve("D"), drafts)
        }
        #expect(try store.rowCount("card") == 0)
    }

    @Test("archiving keeps the card with archivedAt; archived cards list newest first; restore clears it")
    func archiveAndRestore() throws {
        let clock = TestClock()
        let store = try TestStore.make(clock: clock)
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let a = try store.addCard(to: try store.resolve("D"), CardDraft(front: "a", back: "1"))
        let b = try store.addCard(to: try store.resolve("D"), CardDraft(front: "b", back: "2"))
        let archivedA = try store.setArchived(a.id, true)
        #expect(archivedA.isArchived && archivedA.archivedAt == clock.now)
        clock.advance(seconds: 60)
        _ = try store.setArchived(b.id, true)
        #expect(try store.cards(in: try store.resolve("D")).isEmpty)
        #expect(
            try store.cards(in: try store.resolve("D"), filter: CardFilter(archived: true)).map(\.front) == ["b", "a"])
        #expect(
            try store.cards(in: try store.resolve("D"), filter: CardFilter(archived: true), limit: 1).map(\.front) == [
                "b"
            ])
        let restored = try store.setArchived(a.id, false)
        #expect(!restored.isArchived && restored.archivedAt == nil)
        #expect(try store.cards(in: try store.resolve("D")).map(\.front) == ["a"])
        #expect(try store.deckCounts(try store.resolve("D")) == DeckCounts(currentCards: 1, archivedCards: 1))
    }

    @Test("current cards list in the order they were added")
    func creationOrder() throws {
        let clock = TestClock()
        let store = try TestStore.make(clock: clock)
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        for front in ["c", "a", "b"] {
            _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: front, back: "-"))
            clock.advance(seconds: 1)
        }
        #expect(try store.cards(in: try store.resolve("D")).map(\.front) == ["c", "a", "b"])
        #expect(try store.cards(in: try store.resolve("D"), limit: 2, offset: 1).map(\.front) == ["a", "b"])
    }

    @Test("archive-due archives exactly the due cards")
    func archiveDue() throws {
        let clock = TestClock()
        let store = try TestStore.make(clock: clock)
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let due = try store.addCard(to: try store.resolve("D"), CardDraft(front: "due", back: "-"))
        let later = try store.addCard(to: try store.resolve("D"), CardDraft(front: "later", back: "-"))
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "new", back: "-"))
        _ = try store.editCard(due.id, CardChanges(dueAt: .some(clock.now.addingTimeInterval(-60))))
        _ = try store.editCard(later.id, CardChanges(dueAt: .some(clock.now.addingTimeInterval(86_400))))
        #expect(try store.deckCounts(try store.resolve("D")).dueCards == 1)
        #expect(try store.archiveDueCards(try store.resolve("D")) == 1)
        #expect(try store.cards(in: try store.resolve("D"), filter: CardFilter(archived: true)).map(\.front) == ["due"])
        #expect(try store.cards(in: try store.resolve("D")).map(\.front) == ["later", "new"])
    }

    @Test("a due time can be cleared: the card is new again and not due")
    func dueCleared() throws {
        let clock = TestClock()
        let store = try TestStore.make(clock: clock)
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try store.addCard(to: try store.resolve("D"), CardDraft(front: "a", back: "b"))
        _ = try store.editCard(card.id, CardChanges(dueAt: .some(clock.now)))
        #expect(try store.deckCounts(try store.resolve("D")).dueCards == 1)
        let cleared = try store.editCard(card.id, CardChanges(dueAt: .some(nil)))
        #expect(cleared.dueAt == nil)
        #expect(try store.archiveDueCards(try store.resolve("D")) == 0)
    }

    @Test("archived cards count toward the limit and can be deleted for good")
    func archivedCards() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.setPlan(.free, freeCardLimit: 2)
        let a = try store.addCard(to: try store.resolve("D"), CardDraft(front: "a", back: "1"))
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "b", back: "2"))
        _ = try store.setArchived(a.id, true)
        #expect(throws: CardboxError.cardLimitExceeded(currentCount: 2, limit: 2, remainingCards: 0)) {
            try store.addCard(to: try store.resolve("D"), CardDraft(front: "c", back: "3"))
        }
        try store.deleteCard(a.id)
        #expect(try store.cards(in: try store.resolve("D"), filter: CardFilter(archived: true)).isEmpty)
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "c", back: "3"))
        #expect(try store.allowance().cardCount == 2)
    }

    @Test("preset cards take the deck's language pair, notes and tags")
    func presetLanguages() throws {
        let store = try TestStore.make()
        _ = try store.setPlan(.premium)
        let german = try PresetDeck.named("german-basics")
        let (deck, cards) = try store.createDeck(preset: german, name: "Deutsch")
        #expect(deck.frontLanguage == "de" && deck.backLanguage == "en" && deck.name == "Deutsch")
        #expect(cards.allSatisfy { $0.frontLanguage == "de" && $0.backLanguage == "en" })
        let stored = try store.cards(in: try store.resolve("Deutsch"))
        #expect(stored.map(\.notes) == german.cards.map(\.notes))
        #expect(stored.map(\.tags) == german.cards.map { $0.tags.sorted() })
    }

    @Test("tags list sorted by name, case-insensitively")
    func tagOrder() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.addCard(
            to: try store.resolve("D"), CardDraft(front: "a", back: "b", tags: ["verbs", "Adjectives", "nouns"]))
        #expect(try store.tags().map(\.name) == ["Adjectives", "nouns", "verbs"])
    }

    @Test("favorites toggle and are logged as usage events without card content")
    func favorites() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try store.addCard(to: try store.resolve("D"), CardDraft(front: "secret", back: "word", tags: ["t"]))
        #expect(try store.setFavorite(card.id).isFavorite)
        #expect(try !store.setFavorite(card.id).isFavorite)
        #expect(try store.setFavorite(card.id, true).isFavorite)
        let counts = Dictionary(uniqueKeysWithValues: try store.usageEventCounts().map { ($0.name, $0.count) })
        #expect(counts[.cardAdded] == 1 && counts[.cardFavorited] == 2 && counts[.cardUnfavorited] == 1)
        let added = try #require(try store.usageEvents().first { $0.name == .cardAdded })
        #expect(added.name == .cardAdded && added.cardLanguage == "es" && added.hasTags == true && added.tagCount == 1)
    }

    @Test("filters by language, tag and favorite combine")
    func filters() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "ES", frontLanguage: "es", backLanguage: "en")
        _ = try store.createDeck(name: "FR", frontLanguage: "fr", backLanguage: "en")
        let hola = try store.addCard(
            to: try store.resolve("ES"), CardDraft(front: "hola", back: "hi", tags: ["greeting"]))
        _ = try store.addCard(to: try store.resolve("ES"), CardDraft(front: "perro", back: "dog", tags: ["noun"]))
        let salut = try store.addCard(
            to: try store.resolve("FR"), CardDraft(front: "salut", back: "hi", tags: ["greeting"]))
        _ = try store.setFavorite(hola.id, true)
        _ = try store.setFavorite(salut.id, true)
        #expect(try store.cards(in: nil, filter: CardFilter(tag: "GREETING")).count == 2)
        #expect(
            try store.cards(in: nil, filter: CardFilter(favoritesOnly: true, language: "fr")).map(\.front) == ["salut"])
        #expect(
            try store.cards(in: try store.resolve("ES"), filter: CardFilter(favoritesOnly: true, tag: "noun")).isEmpty)
        #expect(try store.cards(in: nil, filter: CardFilter(language: "en")).count == 3)
    }

    @Test("editing replaces tags and keeps text rules")
    func edit() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try store.addCard(
            to: try store.resolve("D"), CardDraft(front: "a", back: "b", tags: ["one", "two"]))
        let edited = try store.editCard(card.id, CardChanges(back: "bee", tags: ["Two", "three"]))
        #expect(edited.back == "bee" && edited.tags == ["three", "two"])
        #expect(throws: CardboxError.self) { try store.editCard(card.id, CardChanges(front: "")) }
        #expect(try store.card(card.id).front == "a")
    }

    @Test("card images are checked by content and stored once")
    func cardImages() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try store.addCard(to: try store.resolve("D"), CardDraft(front: "a", back: "b"), image: TestStore.png)
        let other = try store.addCard(
            to: try store.resolve("D"), CardDraft(front: "c", back: "d"), image: TestStore.png)
        #expect(card.imageHash != nil && card.imageHash == other.imageHash)
        #expect(try store.rowCount("image") == 1)
        #expect(throws: CardboxError.self) {
            try store.addCard(
                to: try store.resolve("D"), CardDraft(front: "e", back: "f"), image: Data("not an image".utf8))
        }
        try store.deleteCard(card.id)
        #expect(try store.rowCount("image") == 1)
        try store.deleteCard(other.id)
        #expect(try store.rowCount("image") == 0)
    }

    @Test("delete all cards (seed 001): every card, archived ones too, or one deck's; the decks stay")
    func deleteAllCards() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.createDeck(name: "Keep", frontLanguage: "es", backLanguage: "en")
        let cards = try store.addCards(
            to: try store.resolve("D"),
            [CardDraft(front: "a", back: "b", tags: ["t"]), CardDraft(front: "c", back: "d")])
        _ = try store.setArchived(cards[1].id, true)
        _ = try store.addCard(to: try store.resolve("Keep"), CardDraft(front: "k", back: "k"))
        _ = try store.answer(cards[0].id, rating: 3)
        let sent = try store.changes().cursor
        #expect(try store.deleteAllCards(in: try store.resolve("D")) == 2)
        #expect(try store.rowCount("card") == 1)
        #expect(try store.cards(in: nil).map(\.front) == ["k"])
        #expect(try store.rowCount("cardTag") == 0)
        #expect(try store.rowCount("reviewLog") == 0)
        #expect(try store.decks().count == 2)
        // Other devices learn of it: each card's tombstone goes with the next push.
        #expect(
            Set(try store.changes(since: sent).changes.tombstones.map(\.id)).isSuperset(of: cards.map(\.id.storage)))
        #expect(try store.deleteAllCards() == 1)
        #expect(try store.rowCount("card") == 0)
        #expect(try store.decks().count == 2)
        #expect(try store.deleteAllCards() == 0)
    }

    @Test("deleting a deck deletes its cards, suggestions and rejected suggestions")
    func deleteDeck() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.createDeck(name: "Keep", frontLanguage: "es", backLanguage: "en")
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "a", back: "b", tags: ["t"]))
        _ = try store.addCard(to: try store.resolve("Keep"), CardDraft(front: "k", back: "k"))
        let suggestion = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "s", back: "t"), image: TestStore.png)
        _ = try store.addSuggestion(
            to: try store.resolve("D"), SuggestionDraft(front: "u", back: "v"), image: TestStore.jpeg)
        _ = try store.rejectSuggestion(suggestion.id)
        try store.deleteDeck(try store.resolve("D"))
        #expect(try store.rowCount("card") == 1)
        #expect(try store.rowCount("suggestion") == 0)
        #expect(try store.rowCount("rejectedSuggestion") == 0)
        #expect(try store.rowCount("cardTag") == 0)
        #expect(try store.rowCount("image") == 0)
        #expect(throws: CardboxError.notFound(kind: "deck", reference: "D")) { try store.deck(try store.resolve("D")) }
    }

    @Test("tag rename merges into the tag of the new name; delete keeps the cards")
    func tagRenameAndDelete() throws {
        let store = try TestStore.make()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "a", back: "b", tags: ["verb"]))
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "c", back: "d", tags: ["verbs"]))
        let renamed = try store.renameTag("VERB", to: "verbs")
        #expect(renamed.cardCount == 2)
        #expect(try store.tags().map(\.name) == ["verbs"])
        _ = try store.renameTag("verbs", to: "Verbs")
        #expect(try store.tags().map(\.name) == ["Verbs"])
        try store.deleteTag("verbs")
        #expect(try store.tags().isEmpty)
        #expect(try store.cards(in: try store.resolve("D")).allSatisfy { $0.tags.isEmpty })
        #expect(throws: CardboxError.notFound(kind: "tag", reference: "nope")) { try store.deleteTag("nope") }
    }

    @Test("a person's name for a record resolves to its typed id: id, unique prefix or suffix, or name")
    func resolution() throws {
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        let id = deck.id.description
        #expect(try store.resolve(String(id.prefix(6)), as: Deck.self) == deck.id)
        #expect(try store.resolve(String(id.suffix(8)), as: Deck.self) == deck.id)
        #expect(try store.resolve("spanish", as: Deck.self) == deck.id)
        // Ids made together share their time-ordered start: the shown short id is their random end.
        let first = try store.createList(name: "One")
        let second = try store.createList(name: "Two")
        #expect(first.id.storage.prefix(8) == second.id.storage.prefix(8))
        #expect(try store.list(store.resolve(String(second.id.storage.suffix(8)))).name == "Two")
        #expect(try store.resolve(id.uppercased(), as: Deck.self) == deck.id)
        #expect(throws: CardboxError.notFound(kind: "deck", reference: "Nope")) {
            try store.resolve("Nope", as: Deck.self)
        }
        // A deck's id names no list: the kind is part of the name.
        #expect(throws: CardboxError.notFound(kind: "list", reference: id)) { try store.resolve(id, as: ItemList.self) }
        _ = try store.createList(name: "Same")
        _ = try store.createList(name: "Same")
        #expect {
            try store.resolve("Same", as: ItemList.self)
        } throws: { error in
            if case CardboxError.ambiguous(kind: "list", reference: "Same", _) = error { return true }
            return false
        }
    }

    @Test("an operation given the typed id of a record that is gone, or of another account, finds nothing")
    func staleTypedID() throws {
        let store = try TestStore.make()
        let other = try TestStore.make()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        let foreign = try other.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        #expect(throws: CardboxError.notFound(kind: "deck", reference: foreign.id.description)) {
            try store.addCard(to: foreign.id, CardDraft(front: "hola", back: "hello"))
        }
        try store.deleteDeck(deck.id)
        #expect(throws: CardboxError.notFound(kind: "deck", reference: deck.id.description)) {
            try store.renameDeck(deck.id, to: "Again")
        }
        #expect(try store.rowCount("card") == 0)
    }
    @Test("a large import's first invalid card is the error, whichever thread validated it, and nothing is written")
    func importNamesFirstInvalidCard() throws {
        let store = try TestStore.make()
        _ = try store.setPlan(.premium)
        // Validated in parts on as many threads as there are cores: the two bad rows fall in
        // different parts, the later part's first.
        var cards = (0..<6_000).map {
            CardImport(deck: "Bulk", draft: CardDraft(front: "w\($0)", back: "b"), source: "line \($0 + 1)")
        }
        cards[5_500].draft.front = "  "
        cards[1_200].draft.tags = [String(repeating: "t", count: Limits.tagName.upperBound + 1)]
        #expect {
            _ = try store.importCards(cards, newDeckLanguages: ("es", "en"), onDuplicate: .skip)
        } throws: { error in
            String(describing: error).contains("line 1201: tag")
        }
        #expect(try store.decks().isEmpty)
        cards[1_200].draft.tags = []
        #expect {
            _ = try store.importCards(cards, newDeckLanguages: ("es", "en"), onDuplicate: .skip)
        } throws: { error in
            String(describing: error).contains("line 5501: front")
        }
        #expect(try store.decks().isEmpty)
    }

    @Test("an import naming one deck by its name and by its id finds duplicates across both")
    func importDeckNamedTwoWays() throws {
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        _ = try store.addCard(to: deck.id, CardDraft(front: "perro", back: "dog"))
        let rows = [
            CardImport(deck: "Spanish", draft: CardDraft(front: "gato", back: "cat"), source: "line 1"),
            CardImport(deck: deck.id.storage, draft: CardDraft(front: "gato", back: "cat (pet)"), source: "line 2"),
            CardImport(deck: deck.id.storage, draft: CardDraft(front: "perro", back: "dog (pet)"), source: "line 3"),
        ]
        let report = try store.importCards(rows, newDeckLanguages: nil, onDuplicate: .replace)
        let backs = try store.cards(in: deck.id).map { "\($0.front)=\($0.back)" }.sorted()
        #expect(backs == ["gato=cat (pet)", "perro=dog (pet)"])
        #expect(report.created["card"] == 1 && report.replaced["card"] == 2, "\(report)")
    }
}
