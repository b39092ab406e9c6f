import CardboxCore
import CardboxSync
import Foundation
import Testing

@testable import CardboxStore

/// Two or more replicas of one account, each with its own clock, that exchange what they wrote.
struct Replicas {
    let account = UUID()
    let clock = TestClock()
    let stores: [CardboxStore]
    /// What each store last sent.
    private var cursors: [HLCTimestamp]

    init(_ count: Int = 2) throws {
        let account = self.account
        let clock = self.clock
        stores = try (0..<count).map { _ in try TestStore.make(clock: clock, account: account) }
        cursors = Array(repeating: .zero, count: count)
    }

    var a: CardboxStore { stores[0] }
    var b: CardboxStore { stores[1] }

    /// What `index` wrote since it last sent, through the JSON wire form.
    mutating func send(_ index: Int) throws -> ChangeSet {
        let (changes, cursor) = try stores[index].changes(since: cursors[index])
        cursors[index] = cursor
        return try ChangeSet.parse(changes.jsonText)
    }

    /// Every store sends to every other.
    mutating func exchange() throws {
        let sets = try stores.indices.map { try send($0) }
        for (from, changes) in sets.enumerated() {
            for (to, store) in stores.enumerated() where to != from { try store.apply(changes) }
        }
    }
}

@Suite("Merging remote changes")
struct MergeTests {
    @Test("field by field, the later write wins, whichever arrives first")
    func lastWriterWins() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try replicas.a.addCard(to: try replicas.a.resolve("D"), CardDraft(front: "hola", back: "hello"))
        try replicas.exchange()
        let id = card.id
        _ = try replicas.a.editCard(id, CardChanges(back: "hi"))
        replicas.clock.advance(seconds: 1)
        _ = try replicas.b.editCard(id, CardChanges(back: "hey"))
        _ = try replicas.b.editCard(id, CardChanges(notes: "from b"))
        replicas.clock.advance(seconds: 1)
        _ = try replicas.a.editCard(id, CardChanges(front: "hola!"))
        try replicas.exchange()
        for store in replicas.stores {
            let merged = try store.card(id)
            #expect(merged.back == "hey" && merged.front == "hola!" && merged.notes == "from b")
        }
        #expect(try replicas.a.canonicalDump() == replicas.b.canonicalDump())
    }

    @Test("equal timestamps are ordered by replica id, the same way on every replica")
    func tieBreak() throws {
        let store = try TestStore.make()
        let list = try store.createList(name: "L")
        let (changes, _) = try store.changes()
        let row = try #require(changes.rows.first)
        let later = HLCTimestamp(rawValue: row.created.timestamp.rawValue + 5)
        func renamed(_ name: String, by replica: String) -> ChangeSet {
            var edited = row
            edited.fields["name"] = FieldChange(value: .string(name), clock: WriteClock(later, replica))
            return ChangeSet(accountId: store.accountId, replicaId: replica, rows: [edited])
        }
        try store.apply(renamed("from zz", by: "zz"))
        try store.apply(renamed("from aa", by: "aa"))
        #expect(try store.list(list.id).name == "from zz")
        let other = try TestStore.make(account: store.accountId)
        try other.apply(changes)
        try other.apply(renamed("from aa", by: "aa"))
        try other.apply(renamed("from zz", by: "zz"))
        #expect(try other.list(list.id).name == "from zz")
    }

    @Test("the local clock moves past every timestamp it receives")
    func clockMovesPast() throws {
        var replicas = try Replicas()
        let bClock = TestClock(replicas.clock.now.addingTimeInterval(120))  // b's clock runs two minutes fast
        let b = try TestStore.make(clock: bClock, account: replicas.account)
        _ = try b.createList(name: "ahead")
        let (fromB, _) = try b.changes()
        try replicas.a.apply(fromB)
        _ = try replicas.a.createList(name: "after")
        let rows = try replicas.send(0).rows
        let after = try #require(rows.first { $0.fields["name"]?.value == .string("after") })
        #expect(after.created.timestamp > fromB.newestTimestamp)
    }

    @Test("a delete is final: concurrent edits of the row do not bring it back")
    func deleteWins() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try replicas.a.addCard(
            to: try replicas.a.resolve("D"), CardDraft(front: "hola", back: "hello", tags: ["t"]))
        try replicas.exchange()
        try replicas.a.deleteCard(card.id)
        replicas.clock.advance(seconds: 5)
        _ = try replicas.b.editCard(card.id, CardChanges(back: "later edit"))
        try replicas.exchange()
        for store in replicas.stores {
            #expect(throws: CardboxError.self) { try store.card(card.id) }
            #expect(try store.rowCount("cardTag") == 0)
        }
        #expect(try replicas.a.canonicalDump() == replicas.b.canonicalDump())
    }

    @Test("children made offline under a deleted parent are deleted with it, arriving before or after")
    func cascadeFromMergedState() throws {
        var replicas = try Replicas(3)
        _ = try replicas.a.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try replicas.a.createBoard(title: "B")
        _ = try replicas.a.addColumn(to: try replicas.a.resolve("B"), title: "c")
        try replicas.exchange()
        try replicas.a.deleteDeck(try replicas.a.resolve("D"))
        try replicas.a.deleteBoard(try replicas.a.resolve("B"))
        let card = try replicas.b.addCard(to: try replicas.b.resolve("D"), CardDraft(front: "nuevo", back: "new"))
        _ = try replicas.b.addColumn(to: try replicas.b.resolve("B"), title: "d")
        let fromA = try replicas.send(0)
        let fromB = try replicas.send(1)
        // c hears of the new card before the delete; a after it.
        try replicas.stores[2].apply(fromB)
        #expect(try replicas.stores[2].card(card.id).front == "nuevo")
        try replicas.stores[2].apply(fromA)
        try replicas.a.apply(fromB)
        try replicas.b.apply(fromA)
        for store in replicas.stores {
            #expect(try store.decks().isEmpty && store.cards(in: nil).isEmpty && store.boards().isEmpty)
            #expect(try store.rowCount("boardColumn") == 0)
            #expect(try store.rowCount("tombstone") >= 3, "deck, card, board, columns")
        }
        let dumps = try replicas.stores.map { try $0.canonicalDump() }
        #expect(Set(dumps).count == 1)
    }

    @Test("two devices moving one board card put it in exactly one column, the later move's")
    func concurrentMoves() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createBoard(title: "B")
        let x = try replicas.a.addColumn(to: try replicas.a.resolve("B"), title: "x")
        let y = try replicas.a.addColumn(to: try replicas.a.resolve("B"), title: "y")
        let z = try replicas.a.addColumn(to: try replicas.a.resolve("B"), title: "z")
        let card = try replicas.a.addBoardCard(to: x.id, title: "task")
        _ = try replicas.a.addBoardCard(to: y.id, title: "other")
        try replicas.exchange()
        _ = try replicas.a.moveBoardCard(card.id, to: 0, inColumn: y.id)
        replicas.clock.advance(seconds: 1)
        _ = try replicas.b.moveBoardCard(card.id, to: 0, inColumn: z.id)
        try replicas.exchange()
        for store in replicas.stores {
            let columns = try store.board(try store.resolve("B")).columns ?? []
            let holding = columns.filter { ($0.cards ?? []).contains { $0.id == card.id } }
            #expect(holding.map(\.id) == [z.id])
            #expect(columns.allSatisfy { ($0.cards ?? []).map(\.orderNumber) == Array(0..<($0.cards ?? []).count) })
        }
    }

    @Test("a card moved into a column deleted elsewhere is kept aside, and a later move brings it back")
    func moveOutOfDeletedColumn() throws {
        var replicas = try Replicas(3)
        _ = try replicas.a.createBoard(title: "B")
        let x = try replicas.a.addColumn(to: try replicas.a.resolve("B"), title: "x")
        let y = try replicas.a.addColumn(to: try replicas.a.resolve("B"), title: "y")
        let card = try replicas.a.addBoardCard(to: y.id, title: "task")
        try replicas.exchange()
        try replicas.a.deleteColumn(x.id)
        _ = try replicas.b.moveBoardCard(card.id, to: 0, inColumn: x.id)
        try replicas.exchange()
        for store in replicas.stores {
            #expect(try store.board(try store.resolve("B")).columns?.flatMap { $0.cards ?? [] }.isEmpty == true)
        }
        // A later move (by a third device) takes it out again, on every replica.
        let (changes, _) = try replicas.b.changes()
        let held = try #require(changes.rows.first { $0.id == card.id.storage })
        var moved = held
        moved.fields["placement"] = FieldChange(
            value: .object(["columnId": .string(y.id.storage), "position": .string("a0")]),
            clock: WriteClock(
                HLCTimestamp(rawValue: held.fields["placement"]!.clock.timestamp.rawValue + 1_000_000), "c"))
        for store in replicas.stores {
            try store.apply(ChangeSet(accountId: replicas.account, replicaId: "c", rows: [moved]))
            let cards = try store.board(try store.resolve("B")).columns?.flatMap { $0.cards ?? [] } ?? []
            #expect(cards.map(\.id) == [card.id] && cards.first?.columnId == y.id)
        }
        #expect(Set(try replicas.stores.map { try $0.canonicalDump() }).count == 1)
    }

    @Test("a row that arrives before its parent waits for it")
    func parentArrivesLater() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createList(name: "L")
        let item = try replicas.a.addItem(to: try replicas.a.resolve("L"), title: "milk")
        let changes = try replicas.send(0)
        let itemOnly = ChangeSet(
            accountId: changes.accountId, replicaId: changes.replicaId, rows: changes.rows.filter { $0.entity == .item }
        )
        let listOnly = ChangeSet(
            accountId: changes.accountId, replicaId: changes.replicaId,
            rows: changes.rows.filter { $0.entity == .itemList })
        let report = try replicas.b.apply(itemOnly)
        #expect(report.held == 1 && report.inserted == 0)
        #expect(throws: CardboxError.self) { try replicas.b.item(item.id) }
        try replicas.b.apply(listOnly)
        #expect(try replicas.b.item(item.id).title == "milk")
        #expect(try replicas.a.canonicalDump() == replicas.b.canonicalDump())
    }

    @Test("applying a change set twice, or an older one after a newer one, changes nothing")
    func idempotent() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createList(name: "L")
        let first = try replicas.send(0)
        replicas.clock.advance(seconds: 1)
        _ = try replicas.a.renameList(try replicas.a.resolve("L"), to: "M")
        let second = try replicas.send(0)
        try replicas.b.apply(second)
        try replicas.b.apply(first)
        let dump = try replicas.b.canonicalDump()
        try replicas.b.apply(first)
        try replicas.b.apply(second)
        #expect(try replicas.b.canonicalDump() == dump)
        #expect(try replicas.b.lists().map(\.name) == ["M"])
        #expect(dump == (try replicas.a.canonicalDump()))
    }

    @Test("a tag deleted on one device and used again on another exists afterwards on both")
    func tagRecreated() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try replicas.a.addCard(
            to: try replicas.a.resolve("D"), CardDraft(front: "ir", back: "to go", tags: ["verbs"]))
        try replicas.exchange()
        try replicas.a.deleteTag("verbs")
        replicas.clock.advance(seconds: 1)
        try replicas.exchange()
        #expect(try replicas.b.tags().isEmpty)
        _ = try replicas.b.editCard(card.id, CardChanges(tags: ["Verbs"]))
        try replicas.exchange()
        for store in replicas.stores {
            #expect(try store.tags().map(\.name) == ["Verbs"])
            #expect(try store.card(card.id).tags == ["Verbs"])
        }
    }

    /// A link to a deleted tag is held, waiting for the tag. When this device makes the tag again,
    /// the link comes back here as it does on every device that receives the new tag.
    @Test("a tag made again here brings back the links that waited for it, as it does elsewhere")
    func localTagRecreationAttachesHeldLinks() throws {
        var replicas = try Replicas(3)
        let (a, b, c) = (replicas.stores[0], replicas.stores[1], replicas.stores[2])
        _ = try a.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let deck: DeckID = try a.resolve("D")
        _ = try a.addCard(to: deck, CardDraft(front: "ir", back: "to go", tags: ["verbs"]))
        let other = try a.addCard(to: deck, CardDraft(front: "ser", back: "to be"))
        try replicas.exchange()
        try b.deleteTag("verbs")
        replicas.clock.advance(seconds: 1)
        _ = try c.editCard(other.id, CardChanges(tags: ["verbs"]))
        let deleted = try replicas.send(1)
        let linked = try replicas.send(2)
        for (store, changes) in [(a, deleted), (a, linked), (b, linked), (c, deleted)] { try store.apply(changes) }
        #expect(try a.card(other.id).tags.isEmpty)
        replicas.clock.advance(seconds: 1)
        _ = try a.addCard(to: deck, CardDraft(front: "tener", back: "to have", tags: ["verbs"]))
        try replicas.exchange()
        try replicas.exchange()
        for store in replicas.stores { #expect(try store.card(other.id).tags == ["verbs"]) }
        #expect(try a.canonicalDump() == b.canonicalDump())
        #expect(try a.canonicalDump() == c.canonicalDump())
    }

    @Test("orderNumber stays 0…n−1 when two devices insert at the same place")
    func orderAfterMerge() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createList(name: "L")
        _ = try replicas.a.addItem(to: try replicas.a.resolve("L"), title: "first")
        try replicas.exchange()
        for index in 0..<5 {
            _ = try replicas.a.addItem(to: try replicas.a.resolve("L"), title: "a\(index)", position: 0)
            _ = try replicas.b.addItem(to: try replicas.b.resolve("L"), title: "b\(index)", position: 0)
        }
        try replicas.exchange()
        let orders = try replicas.stores.map { try $0.list(try $0.resolve("L")).items!.map(\.title) }
        #expect(orders[0] == orders[1] && orders[0].count == 11)
        #expect(try replicas.a.list(try replicas.a.resolve("L")).items!.map(\.orderNumber) == Array(0..<11))
    }
}

@Suite("Tombstones a delete brings")
struct DeleteEchoTests {
    @Test("rows deleted with their parent as its delete is applied are not sent back when its own tombstones came too")
    func derivedTombstonesAreNotEchoed() throws {
        let clock = TestClock()
        let phone = try TestStore.make(clock: clock)
        let laptop = try TestStore.make(clock: clock, account: phone.accountId)
        let deck = try phone.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try phone.addCard(to: deck.id, CardDraft(front: "gato", back: "cat", tags: ["t"]))
        _ = try phone.answer(card.id, rating: 3)
        let (everything, sent) = try phone.changes()
        try laptop.apply(everything)
        let laptopSent = try laptop.changes().cursor
        try phone.deleteDeck(deck.id)
        let delete = try phone.changes(since: sent).changes
        #expect(delete.tombstones.count >= 4)
        try laptop.apply(delete)
        #expect(try laptop.cards(in: nil).isEmpty)
        // The card's tombstone, applied first, deletes its review and tag link; theirs come in the
        // same change set: the laptop has nothing to send.
        #expect(try laptop.changes(since: laptopSent).changes.tombstones.isEmpty)
        #expect(try phone.canonicalDump() == laptop.canonicalDump())
    }
}

@Suite("Refusing change sets")
struct RefusalTests {
    /// A store with one list, and a valid change set from another replica of its account.
    func setUp() throws -> (store: CardboxStore, valid: ChangeSet, dump: String) {
        let clock = TestClock()
        let store = try TestStore.make(clock: clock)
        _ = try store.createList(name: "L")
        let other = try TestStore.make(clock: clock, account: store.accountId)
        _ = try other.createList(name: "From elsewhere")
        return (store, try other.changes().changes, try store.canonicalDump())
    }

    func expectRefused(_ text: String, by store: CardboxStore, mentioning words: String) throws {
        let dump = try store.canonicalDump()
        do {
            try store.apply(try ChangeSet.parse(text))
            Issue.record("accepted: \(text.prefix(200))")
        } catch let error as CardboxError {
            #expect(error.localizedDescription.contains(words), "\(error.localizedDescription)")
        }
        #expect(try store.canonicalDump() == dump)
    }

    @Test("a change set for another account is refused whole")
    func otherAccount() throws {
        let (store, valid, dump) = try setUp()
        var foreign = valid
        foreign.accountId = UUID()
        #expect(throws: CardboxError.self) { try store.apply(foreign) }
        #expect(try store.canonicalDump() == dump)
    }

    @Test("a change set stamped more than five minutes ahead is refused, with how far ahead")
    func fromTheFuture() throws {
        let (store, valid, dump) = try setUp()
        var future = valid
        let ahead = HLCTimestamp(milliseconds: future.newestTimestamp.milliseconds + 6 * 60 * 1000, counter: 0)
        future.rows[0].fields["name"]!.clock = WriteClock(ahead, valid.replicaId)
        do {
            try store.apply(future)
            Issue.record("a change from the future was applied")
        } catch let error as CardboxError {
            #expect(error.localizedDescription.contains("in the future"))
        }
        #expect(try store.canonicalDump() == dump)
        future.rows[0].fields["name"]!.clock = WriteClock(
            HLCTimestamp(milliseconds: valid.newestTimestamp.milliseconds + 4 * 60 * 1000, counter: 0), valid.replicaId)
        try store.apply(future)
        #expect(try store.lists().count == 2)
    }

    @Test("unknown entities and fields, wrong types and malformed JSON are refused, naming the place")
    func malformed() throws {
        let (store, valid, _) = try setUp()
        let text = valid.jsonText
        try expectRefused(
            text.replacingOccurrences(of: "\"itemList\"", with: "\"spaceship\""), by: store, mentioning: "spaceship")
        try expectRefused(
            text.replacingOccurrences(of: "\"isArchived\":", with: "\"isArchivd\":"), by: store, mentioning: "isArchivd"
        )
        try expectRefused(
            text.replacingOccurrences(of: "\"isArchived\":[false", with: "\"isArchived\":[\"no\""),
            by: store, mentioning: "isArchived")
        try expectRefused(String(text.dropLast(3)), by: store, mentioning: "JSON")
        try expectRefused(
            text.replacingOccurrences(of: "\"version\":1", with: "\"version\":9"), by: store, mentioning: "version")
        try expectRefused(
            text.replacingOccurrences(of: "\"name\":[\"From elsewhere\"", with: "\"name\":[\"\""),
            by: store, mentioning: "fields.name: must not be empty")
        try expectRefused(String(repeating: "[", count: 10_000), by: store, mentioning: "nests")
    }

    @Test("a bad row anywhere in the set leaves every row unapplied")
    func wholeOrNothing() throws {
        let (store, valid, dump) = try setUp()
        var mixed = valid
        var broken = valid.rows[0]
        broken.id = UUID().uuidString.lowercased()
        broken.fields["placement"] = FieldChange(value: .object(["position": .int(3)]), clock: broken.created)
        mixed.rows.append(broken)
        #expect(throws: CardboxError.self) { try store.apply(mixed) }
        #expect(try store.canonicalDump() == dump)
    }

    @Test("the wire form reads back as the same change set")
    func roundTrip() throws {
        let (_, valid, _) = try setUp()
        #expect(try ChangeSet.parse(valid.jsonText) == valid)
        // Written straight, the text is the one a JSON value of it writes: compact, keys sorted.
        #expect(try JSONParser.parse(valid.jsonText).jsonText == valid.jsonText)
        var withTombstone = valid
        withTombstone.tombstones.append(
            Tombstone(entity: .item, id: UUID().uuidString.lowercased(), clock: valid.rows[0].created))
        #expect(try JSONParser.parse(withTombstone.jsonText).jsonText == withTombstone.jsonText)
        #expect(try ChangeSet.parse(withTombstone.jsonText) == withTombstone)
        // Read straight, as a server reads a push, and as a tree: the same change set.
        #expect(ChangeSet.readStraight(withTombstone.jsonText) == withTombstone)
        #expect(try ChangeSet(json: JSONParser.parse(withTombstone.jsonText)) == withTombstone)
        // Another registry version is not read straight; the tree read names it.
        let otherRegistry = valid.jsonText.replacingOccurrences(
            of: "\"registry\":\(SyncRegistry.version)", with: "\"registry\":\(SyncRegistry.version + 1)")
        #expect(ChangeSet.readStraight(otherRegistry) == nil)
        #expect {
            try ChangeSet.parse(otherRegistry)
        } throws: { error in
            (error as? CardboxError)?.localizedDescription.contains("registry") == true
        }
    }
}

@Suite("Rules that span rows, after a merge")
struct CrossRowMergeTests {
    @Test("two decks of one name made offline are both kept; the name then asks which")
    func sameDeckName() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        _ = try replicas.b.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        try replicas.exchange()
        for store in replicas.stores {
            #expect(try store.decks().count == 2)
            #expect(throws: CardboxError.self) { try store.deck(try store.resolve("Spanish")) }
            // A device still refuses to make a third.
            #expect(throws: CardboxError.self) {
                try store.createDeck(name: "SPANISH", frontLanguage: "es", backLanguage: "en")
            }
        }
        #expect(try replicas.a.canonicalDump() == replicas.b.canonicalDump())
    }

    @Test("a tag made offline on two devices under one name is one tag")
    func sameTagName() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        try replicas.exchange()
        _ = try replicas.a.addCard(
            to: try replicas.a.resolve("D"), CardDraft(front: "ir", back: "to go", tags: ["verbs"]))
        _ = try replicas.b.addCard(
            to: try replicas.b.resolve("D"), CardDraft(front: "ser", back: "to be", tags: ["Verbs"]))
        try replicas.exchange()
        for store in replicas.stores {
            let tags = try store.tags()
            #expect(tags.count == 1 && tags.first?.cardCount == 2)
        }
        #expect(try replicas.a.canonicalDump() == replicas.b.canonicalDump())
    }

    @Test("an item that reaches more than 10 images shows the same first 10 everywhere")
    func imageLimit() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createList(name: "L")
        let item = try replicas.a.addItem(to: try replicas.a.resolve("L"), title: "tent")
        try replicas.exchange()
        for index in 0..<6 {
            _ = try replicas.a.addItemImage(to: item.id, data: TestStore.png(index))
            _ = try replicas.b.addItemImage(to: item.id, data: TestStore.png(100 + index))
        }
        try replicas.exchange()
        // Image bytes travel separately (content-addressed); here each store is given the other's.
        for index in 0..<6 {
            let (forA, forB) = (TestStore.png(100 + index), TestStore.png(index))
            _ = try replicas.a.write(decodingImages: [(forA, "image")]) { tx in try tx.storeImage(forA) }
            _ = try replicas.b.write(decodingImages: [(forB, "image")]) { tx in try tx.storeImage(forB) }
        }
        let shown = try replicas.stores.map { try $0.itemImages(of: item.id) }
        #expect(shown[0].count == 10 && shown[0] == shown[1])
        #expect(shown[0].map(\.orderNumber) == Array(0..<10))
        #expect(throws: CardboxError.self) {
            try replicas.a.addItemImage(to: item.id, data: TestStore.png(999))
        }
        try replicas.a.removeItemImage(shown[0][0].id)
        #expect(try replicas.a.itemImages(of: item.id).count == 10, "the eleventh comes into view")
    }

    @Test("a suggestion made offline that matches one rejected elsewhere stays hidden after the merge")
    func rejectedSuggestion() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        try replicas.exchange()
        let first = try replicas.a.addSuggestion(
            to: try replicas.a.resolve("D"), SuggestionDraft(front: "gato", back: "cat"), image: TestStore.png)
        _ = try replicas.a.rejectSuggestion(first.id)
        let again = try replicas.b.addSuggestion(
            to: try replicas.b.resolve("D"), SuggestionDraft(front: "Gato", back: "cat"), image: TestStore.png)
        try replicas.exchange()
        for store in replicas.stores {
            #expect(try store.suggestions(in: try store.resolve("D")).isEmpty)
            #expect(try store.rejectedSuggestions(in: try store.resolve("D")).map(\.front) == ["gato"])
            #expect(try store.suggestions(in: try store.resolve("D"), includeAll: true).contains { $0.id == again.id })
        }
        #expect(try replicas.a.canonicalDump() == replicas.b.canonicalDump())
    }

    @Test("two devices answering one card offline: both reviews kept, the card's state is one answer's, whole")
    func concurrentAnswers() throws {
        var replicas = try Replicas()
        _ = try replicas.a.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try replicas.a.addCard(to: try replicas.a.resolve("D"), CardDraft(front: "hola", back: "hello"))
        try replicas.exchange()
        _ = try replicas.a.answer(card.id, rating: 1)
        let onA = try replicas.a.card(card.id)
        replicas.clock.advance(seconds: 30)
        _ = try replicas.b.answer(card.id, rating: 4)
        let onB = try replicas.b.card(card.id)
        try replicas.exchange()
        for store in replicas.stores {
            let ratings = try store.reviewLog(in: try store.resolve("D")).map(\.rating)
            #expect(ratings.sorted() == [1, 4])
            let merged = try store.card(card.id)
            #expect(merged.state == onB.state && merged.stability == onB.stability && merged.dueAt == onB.dueAt)
            #expect(merged.reps == onB.reps && merged.difficulty == onB.difficulty)
            #expect(merged.stability != onA.stability)
        }
        #expect(try replicas.a.canonicalDump() == replicas.b.canonicalDump())
    }
}

@Suite("Change-set fuzz seeds")
struct ChangeSetSeedTests {
    static var seeds: [(file: String, text: String)] {
        get throws {
            let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/changes")
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { file in
                (file, try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
            }
        }
    }

    @Test("a row's stored form is written straight as its JSON tree would be, and reads back either way")
    func storedForm() throws {
        // Cards with tags (a first upload's records) besides the seeds' lists, boards and decks.
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        _ = try store.addCard(to: deck.id, CardDraft(front: "hola \"amigo\"\n", back: "hello ✓", tags: ["greeting"]))
        let rows = try Self.seeds.flatMap { try ChangeSet.parse($0.text).rows } + store.changes().changes.rows
        #expect(Set(rows.map(\.entity)).isSuperset(of: [.card, .cardTag, .tag, .deck, .item, .boardCard]))
        for row in rows {
            func clock(_ clock: WriteClock) -> JSONValue {
                .array([.int(clock.timestamp.storageValue), .string(clock.replicaId)])
            }
            let tree = JSONValue.object([
                "entity": .string(row.entity.rawValue), "id": .string(row.id), "created": clock(row.created),
                "fields": .object(row.fields.mapValues { .array([$0.value, clock($0.clock)]) }),
            ])
            #expect(row.recordJSON == tree.jsonText)
            #expect(RowChange(recordText: row.recordJSON) == row)
            #expect(try RowChange.recordFromTree(row.recordJSON, field: "a row") == row)
        }
        // Not in the stored form (a repeated key, an unknown entity): not read straight; the tree
        // read names what is wrong.
        let repeated = #"{"entity":"card","entity":"card","fields":{},"id":"x","created":[1,"r"]}"#
        #expect(RowChange(recordText: repeated) == nil)
        let unknown = #"{"created":[1,"r"],"entity":"spaceship","fields":{},"id":"x"}"#
        #expect(RowChange(recordText: unknown) == nil)
        #expect(throws: CardboxError.storage("syncRow has a malformed row")) {
            try RowChange(recordJSON: unknown, field: "syncRow")
        }
    }

    @Test("every seed of the changes fuzz target is a change set a store accepts")
    func seedsApply() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/changes")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.count >= 5)
        for file in files {
            let changes = try ChangeSet.parse(String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
            let store = try CardboxStore.inMemory(account: changes.accountId)
            let report = try store.apply(changes)
            if file == "tombstones.json" {
                #expect(try store.lists().isEmpty && report.inserted == 0, "the list and its item arrive deleted")
            } else {
                #expect(report.inserted == changes.rows.count, "\(file)")
            }
            #expect(try store.integrityProblems().isEmpty)
        }
    }
}
