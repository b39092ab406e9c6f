import CardboxCore
import CardboxSync
import Foundation
import Testing

@testable import CardboxStore

/// Two devices that each made "Spanish" (a deck, a list, a board) before they first synced: one is
/// merged into the other, keeping every record's id, history and schedule, and every device ends
/// with the same one.
@Suite("Merging a deck, a list or a board into another")
struct MergeRecordsTests {
    @Test("a deck's cards move with their reviews and schedules; the other devices follow")
    func decks() throws {
        var replicas = try Replicas()
        let (a, b) = (replicas.a, replicas.b)
        let mine = try a.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        let theirs = try b.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        let perro = try b.addCard(to: theirs.id, CardDraft(front: "perro", back: "dog"))
        _ = try b.addWrittenCards(to: theirs.id, CardDraft(front: "El {{c1::gato}} {{c2::duerme}}", back: ""))
        _ = try b.answer(perro.id, rating: 3)
        let archived = try b.addCard(to: theirs.id, CardDraft(front: "casa", back: "house"))
        _ = try b.setArchived(archived.id, true)
        _ = try a.addCard(to: mine.id, CardDraft(front: "hola", back: "hello"))
        try replicas.exchange()
        #expect(try a.decks().map(\.name) == ["Spanish", "Spanish"])
        let schedule = try a.card(perro.id)

        let merged = try a.mergeDeck(theirs.id, into: mine.id)
        #expect(merged.id == mine.id)
        #expect(try a.decks().map(\.id) == [mine.id])
        let counts = try a.deckCounts(mine.id)
        #expect(counts.currentCards == 4 && counts.archivedCards == 1)
        // Made anew in the deck kept, with its schedule, its reviews and its place among the cards.
        let cards = try a.cards(in: mine.id) + a.cards(in: mine.id, filter: CardFilter(archived: true))
        let moved = try #require(cards.first { $0.front == "perro" })
        #expect(moved.id != perro.id && moved.dueAt == schedule.dueAt && moved.reps == 1)
        #expect(moved.stability == schedule.stability && moved.createdAt == schedule.createdAt)
        #expect(try a.reviewLog(in: mine.id).map(\.cardId) == [moved.id])
        #expect(cards.filter { $0.clozeNumber != nil }.count == 2)
        #expect(try a.allowance().cardCount == 5)
        #expect(throws: CardboxError.self) { try a.mergeDeck(mine.id, into: mine.id) }

        try replicas.exchange()
        #expect(try b.decks().map(\.id) == [mine.id] && b.deckCounts(mine.id) == counts)
        #expect(try b.reviewLog(in: mine.id).map(\.cardId) == [moved.id])
        #expect(try a.canonicalDump() == b.canonicalDump())
    }

    @Test("a list's items go to the other's end in order, crossed out or not")
    func lists() throws {
        var replicas = try Replicas()
        let (a, b) = (replicas.a, replicas.b)
        let mine = try a.createList(name: "Groceries")
        let theirs = try b.createList(name: "Groceries")
        _ = try a.addItem(to: mine.id, title: "Milk")
        for title in ["Bread", "Eggs"] { _ = try b.addItem(to: theirs.id, title: title) }
        let eggs = try #require(try b.list(theirs.id, includeCrossedOut: true).items?.last)
        _ = try b.crossItem(eggs.id, crossedOut: true)
        try replicas.exchange()
        let merged = try a.mergeList(theirs.id, into: mine.id)
        let items = try #require(try a.list(merged.id, includeCrossedOut: true).items)
        #expect(items.map(\.title) == ["Milk", "Bread", "Eggs"] && items.map(\.isCrossedOut) == [false, false, true])
        #expect(try a.lists().map(\.id) == [mine.id])
        try replicas.exchange()
        #expect(try a.canonicalDump() == b.canonicalDump())
    }

    @Test("a board's column of a title the other has gives it its cards; another column moves whole")
    func boards() throws {
        var replicas = try Replicas()
        let (a, b) = (replicas.a, replicas.b)
        let mine = try a.createBoard(title: "Home")
        let theirs = try b.createBoard(title: "Home")
        let todo = try a.addColumn(to: mine.id, title: "To do")
        _ = try a.addBoardCard(to: todo.id, title: "Paint")
        let theirTodo = try b.addColumn(to: theirs.id, title: "To do")
        _ = try b.addBoardCard(to: theirTodo.id, title: "Mow")
        let later = try b.addColumn(to: theirs.id, title: "Later")
        _ = try b.addBoardCard(to: later.id, title: "Roof")
        try replicas.exchange()
        let merged = try a.mergeBoard(theirs.id, into: mine.id)
        let columns = try #require(try a.board(merged.id).columns)
        #expect(columns.map(\.listTitle) == ["To do", "Later"])
        #expect(columns.map { ($0.cards ?? []).map(\.cardTitle) } == [["Paint", "Mow"], ["Roof"]])
        #expect(try a.boards().map(\.id) == [mine.id])
        try replicas.exchange()
        #expect(try a.canonicalDump() == b.canonicalDump())
    }
}
