import CardboxCore
import CardboxSync
import Foundation
import GRDB
import Testing

@testable import CardboxStore

@Suite("Cloze cards in the store")
struct ClozeStoreTests {
    let text = "El {{c1::gato}} {{c2::duerme}}"

    func store(limit: Int? = nil) throws -> (CardboxStore, Deck) {
        let store = try TestStore.make()
        if let limit { _ = try store.setPlan(.free, freeCardLimit: limit) } else { _ = try store.setPlan(.premium) }
        return (store, try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en"))
    }

    @Test("a cloze text adds one card per deletion, all or none within the plan's limit")
    func add() throws {
        let (store, deck) = try store(limit: 3)
        let cards = try store.addClozeCards(to: deck.id, text: text, extra: "The cat sleeps", tags: ["animals"])
        #expect(cards.map(\.clozeNumber) == [1, 2])
        #expect(try store.cards(in: deck.id).map(\.question) == ["El [...] duerme", "El gato [...]"])
        #expect(try store.card(cards[1].id).back == "The cat sleeps" && cards[1].tags == ["animals"])
        let changes = try store.changeCount()
        #expect(throws: CardboxError.self) { try store.addClozeCards(to: deck.id, text: "{{c1::a}} {{c2::b}}") }
        #expect(try store.cardCount(in: deck.id) == 2 && store.changeCount() == changes)
    }

    @Test("editing a cloze text edits every card made from it; a new deletion adds a card")
    func editShared() throws {
        let (store, deck) = try store()
        let cards = try store.addClozeCards(to: deck.id, text: text, extra: "old")
        _ = try store.editCard(
            cards[0].id, CardChanges(front: "El {{c1::perro}} {{c2::duerme}} {{c3::aquí}}", back: "new"))
        let after = try store.clozeSiblings(of: cards[1].id)
        #expect(after.map(\.clozeNumber) == [1, 2, 3])
        #expect(after.allSatisfy { $0.front == "El {{c1::perro}} {{c2::duerme}} {{c3::aquí}}" && $0.back == "new" })
        #expect(after[1].question == "El perro [...] aquí")
        // Another deck's card with the same text is not a sibling.
        let other = try store.createDeck(name: "Other", frontLanguage: "es", backLanguage: "en")
        let stranger = try store.addClozeCards(to: other.id, text: after[0].front)
        _ = try store.editCard(after[0].id, CardChanges(back: "newer"))
        #expect(try store.card(stranger[0].id).back == "")
        #expect(try store.clozeSiblings(of: after[2].id).map(\.back) == ["newer", "newer", "newer"])
    }

    @Test("an edit that leaves the text as it was writes no sibling, and brings back no deleted card")
    func unchangedText() throws {
        let (store, deck) = try store()
        let cards = try store.addClozeCards(to: deck.id, text: text, extra: "x")
        try store.deleteCard(cards[1].id)
        let before = try store.card(cards[0].id)
        _ = try store.editCard(cards[0].id, CardChanges(front: text, back: "x", notes: "just a note"))
        #expect(try store.cards(in: deck.id).map(\.clozeNumber) == [1])
        #expect(try store.card(cards[0].id).notes == "just a note" && before.front == text)
        // A text that adds a deletion brings a card for it, not for the deleted one.
        _ = try store.editCard(cards[0].id, CardChanges(front: text + " {{c3::bien}}"))
        #expect(try store.cards(in: deck.id).map(\.clozeNumber) == [1, 3])
    }

    @Test("a card typed 'cloze' before cloze cards existed can still be edited")
    func legacyType() throws {
        let (store, deck) = try store()
        let card = try store.addCard(to: deck.id, CardDraft(front: "hola", back: "hello"))
        try store.write { tx in try tx.update(.card, id: card.id.storage, [(.cardType, "cloze")]) }
        let edited = try store.editCard(card.id, CardChanges(cardType: "cloze", notes: "kept"))
        #expect(edited.notes == "kept" && edited.cardType == "cloze" && !edited.isCloze)
    }

    @Test("a text that drops a deletion a card studies, or a type change in or out of cloze, changes nothing")
    func refusals() throws {
        let (store, deck) = try store()
        let cards = try store.addClozeCards(to: deck.id, text: text)
        let changes = try store.changeCount()
        #expect(
            throws: CardboxError.invalid(
                field: "front",
                reason:
                    "no longer has the deletion c2, which card \(cards[1].id.description.suffix(8)) studies: keep it, or delete that card first"
            )
        ) { try store.editCard(cards[0].id, CardChanges(front: "El {{c1::gato}} duerme")) }
        #expect(throws: CardboxError.self) { try store.editCard(cards[0].id, CardChanges(front: "sin nada")) }
        #expect(throws: CardboxError.self) { try store.editCard(cards[0].id, CardChanges(cardType: "basic")) }
        let basic = try store.addCard(to: deck.id, CardDraft(front: "hola", back: "hello"))
        let afterBasic = try store.changeCount()
        #expect(throws: CardboxError.self) { try store.editCard(basic.id, CardChanges(cardType: "cloze")) }
        #expect(try store.changeCount() == afterBasic && afterBasic == changes + 1)
        #expect(try store.cards(in: deck.id).map(\.front) == [text, text, "hola"])
    }

    @Test("each cloze card is scheduled on its own")
    func study() throws {
        let (store, deck) = try store()
        let cards = try store.addClozeCards(to: deck.id, text: text)
        let first = try #require(try store.nextStudyCard(in: deck.id))
        #expect(first.card.id == cards[0].id)
        _ = try store.answer(first.card.id, rating: 4)
        #expect(try store.card(cards[0].id).state == .review)
        #expect(try store.card(cards[1].id).state == .new)
    }

    @Test("a backup keeps cloze cards, their deletion numbers too")
    func backup() throws {
        let (store, deck) = try store()
        _ = try store.addClozeCards(to: deck.id, text: text, extra: "x")
        let copy = try TestStore.make()
        _ = try copy.restore(try store.snapshot())
        #expect(try copy.cards(in: deck.id).map(\.clozeNumber) == [1, 2])
        #expect(try copy.cards(in: deck.id).map(\.question) == ["El [...] duerme", "El gato [...]"])
    }

    @Test("a cloze card syncs with its deletion number, and an older row without one reads as not cloze")
    func sync() throws {
        var replicas = try Replicas()
        let deck = try replicas.a.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        _ = try replicas.a.setPlan(.premium)
        let cards = try replicas.a.addClozeCards(to: deck.id, text: text)
        try replicas.exchange()
        #expect(try replicas.b.cards(in: deck.id).map(\.clozeNumber) == [1, 2])
        #expect(try replicas.b.card(cards[1].id).question == "El gato [...]")

        let (changes, _) = try replicas.a.changes(since: .zero)
        var row = try #require(changes.rows.first { $0.entity == .card })
        row.fields["clozeNumber"] = nil
        let old = try RowChange(recordJSON: row.recordJSON, field: "a row")
        #expect(old.fields["clozeNumber"]?.value == .null)
        #expect(old.fields["clozeNumber"]?.clock == WriteClock(.zero, old.created.replicaId))
        try ChangeSet.validate(old, path: "row")
    }
}
