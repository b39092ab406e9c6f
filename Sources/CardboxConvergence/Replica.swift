import CardboxCore
import CardboxImaging
import CardboxStore
import CardboxSync
import Foundation

/// One device of the history: an in-memory store with its own clock skew, ids and randomness.
public final class Replica {
    public let index: Int
    public let store: CardboxStore

    init(index: Int, account: UUID, clock: SimulatedClock, seed: UInt64) throws {
        self.index = index
        let random = SharedRandom(seed: seed)
        // Up to two seconds fast or slow: clocks of real devices disagree.
        let skew = Int64(seed % 4_001) - 2_000
        let environment = StoreEnvironment(
            now: { clock.now(skew: skew) },
            newID: {
                var generator = SharedRandomGenerator(source: random)
                return UUID(random: &generator)
            },
            makeRandom: { SharedRandomGenerator(source: random) }, timeZone: TimeZone(identifier: "UTC")!)
        store = try CardboxStore.inMemory(account: account, environment: environment)
    }

    // Small pools of names, so replicas collide: two decks "Spanish", a tag "Food" and "food".
    static let deckNames = ["Spanish", "French", "Verbs"]
    static let tagNames = ["verbs", "food", "Food", "travel"]
    static let words = ["hola", "adiós", "gato", "perro", "casa", "agua"]
    /// A suggestion's picture: one with it is visible at once, one without waits (seed 000).
    static let picture = try! ImageIngest.sample(width: 4, height: 4, seed: 7, format: .png)
    static let listNames = ["Groceries", "Packing", "Chores"]
    static let titles = ["milk", "eggs", "socks", "passport", "vacuum"]

    /// Makes one random operation; false when the store refused it (a duplicate name, a record
    /// another operation deleted), which is a normal outcome, not a failure.
    func performRandomOperation(using random: inout SplitMix64) throws -> Bool {
        // Weighted: cards, items and board cards are what people change most.
        let operations: [(inout SplitMix64) throws -> Void] = [
            { try self.deckOperation(&$0) }, { try self.deckOperation(&$0) }, { try self.cardOperation(&$0) },
            { try self.cardOperation(&$0) }, { try self.cardOperation(&$0) }, { try self.tagOperation(&$0) },
            { try self.suggestionOperation(&$0) }, { try self.studyOperation(&$0) }, { try self.listOperation(&$0) },
            { try self.itemOperation(&$0) }, { try self.itemOperation(&$0) }, { try self.itemOperation(&$0) },
            { try self.boardOperation(&$0) }, { try self.columnOperation(&$0) }, { try self.boardCardOperation(&$0) },
            { try self.boardCardOperation(&$0) }, { try self.accountOperation(&$0) },
        ]
        var operation = operations[Int.random(in: 0..<operations.count, using: &random)]
        // An operation on something this replica does not have yet becomes one that makes something.
        for _ in 0..<4 {
            do {
                try operation(&random)
                return true
            } catch is NothingToPick {
                operation = creations[Int.random(in: 0..<creations.count, using: &random)]
            } catch is CardboxError {
                return false
            }
        }
        return false
    }

    private var creations: [(inout SplitMix64) throws -> Void] {
        [
            { random in try self.deckOperation(&random, create: true) },
            { random in try self.cardOperation(&random, create: true) },
            { random in try self.suggestionOperation(&random, create: true) },
            { random in try self.listOperation(&random, create: true) },
            { random in try self.itemOperation(&random, create: true) },
            { random in try self.boardOperation(&random, create: true) },
            { random in try self.columnOperation(&random, create: true) },
            { random in try self.boardCardOperation(&random, create: true) },
        ]
    }

    struct NothingToPick: Error {}

    private func pick<T>(_ values: [T], _ random: inout SplitMix64) throws -> T {
        guard let value = values.randomElement(using: &random) else { throw NothingToPick() }
        return value
    }

    private func deckOperation(_ random: inout SplitMix64, create: Bool = false) throws {
        let decks = try store.decks()
        switch create ? 0 : Int.random(in: 0..<4, using: &random) {
        case 0, 1:
            _ = try store.createDeck(
                name: try pick(Self.deckNames, &random), frontLanguage: "es", backLanguage: "en")
        case 2: _ = try store.renameDeck(try pick(decks, &random).id, to: try pick(Self.deckNames, &random))
        default: try store.deleteDeck(try pick(decks, &random).id)
        }
    }

    private func cardOperation(_ random: inout SplitMix64, create: Bool = false) throws {
        let cards = try store.cards(in: nil) + store.cards(in: nil, filter: CardFilter(archived: true))
        switch create ? 0 : Int.random(in: 0..<7, using: &random) {
        case 0, 1:
            let deck = try pick(try store.decks(), &random)
            let tags = (0..<Int.random(in: 0...2, using: &random)).compactMap { _ in
                Self.tagNames.randomElement(using: &random)
            }
            _ = try store.addCard(
                to: deck.id,
                CardDraft(front: try pick(Self.words, &random), back: try pick(Self.words, &random), tags: tags))
        case 2:
            _ = try store.editCard(
                try pick(cards, &random).id,
                CardChanges(back: try pick(Self.words, &random), tags: [try pick(Self.tagNames, &random)]))
        case 3: _ = try store.setFavorite(try pick(cards, &random).id)
        case 4:
            let card = try pick(cards, &random)
            _ = try store.setArchived(card.id, !card.isArchived)
        case 5:
            _ = try store.editCard(try pick(cards, &random).id, CardChanges(notes: "n\(random.next() % 9)"))
        default: try store.deleteCard(try pick(cards, &random).id)
        }
    }

    private func tagOperation(_ random: inout SplitMix64) throws {
        let tags = try store.tags()
        if Bool.random(using: &random) {
            _ = try store.renameTag(try pick(tags, &random).name, to: try pick(Self.tagNames, &random))
        } else {
            try store.deleteTag(try pick(tags, &random).name)
        }
    }

    private func suggestionOperation(_ random: inout SplitMix64, create: Bool = false) throws {
        let deck = try pick(try store.decks(), &random)
        let suggestions = try store.suggestions(in: deck.id, includeAll: true)
        switch create ? 0 : Int.random(in: 0..<4, using: &random) {
        case 0, 1:
            _ = try store.addSuggestion(
                to: deck.id,
                SuggestionDraft(front: try pick(Self.words, &random), back: try pick(Self.words, &random)),
                image: Bool.random(using: &random) ? Self.picture : nil)
        case 2: _ = try store.acceptSuggestion(try pick(suggestions, &random).id)
        default: _ = try store.rejectSuggestion(try pick(suggestions, &random).id)
        }
    }

    private func studyOperation(_ random: inout SplitMix64) throws {
        let card = try pick(try store.cards(in: nil), &random)
        if Int.random(in: 0..<5, using: &random) == 0 {
            _ = try store.undoLastAnswer()
        } else {
            _ = try store.answer(card.id, rating: Int.random(in: 1...4, using: &random))
        }
    }

    private func listOperation(_ random: inout SplitMix64, create: Bool = false) throws {
        let lists = try store.lists()
        switch create ? 0 : Int.random(in: 0..<5, using: &random) {
        case 0, 1:
            _ = try store.createList(
                name: try pick(Self.listNames, &random), position: Int.random(in: 0...lists.count, using: &random))
        case 2: _ = try store.renameList(try pick(lists, &random).id, to: try pick(Self.listNames, &random))
        case 3:
            _ = try store.moveList(
                try pick(lists, &random).id, to: Int.random(in: 0..<max(1, lists.count), using: &random))
        default: try store.deleteList(try pick(lists, &random).id)
        }
    }

    private func itemOperation(_ random: inout SplitMix64, create: Bool = false) throws {
        let lists = try store.lists()
        let list = try store.list(try pick(lists, &random).id, includeCrossedOut: true)
        let items = list.items ?? []
        switch create ? 0 : Int.random(in: 0..<8, using: &random) {
        case 0, 1:
            _ = try store.addItem(
                to: list.id, title: try pick(Self.titles, &random),
                position: Int.random(in: 0...items.count, using: &random))
        case 2:
            _ = try store.editItem(
                try pick(items, &random).id,
                ItemChanges(title: try pick(Self.titles, &random), quantity: .some(Int32(random.next() % 5))))
        case 3: _ = try store.crossItem(try pick(items, &random).id)
        case 4:
            let target = try pick(lists, &random)
            _ = try store.moveItem(
                try pick(items, &random).id, to: Int.random(in: 0...items.count, using: &random),
                inList: target.id)
        case 5:
            _ = try store.addItemImage(
                to: try pick(items, &random).id, data: Self.png(Int(random.next() % 4)))
        case 6:
            let item = try pick(items, &random)
            try store.removeItemImage(try pick(try store.itemImages(of: item.id), &random).id)
        default: try store.deleteItem(try pick(items, &random).id)
        }
    }

    private func boardOperation(_ random: inout SplitMix64, create: Bool = false) throws {
        let boards = try store.boards()
        switch create ? 0 : Int.random(in: 0..<4, using: &random) {
        case 0, 1: _ = try store.createBoard(title: try pick(Self.listNames, &random))
        case 2:
            _ = try store.renameBoard(try pick(boards, &random).id, to: try pick(Self.listNames, &random))
        default: try store.deleteBoard(try pick(boards, &random).id)
        }
    }

    private func columnOperation(_ random: inout SplitMix64, create: Bool = false) throws {
        let board = try store.board(try pick(try store.boards(), &random).id)
        let columns = board.columns ?? []
        switch create ? 0 : Int.random(in: 0..<5, using: &random) {
        case 0, 1:
            _ = try store.addColumn(
                to: board.id, title: try pick(["To do", "Doing", "Done"], &random),
                position: Int.random(in: 0...columns.count, using: &random))
        case 2:
            _ = try store.moveColumn(
                try pick(columns, &random).id, to: Int.random(in: 0..<max(1, columns.count), using: &random))
        case 3: _ = try store.renameColumn(try pick(columns, &random).id, to: "Later")
        default: try store.deleteColumn(try pick(columns, &random).id)
        }
    }

    private func boardCardOperation(_ random: inout SplitMix64, create: Bool = false) throws {
        let boards = try store.boards().map { try store.board($0.id, includeArchived: true) }
        let columns = boards.flatMap { $0.columns ?? [] }
        let cards = columns.flatMap { $0.cards ?? [] }
        switch create ? 0 : Int.random(in: 0..<6, using: &random) {
        case 0, 1:
            let column = try pick(columns, &random)
            _ = try store.addBoardCard(
                to: column.id, title: try pick(Self.titles, &random),
                position: Int.random(in: 0...(column.cards?.count ?? 0), using: &random))
        case 2, 3:
            let target = try pick(columns, &random)
            _ = try store.moveBoardCard(
                try pick(cards, &random).id,
                to: Int.random(in: 0...(target.cards?.count ?? 0), using: &random), inColumn: target.id)
        case 4:
            let card = try pick(cards, &random)
            _ = try store.setBoardCardArchived(card.id, !card.isArchived)
        default: try store.deleteBoardCard(try pick(cards, &random).id)
        }
    }

    private func accountOperation(_ random: inout SplitMix64) throws {
        if Bool.random(using: &random) {
            _ = try store.setPlan(
                Bool.random(using: &random) ? .premium : .free, freeCardLimit: 25 + Int(random.next() % 20))
        } else {
            _ = try store.setSetting("dayStartHour", to: "\(random.next() % 6)")
        }
    }

    /// Four real, distinct images (the store decodes every image), made once.
    static let pngs = (0..<4).map { try! ImageIngest.sample(width: 4, height: 4, seed: $0 + 1, format: .png) }

    static func png(_ seed: Int) -> Data { pngs[seed % pngs.count] }

    /// What is wrong with this replica's state that a merge could have broken, or nil.
    func integrityProblem() throws -> String? {
        if let problem = try store.integrityProblems().first { return problem }
        func sequence(_ numbers: [Int], _ place: String) -> String? {
            numbers == Array(0..<numbers.count) ? nil : "\(place) has order numbers \(numbers)"
        }
        let lists = try store.lists()
        if let problem = sequence(lists.map(\.orderNumber), "the lists") { return problem }
        for list in lists {
            let items = try store.list(list.id, includeCrossedOut: true).items ?? []
            if let problem = sequence(items.map(\.orderNumber), "list \(list.id)") { return problem }
            for item in items {
                let images = try store.itemImages(of: item.id)
                if let problem = sequence(images.map(\.orderNumber), "item \(item.id)") { return problem }
            }
        }
        var seen: Set<BoardCardID> = []
        for summary in try store.boards() {
            let board = try store.board(summary.id, includeArchived: true)
            let columns = board.columns ?? []
            if let problem = sequence(columns.map(\.orderNumber), "board \(board.id)") { return problem }
            for column in columns {
                let cards = column.cards ?? []
                if let problem = sequence(cards.map(\.orderNumber), "column \(column.id)") { return problem }
                for card in cards where !seen.insert(card.id).inserted {
                    return "board card \(card.id) is in two places"
                }
            }
        }
        return nil
    }
}
