import CardboxCore
import CardboxSync
import GRDB
import Testing

@testable import CardboxStore

@Suite("Table column types")
struct TableColumnTests {
    /// The names a table's column type must list: the registry's columns for its entity, the lookup
    /// columns derived from them, and the key each key reference is kept as.
    static func expectedNames(_ entity: Entity) -> Set<String> {
        let wire = entity.columns.map(\.name)
        let keys = entity.keyReferences.keys.map(entity.storedColumn)
        return Set(wire + entity.derivedColumns.map(\.column) + keys)
    }

    static func names<Column: TableColumn>(_ type: Column.Type) -> (Entity, [String]) {
        (Column.entity, Column.allCases.map(\.name))
    }

    @Test("every synced entity has one column type, naming exactly its registry, derived and key columns")
    func typesMatchTheRegistry() throws {
        let typed = Columns.all.map { Self.names($0) }
        #expect(typed.map(\.0) == Entity.allCases)
        for (entity, names) in typed {
            #expect(Set(names).count == names.count, "\(entity) lists a column twice")
            #expect(Set(names) == Self.expectedNames(entity), "\(entity)")
        }
    }

    static func declarationOrder<Column: TableColumn>(_ type: Column.Type) -> Bool {
        Column.allCases.enumerated().allSatisfy { $0.offset == $0.element.ordinal }
    }

    @Test("a column's ordinal is its place in its type's declaration, where a whole-record read finds it")
    func ordinalsFollowDeclaration() throws {
        for type in Columns.all {
            let inOrder = Self.declarationOrder(type)
            #expect(inOrder, "\(type)")
        }
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        _ = try store.addCard(to: deck.id, CardDraft(front: "hola", back: "hello"))
        let (cardNames, deckNames) = try store.read { context in
            (
                Array(try Row.fetchOne(context.db, sql: "SELECT \(Columns.Card.record) FROM card")!.columnNames),
                Array(try Row.fetchOne(context.db, sql: "SELECT \(Columns.Deck.record) FROM deck")!.columnNames)
            )
        }
        #expect(cardNames.count == Columns.Card.recordWidth && deckNames.count == Columns.Deck.recordWidth)
        #expect(cardNames.prefix(2) == ["key", "id"] && deckNames.prefix(2) == ["key", "id"])
        for column in Columns.Card.allCases { #expect(cardNames[column.ordinal + 2] == column.name) }
        for column in Columns.Deck.allCases { #expect(deckNames[column.ordinal + 2] == column.name) }
    }

    @Test("the store's tables have every column their types name, where the types say they are kept")
    func tablesHaveTheColumns() throws {
        let store = try TestStore.make()
        let tables = try store.read { context in
            try Dictionary(
                uniqueKeysWithValues: Entity.allCases.map { entity in
                    (entity, Set(try context.db.columns(in: entity.table).map(\.name)))
                })
        }
        for (entity, names) in Columns.all.map({ Self.names($0) }) {
            let missing = names.filter { !tables[entity]!.contains(entity.storedColumn($0)) }
            #expect(missing.isEmpty, "\(entity.table) has no column for \(missing)")
        }
    }

    @Test("a column's field is the registry's field of its wire column; a derived lookup column has none")
    func columnFields() {
        #expect(Columns.Card.isFavorite.field?.name == "isFavorite")
        #expect(Columns.Card.dueAt.field?.name == "schedule")
        #expect(Columns.Card.archivedAt.field?.name == "archive")
        #expect(Columns.Card.deckKey.field?.name == "deckId")
        #expect(Columns.ReviewLog.cardKey.field?.name == "cardId")
        #expect(Columns.Item.position.field?.name == "placement")
        #expect(Columns.Item.listId.field?.name == "placement")
        #expect(Columns.Card.frontKey.field == nil)
        #expect(Columns.Deck.nameKey.field == nil)
        #expect(Columns.Board.nameKey.field == nil)
    }

    @Test("an update gives each synced field it writes the transaction's clock, once, and none to a lookup column")
    func updateClocksItsFields() throws {
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        let card = try store.addCard(to: deck.id, CardDraft(front: "hola", back: "hello"))
        try store.write { tx in
            try tx.update(
                .card, id: card.id.storage,
                [(.front, "adiós"), (.frontKey, "adios"), (.state, "review"), (.reps, 1), (.isFavorite, 1)])
        }
        let clocked = try store.read { context in
            try String.fetchAll(
                context.db, sql: "SELECT field FROM fieldClock WHERE entity = 'card' AND rowId = ? ORDER BY field",
                arguments: [card.id.storage])
        }
        #expect(clocked == ["front", "isFavorite", "schedule"])
        let edited = try store.card(card.id)
        #expect(edited.front == "adiós" && edited.isFavorite && edited.reps == 1)
    }
}
