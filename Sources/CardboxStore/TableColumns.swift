import CardboxSync
import Foundation
import GRDB

/// A column of one of the store's synced tables, named as the wire names it (a key reference by the
/// id it names, `deckId`) or as the table keeps it (`deckKey`, a lookup key like `frontKey`).
///
/// Local writes and the record reads name columns through these types, so a misspelt or unknown
/// column does not compile. The cases are written out per table, and a test holds each type equal
/// to the registry's columns for its entity plus the table's derived and key columns, and checks
/// that the table has every one.
protocol TableColumn: RawRepresentable<String>, CaseIterable, Hashable, Sendable {
    static var entity: Entity { get }
}

extension TableColumn {
    var name: String { rawValue }

    /// The synced field a write of the column changes, which gets the write's clock; nil for a
    /// lookup column derived from a field (it changes with that field, whose clock covers it).
    var field: SyncedField? {
        if SyncRegistry.derivedColumns.contains(rawValue) { return nil }
        return Self.entity.field(ofColumn: Self.entity.wireColumn(rawValue))
    }
}

extension TableColumn {
    /// The column's place in `allCases`. A raw-valued enum without payloads is stored as its case's
    /// place, and a whole-record read asks it at every column (`RecordRow`); `TableColumnTests`
    /// holds it equal to `allCases`' order for every table.
    var ordinal: Int { Int(withUnsafeBytes(of: self) { $0[0] }) }

    /// What a whole record is read from: the row's local `key`, its `id`, then every column in
    /// declaration order (a key reference as the id it names). `RecordRow` reads it by position,
    /// so the declaration is the one place the order lives. Columns a query adds after these start
    /// at `recordWidth`.
    static func recordSelect() -> String {
        let table = entity.table
        let columns = ["id"] + allCases.map(\.name)
        return
            (["\(table).key AS key"]
            + columns.map { "\(entity.selectExpression($0, table: table)) AS \($0)" }).joined(separator: ", ")
    }

    /// The number of columns `recordSelect()` reads.
    static var recordWidth: Int { allCases.count + 2 }
}

/// A row of `Column.recordSelect()`, read by position: as fast as reading by index (a name is
/// looked up in a dictionary GRDB builds per row), with the columns named by their declaration.
struct RecordRow<Column: TableColumn, Source: PositionalRow> {
    let source: Source

    init(_ source: Source, _ columns: Column.Type) { self.source = source }

    /// Like `Row`'s subscript: `NULL` reads as nil when `Value` is optional.
    subscript<Value: DatabaseValueConvertible>(_ column: Column) -> Value { source[column.ordinal + 2] }

    /// A time column, kept as milliseconds since 1970.
    func millis(_ column: Column) -> Date? { (self[column] as Int64?).map(Date.init(storageMillis:)) }

    /// The row's local key: what rows naming it are joined by (a card's tag links).
    var key: Int64 { source[0] }

    /// The row's wire id.
    var id: String { source[1] }
}

/// A synced table as a write names it: `.card`, `.item`. Its type carries the table's columns, so
/// `tx.update(.card, id: id, [(.isFavorite, 1)])` accepts only a card's columns.
struct Table<Column: TableColumn>: Sendable {
    var entity: Entity { Column.entity }
}

/// Values for some of a table's columns, in the order they are written.
typealias Assignments<Column: TableColumn> = [(Column, (any DatabaseValueConvertible)?)]

/// The column types of every synced table, one per entity.
enum Columns {
    static let all: [any TableColumn.Type] = [
        Account.self, Setting.self, Deck.self, Card.self, Tag.self, CardTag.self, Suggestion.self,
        RejectedSuggestion.self, ReviewLog.self, ItemList.self, Item.self, ItemImage.self, Board.self,
        BoardColumn.self, BoardCard.self,
    ]

    enum Account: String, TableColumn {
        static let entity = Entity.account
        case plan, freeCardLimit
    }

    enum Setting: String, TableColumn {
        static let entity = Entity.setting
        case key, value
    }

    enum Deck: String, TableColumn {
        static let entity = Entity.deck
        case name, nameKey, frontLanguage, backLanguage, queuedSuggestions, desiredRetention, learningSteps
        case relearningSteps, maximumInterval, newCardsPerDay, reviewsPerDay, fsrsParameters, enableFuzz
        case createdAt, modifiedAt
    }

    enum Card: String, TableColumn {
        static let entity = Entity.card
        case deckId, deckKey, front, frontKey, back, cardType, notes, frontLanguage, backLanguage, isFavorite
        case imageHash, imagePrompt, jsonContent, isIncomplete, clozeNumber, isArchived, archivedAt
        case state, step, stability, difficulty, lastReviewAt, reps, lapses, dueAt, createdAt, modifiedAt
    }

    enum Tag: String, TableColumn {
        static let entity = Entity.tag
        case name, nameKey, createdAt
    }

    enum CardTag: String, TableColumn {
        static let entity = Entity.cardTag
        case cardId, tagId, cardKey, tagKey
    }

    enum Suggestion: String, TableColumn {
        static let entity = Entity.suggestion
        case deckId, deckKey, front, frontKey, back, cardType, imagePrompt, context, category, isVisible
        case imageHash, createdAt
    }

    enum RejectedSuggestion: String, TableColumn {
        static let entity = Entity.rejectedSuggestion
        case deckId, deckKey, front, frontKey, cardType, deletedAt
    }

    enum ReviewLog: String, TableColumn {
        static let entity = Entity.reviewLog
        case cardId, cardKey, deckId, deckKey, rating, reviewedAt, stateBefore, stateAfter, elapsedDays
        case durationMs, previous
    }

    enum ItemList: String, TableColumn {
        static let entity = Entity.itemList
        case position, name, isArchived, createdAt, modifiedAt
    }

    enum Item: String, TableColumn {
        static let entity = Entity.item
        case listId, position, title, description, quantity, isCrossedOut, createdAt, modifiedAt
    }

    enum ItemImage: String, TableColumn {
        static let entity = Entity.itemImage
        case itemId, imageHash, position, createdAt
    }

    enum Board: String, TableColumn {
        static let entity = Entity.board
        case boardTitle, nameKey, createdAt, modifiedAt
    }

    enum BoardColumn: String, TableColumn {
        static let entity = Entity.boardColumn
        case boardId, listTitle, position, createdAt, modifiedAt
    }

    enum BoardCard: String, TableColumn {
        static let entity = Entity.boardCard
        case columnId, position, cardTitle, cardDescription, isArchived, createdAt, modifiedAt
    }
}

extension Table where Column == Columns.Account { static var account: Self { Self() } }
extension Table where Column == Columns.Setting { static var setting: Self { Self() } }
extension Table where Column == Columns.Deck { static var deck: Self { Self() } }
extension Table where Column == Columns.Card { static var card: Self { Self() } }
extension Table where Column == Columns.Tag { static var tag: Self { Self() } }
extension Table where Column == Columns.CardTag { static var cardTag: Self { Self() } }
extension Table where Column == Columns.Suggestion { static var suggestion: Self { Self() } }
extension Table where Column == Columns.RejectedSuggestion { static var rejectedSuggestion: Self { Self() } }
extension Table where Column == Columns.ReviewLog { static var reviewLog: Self { Self() } }
extension Table where Column == Columns.ItemList { static var itemList: Self { Self() } }
extension Table where Column == Columns.Item { static var item: Self { Self() } }
extension Table where Column == Columns.ItemImage { static var itemImage: Self { Self() } }
extension Table where Column == Columns.Board { static var board: Self { Self() } }
extension Table where Column == Columns.BoardColumn { static var boardColumn: Self { Self() } }
extension Table where Column == Columns.BoardCard { static var boardCard: Self { Self() } }

/// A row of one synced table, read by the table's columns: `TableRow<Columns.Item>(row)[.title]`.
struct TableRow<Column: TableColumn> {
    let row: Row

    init(_ row: Row) { self.row = row }

    /// Like `Row`'s subscript: `NULL` reads as nil when `Value` is optional.
    subscript<Value: DatabaseValueConvertible>(_ column: Column) -> Value { row[column.name] }

    /// The row's wire id, as the query selected it (`id`).
    var id: String { row["id"] }
}
