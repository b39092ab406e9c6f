import CardboxCore
import CardboxSync
import Foundation
import Testing

@testable import CardboxStore

@Suite("Reading changes a page at a time")
struct ChangePagesTests {
    /// A store with rows of several entities, tombstones and rows held aside for a missing parent.
    private func busyStore() throws -> (store: CardboxStore, replicas: Replicas) {
        var replicas = try Replicas()
        let (a, b) = (replicas.a, replicas.b)
        _ = try a.createList(name: "Elsewhere")
        _ = try a.addItems(to: try a.resolve("Elsewhere"), (0..<4).map { ItemDraft(title: "held \($0)") })
        let fromA = try replicas.send(0)
        // The items come without their list: b holds them aside.
        try b.apply(
            ChangeSet(
                accountId: fromA.accountId, replicaId: fromA.replicaId, rows: fromA.rows.filter { $0.entity == .item }))
        let deck = try b.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        let cards = try b.addCards(
            to: deck.id, (0..<23).map { CardDraft(front: "word \($0)", back: "w", tags: ["tag \($0 % 3)"]) })
        for card in cards.prefix(6) { try b.deleteCard(card.id) }
        let list = try b.createList(name: "Groceries")
        _ = try b.addItems(to: list.id, (0..<9).map { ItemDraft(title: "item \($0)") })
        return (b, replicas)
    }

    private func keys(_ changes: ChangeSet) -> [String] {
        (changes.tombstones.map { "tombstone \($0.entity.rawValue) \($0.id)" }
            + changes.rows.map { "row \($0.entity.rawValue) \($0.id)" }).sorted()
    }

    @Test("the pages hold what one read does, each record once, none more than the limit")
    func pagesHoldEverything() throws {
        let (store, _) = try busyStore()
        let (whole, cursor) = try store.changes()
        #expect(try store.read { try $0.count("SELECT COUNT(*) FROM heldRow", []) } == 4)
        var pages = try store.changePages()
        #expect(pages.total == whole.rows.count + whole.tombstones.count && pages.cursor == cursor)
        var read = ChangeSet(accountId: whole.accountId, replicaId: whole.replicaId)
        var sizes: [Int] = []
        var tombstonesAfterRows = 0
        while !pages.isFinished {
            let page = try store.nextPage(of: &pages, limit: 5)
            sizes.append(page.rows.count + page.tombstones.count)
            // Tombstones first, as a push sends them.
            if !read.rows.isEmpty { tombstonesAfterRows += page.tombstones.count }
            read.rows += page.rows
            read.tombstones += page.tombstones
        }
        #expect(sizes.allSatisfy { $0 <= 5 } && sizes.dropLast().allSatisfy { $0 == 5 })
        #expect(keys(read) == keys(whole))
        #expect(Set(read.rows.map(HeldRow.encode)) == Set(whole.rows.map(HeldRow.encode)))
        #expect(Set(read.tombstones.map(\.id)) == Set(whole.tombstones.map(\.id)))
        #expect(tombstonesAfterRows == 0 && whole.tombstones.count > 6)
        // Full pages; the last one may be found empty, when the one before ended a place exactly.
        #expect(sizes.filter { $0 > 0 }.count == (pages.total + 4) / 5)
        // Pages after the last are empty.
        #expect(try store.nextPage(of: &pages, limit: 5).isEmpty)
    }

    @Test("a write made while the pages are read is left for the next push")
    func writesWhileReading() throws {
        let (store, _) = try busyStore()
        var pages = try store.changePages()
        let first = try store.nextPage(of: &pages, limit: 10)
        // A card of a later page edited, and a card added, between two pages.
        let deck = try #require(try store.decks().first)
        let later = try #require(try store.cards(in: deck.id).last)
        _ = try store.editCard(later.id, CardChanges(back: "edited"))
        let added = try store.addCard(to: deck.id, CardDraft(front: "new", back: "n"))
        var rest: [RowChange] = []
        while !pages.isFinished { rest += try store.nextPage(of: &pages, limit: 10).rows }
        let sent = first.rows + rest
        #expect(!sent.contains { $0.id == added.id.storage })
        #expect(!sent.contains { $0.id == later.id.storage })
        // The next push, from where the pages ended, sends both.
        let next = try store.changes(since: pages.cursor).changes
        #expect(next.rows.contains { $0.id == added.id.storage })
        #expect(next.rows.first { $0.id == later.id.storage }?.fields["back"]?.value == .string("edited"))
    }
}
