import CardboxCore
import Foundation
import Testing

@testable import CardboxStore

@Suite("Seed 002 lists and items")
struct ListStoreTests {
    func orderNumbers(_ store: CardboxStore, _ list: String) throws -> [String] {
        let items = try store.list(try store.resolve(list), includeCrossedOut: true).items ?? []
        #expect(items.map(\.orderNumber) == Array(0..<items.count))
        return items.map(\.title)
    }

    @Test("lists and items keep order numbers 0…n−1 through inserts and moves")
    func ordering() throws {
        let store = try TestStore.make()
        _ = try store.createList(name: "Groceries")
        for title in ["milk", "eggs", "bread"] {
            _ = try store.addItem(to: try store.resolve("Groceries"), title: title)
        }
        _ = try store.addItem(to: try store.resolve("Groceries"), title: "butter", position: 0)
        #expect(try orderNumbers(store, "Groceries") == ["butter", "milk", "eggs", "bread"])
        let bread = try #require(try store.list(try store.resolve("Groceries")).items?.last)
        let moved = try store.moveItem(bread.id, to: 1)
        #expect(moved.orderNumber == 1)
        #expect(try orderNumbers(store, "Groceries") == ["butter", "bread", "milk", "eggs"])
        _ = try store.moveItem(bread.id, to: 3)
        #expect(try orderNumbers(store, "Groceries") == ["butter", "milk", "eggs", "bread"])
        #expect(throws: CardboxError.invalid(field: "position", reason: "must be 0 to 3, got 4")) {
            try store.moveItem(bread.id, to: 4)
        }
    }

    @Test("a batch of items is appended in order, all or nothing")
    func batchItems() throws {
        let store = try TestStore.make()
        _ = try store.createList(name: "L")
        _ = try store.addItem(to: try store.resolve("L"), title: "first")
        #expect(try store.addItems(to: try store.resolve("L"), (1...50).map { ItemDraft(title: "item \($0)") }) == 50)
        let titles = try orderNumbers(store, "L")
        #expect(titles.count == 51 && titles.first == "first" && titles.last == "item 50")
        #expect(titles[1] == "item 1")
        #expect(throws: CardboxError.invalid(field: "item 2 title", reason: "cannot be empty")) {
            try store.addItems(to: try store.resolve("L"), [ItemDraft(title: "ok"), ItemDraft(title: "")])
        }
        #expect(try store.list(try store.resolve("L")).items?.count == 51)
    }

    @Test("moving an item into another list puts it at the position given")
    func moveBetweenLists() throws {
        let store = try TestStore.make()
        _ = try store.createList(name: "A")
        _ = try store.createList(name: "B")
        let milk = try store.addItem(to: try store.resolve("A"), title: "milk")
        _ = try store.addItem(to: try store.resolve("A"), title: "eggs")
        _ = try store.addItem(to: try store.resolve("B"), title: "nails")
        _ = try store.moveItem(milk.id, to: 0, inList: try store.resolve("B"))
        #expect(try orderNumbers(store, "A") == ["eggs"])
        #expect(try orderNumbers(store, "B") == ["milk", "nails"])
    }

    @Test("lists reorder among the user's lists")
    func moveLists() throws {
        let store = try TestStore.make()
        for name in ["A", "B", "C"] { _ = try store.createList(name: name) }
        _ = try store.moveList(try store.resolve("C"), to: 0)
        let lists = try store.lists()
        #expect(lists.map(\.name) == ["C", "A", "B"])
        #expect(lists.map(\.orderNumber) == [0, 1, 2])
        #expect(try store.list(try store.resolve("A")).orderNumber == 1)
    }

    @Test("when two devices minted the same key, a move lays the siblings out anew")
    func tiedKeys() throws {
        let store = try TestStore.make()
        _ = try store.createList(name: "L")
        let items = try (0..<4).map { try store.addItem(to: try store.resolve("L"), title: "item \($0)") }
        try store.write { tx in
            for item in items.prefix(3) { try tx.update(.item, id: item.id.storage, [(.position, "a5")]) }
        }
        _ = try store.moveItem(items[3].id, to: 1)
        let titles = try orderNumbers(store, "L")
        #expect(titles.count == 4 && titles[1] == "item 3")
    }

    @Test("a list's modifiedAt follows its own and its items' changes; createdAt stays")
    func listTimes() throws {
        let clock = TestClock()
        let store = try TestStore.make(clock: clock)
        let created = try store.createList(name: "A")
        _ = try store.createList(name: "B")
        #expect(created.createdAt == clock.now && created.modifiedAt == clock.now)
        clock.advance(seconds: 10)
        let item = try store.addItem(to: try store.resolve("A"), title: "milk")
        #expect(try store.list(try store.resolve("A")).modifiedAt == clock.now)
        clock.advance(seconds: 10)
        _ = try store.moveItem(item.id, to: 0, inList: try store.resolve("B"))
        #expect(
            try store.list(try store.resolve("A")).modifiedAt == clock.now
                && store.list(try store.resolve("B")).modifiedAt == clock.now)
        clock.advance(seconds: 10)
        let renamed = try store.renameList(try store.resolve("A"), to: "A2")
        #expect(renamed.modifiedAt == clock.now && renamed.createdAt == created.createdAt)
        clock.advance(seconds: 10)
        try store.deleteItem(item.id)
        #expect(try store.list(try store.resolve("B")).modifiedAt == clock.now)
    }

    @Test("crossed-out items are hidden by default, shown on request or by setting")
    func crossedOut() throws {
        let store = try TestStore.make()
        _ = try store.createList(name: "L")
        let milk = try store.addItem(to: try store.resolve("L"), title: "milk")
        _ = try store.addItem(to: try store.resolve("L"), title: "eggs")
        #expect(try store.crossItem(milk.id).isCrossedOut)
        #expect(try store.list(try store.resolve("L")).items?.map(\.title) == ["eggs"])
        #expect(
            try store.list(try store.resolve("L"), includeCrossedOut: true).items?.map(\.title) == ["milk", "eggs"])
        #expect(try store.list(try store.resolve("L")).items?.first?.orderNumber == 1)
        _ = try store.setSetting("showCrossedOutItems", to: "true")
        #expect(try store.list(try store.resolve("L")).items?.count == 2)
        #expect(try !store.crossItem(milk.id, crossedOut: false).isCrossedOut)
    }

    @Test("item fields follow seed 002's rules; modifiedAt moves, createdAt stays")
    func itemFields() throws {
        let clock = TestClock()
        let store = try TestStore.make(clock: clock)
        _ = try store.createList(name: "L")
        let item = try store.addItem(to: try store.resolve("L"), title: "milk", description: "2% organic", quantity: 2)
        #expect(item.quantity == 2 && item.description == "2% organic")
        clock.advance(seconds: 5)
        let edited = try store.editItem(item.id, ItemChanges(title: "oat milk", quantity: .some(nil)))
        #expect(edited.title == "oat milk" && edited.quantity == nil && edited.description == "2% organic")
        #expect(edited.createdAt == item.createdAt && edited.modifiedAt == clock.now)
        #expect(throws: CardboxError.self) {
            try store.addItem(to: try store.resolve("L"), title: String(repeating: "x", count: 201))
        }
        #expect(throws: CardboxError.self) {
            try store.addItem(
                to: try store.resolve("L"), title: "x", description: String(repeating: "y", count: 50_001))
        }
        #expect(throws: CardboxError.self) { try store.createList(name: "") }
        #expect(try store.list(try store.resolve("L"), includeCrossedOut: true).items?.count == 1)
    }

    @Test("at most 10 images per item, recognised by content, removed with their item and list")
    func images() throws {
        let store = try TestStore.make()
        _ = try store.createList(name: "L")
        let item = try store.addItem(to: try store.resolve("L"), title: "receipt")
        for index in 0..<10 { _ = try store.addItemImage(to: item.id, data: TestStore.png(index)) }
        #expect(throws: CardboxError.invalid(field: "images", reason: "an item holds at most 10 images; it has 10")) {
            try store.addItemImage(to: item.id, data: TestStore.png(99))
        }
        let images = try store.itemImages(of: item.id)
        #expect(images.map(\.orderNumber) == Array(0..<10))
        #expect(images.allSatisfy { $0.mimeType == "image/png" })
        try store.removeItemImage(images[0].id)
        #expect(try store.itemImages(of: item.id).count == 9)
        #expect(throws: CardboxError.self) {
            try store.addItemImage(to: item.id, data: Data("GIF89a".utf8))
        }
        var tooBig = TestStore.jpeg
        tooBig.append(Data(count: Limits.imageBytes))
        #expect(throws: CardboxError.self) { try store.addItemImage(to: item.id, data: tooBig) }
        #expect(try store.rowCount("image") == 9)
        try store.deleteList(try store.resolve("L"))
        #expect(try store.rowCount("item") == 0)
        #expect(try store.rowCount("itemImage") == 0)
        #expect(try store.rowCount("image") == 0)
    }
}

@Suite("Seed 003 boards")
struct BoardStoreTests {
    func titles(_ store: CardboxStore, _ board: String) throws -> [[String]] {
        let shown = try store.board(try store.resolve(board))
        return (shown.columns ?? []).enumerated().map { index, column in
            #expect(column.orderNumber == index)
            let cards = column.cards ?? []
            #expect(cards.map(\.orderNumber) == Array(0..<cards.count))
            return [column.listTitle] + cards.map(\.cardTitle)
        }
    }

    @Test("cards reorder inside a column and move to another column at a position")
    func dragAndDrop() throws {
        let store = try TestStore.make()
        _ = try store.createBoard(title: "Home")
        let todo = try store.addColumn(to: try store.resolve("Home"), title: "To do")
        let done = try store.addColumn(to: try store.resolve("Home"), title: "Done")
        let paint = try store.addBoardCard(to: todo.id, title: "paint", description: "fence")
        _ = try store.addBoardCard(to: todo.id, title: "mow")
        _ = try store.addBoardCard(to: done.id, title: "shop")
        _ = try store.moveBoardCard(paint.id, to: 1)
        #expect(try titles(store, "Home") == [["To do", "mow", "paint"], ["Done", "shop"]])
        let moved = try store.moveBoardCard(paint.id, to: 0, inColumn: done.id)
        #expect(moved.columnId == done.id && moved.orderNumber == 0 && moved.cardDescription == "fence")
        #expect(try titles(store, "Home") == [["To do", "mow"], ["Done", "paint", "shop"]])
        _ = try store.moveColumn(done.id, to: 0)
        #expect(try titles(store, "Home") == [["Done", "paint", "shop"], ["To do", "mow"]])
    }

    @Test("cards do not move to another board's column")
    func otherBoard() throws {
        let store = try TestStore.make()
        _ = try store.createBoard(title: "A")
        _ = try store.createBoard(title: "B")
        let a = try store.addColumn(to: try store.resolve("A"), title: "a")
        let b = try store.addColumn(to: try store.resolve("B"), title: "b")
        let card = try store.addBoardCard(to: a.id, title: "x")
        #expect(throws: CardboxError.self) {
            try store.moveBoardCard(card.id, to: 0, inColumn: b.id)
        }
        #expect(try store.board(try store.resolve("A")).columns?.first?.cards?.count == 1)
    }

    @Test("deleting a board deletes its columns and cards; deleting a column deletes its cards")
    func cascades() throws {
        let store = try TestStore.make()
        _ = try store.createBoard(title: "A")
        let column = try store.addColumn(to: try store.resolve("A"), title: "a")
        let other = try store.addColumn(to: try store.resolve("A"), title: "b")
        _ = try store.addBoardCard(to: column.id, title: "x")
        _ = try store.addBoardCard(to: other.id, title: "y")
        try store.deleteColumn(column.id)
        #expect(try store.rowCount("boardCard") == 1)
        try store.deleteBoard(try store.resolve("A"))
        #expect(try store.rowCount("boardColumn") == 0)
        #expect(try store.rowCount("boardCard") == 0)
        #expect(try store.boards().isEmpty)
    }

    @Test("titles are required; descriptions optional")
    func titlesRequired() throws {
        let store = try TestStore.make()
        #expect(throws: CardboxError.invalid(field: "board title", reason: "cannot be empty")) {
            try store.createBoard(title: " ")
        }
        _ = try store.createBoard(title: "A")
        let column = try store.addColumn(to: try store.resolve("A"), title: "a")
        let card = try store.addBoardCard(to: column.id, title: "x", description: "")
        #expect(card.cardDescription == nil)
        let edited = try store.editBoardCard(card.id, description: "details")
        #expect(edited.cardDescription == "details")
    }
}
