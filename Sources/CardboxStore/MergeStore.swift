import CardboxCore
import Foundation
import GRDB

/// Merging one deck, list or board into another: what two devices that each made "Spanish" before
/// they first synced need, so the account has one. Everything moves as ordinary edits (a card's deck,
/// an item's list, a column's board), so sync carries the merge to every device and the records keep
/// their ids, history and schedules; the emptied record is then deleted. One transaction each.
extension CardboxStore {
    /// Gives `target` every card of `source` (archived ones too) with its tags, schedule and
    /// reviews, then deletes `source` with what belongs to it alone: its queued and rejected
    /// suggestions (the target's queue fills again from the target's settings). The target keeps its
    /// own name and settings.
    ///
    /// The cards are made anew in `target` (new ids, every field and review copied) and the old
    /// ones go with `source`: a card's deck is not a reference a move may change (a card added
    /// offline to a deck deleted elsewhere is deleted with it, so it stops counting toward the
    /// plan's limit), so a device that applies the deletion before the cards' new deck would lose
    /// them. Copies need no order: the count stays the same, on this device and in the push.
    public func mergeDeck(_ source: DeckID, into target: DeckID) throws -> Deck {
        try write { tx in
            let (from, to) = try Self.pair(tx, source, target, .deck, kind: "deck")
            var cards: [String: String] = [:]
            try Self.copyRows(.card, of: "deckId", from, tx) { row in
                let id = tx.newID()
                cards[row["id"]?.text ?? ""] = id
                (row["id"], row["deckId"]) = (.string(id), .string(to))
            }
            try Self.copyRows(.reviewLog, of: "deckId", from, tx) { row in
                row["id"] = .string(tx.newID())
                row["deckId"] = .string(to)
                row["cardId"] = row["cardId"].flatMap(\.text).flatMap { cards[$0] }.map(JSONValue.string) ?? .null
            }
            // A tag link's id is its card's and its tag's.
            for (old, new) in cards.sorted(by: { $0.value < $1.value }) {
                try Self.copyRows(.cardTag, of: "cardId", old, tx) { row in row["cardId"] = .string(new) }
            }
            let images = try String.fetchAll(
                tx.db.cachedStatement(
                    sql: """
                        SELECT imageHash FROM suggestion WHERE \(Entity.suggestion.binding("deckId"))
                        AND imageHash IS NOT NULL
                        """), arguments: [from])
            try tx.delete(.deck, id: from)
            try tx.collectImages(images)
            try tx.update(.deck, id: to, [(.modifiedAt, tx.nowMillis)])
            return try tx.context.deck(to)
        }
    }

    /// Inserts a copy of every `entity` row whose `parent` column names `parentId`, in the order
    /// they were made, as this device's writes: `change` edits a row's values, its new id included.
    private static func copyRows(
        _ entity: Entity, of parent: String, _ parentId: String, _ tx: WriteContext,
        _ change: (inout [String: JSONValue]) throws -> Void
    ) throws {
        let storedOnly = storedOnlyColumns(entity)
        // By id, the order records were made in (ids are time-ordered); a card's tag links have none.
        let order = entity.identityColumns == ["id"] ? "ORDER BY t.\(entity.storedColumn("id"))" : ""
        let rows = try Row.fetchAll(
            tx.db,
            sql: """
                SELECT \(entity.allColumns(table: "t")) FROM \(entity.table) t
                WHERE \(entity.binding(parent, table: "t")) \(order)
                """, arguments: [parentId])
        for stored in rows {
            var row = values(stored)
            for column in storedOnly { row[column] = nil }
            try change(&row)
            try insert(row, into: entity.rawValue, tx: tx)
        }
    }

    /// Moves every item of `source` to the end of `target`, in their order, crossed out or not, with
    /// their images, then deletes `source`.
    public func mergeList(_ source: ListID, into target: ListID) throws -> ItemList {
        try write { tx in
            let (from, to) = try Self.pair(tx, source, target, .itemList, kind: "list")
            let ids = try String.fetchAll(
                tx.db.cachedStatement(sql: "SELECT id FROM item WHERE listId = ? ORDER BY position, id"),
                arguments: [from])
            for id in ids {
                let key = try tx.position(.item, parentId: to, at: nil, excluding: id)
                try tx.update(.item, id: id, [(.listId, to), (.position, key), (.modifiedAt, tx.nowMillis)])
            }
            try tx.deleteListRows(from)
            try tx.touchList(to)
            return try tx.context.itemList(to)
        }
    }

    /// Moves the columns of `source` to `target`: a column whose title the target has already
    /// (exactly) gives its cards, in order, to the end of the target's; any other column moves to
    /// the end of the target with its cards. Then deletes `source`.
    public func mergeBoard(_ source: BoardID, into target: BoardID) throws -> Board {
        try write { tx in
            let (from, to) = try Self.pair(tx, source, target, .board, kind: "board")
            let columns = { (board: String) in
                try Row.fetchAll(
                    tx.db.cachedStatement(
                        sql: "SELECT id, listTitle FROM boardColumn WHERE boardId = ? ORDER BY position, id"),
                    arguments: [board]
                ).map { (id: $0["id"] as String, title: $0["listTitle"] as String) }
            }
            let existing = Dictionary(try columns(to).map { ($0.title, $0.id) }) { first, _ in first }
            for column in try columns(from) {
                guard let same = existing[column.title] else {
                    let key = try tx.position(.boardColumn, parentId: to, at: nil, excluding: column.id)
                    try tx.update(
                        .boardColumn, id: column.id, [(.boardId, to), (.position, key), (.modifiedAt, tx.nowMillis)])
                    continue
                }
                let cards = try String.fetchAll(
                    tx.db.cachedStatement(sql: "SELECT id FROM boardCard WHERE columnId = ? ORDER BY position, id"),
                    arguments: [column.id])
                for card in cards {
                    let key = try tx.position(.boardCard, parentId: same, at: nil, excluding: card)
                    try tx.update(
                        .boardCard, id: card, [(.columnId, same), (.position, key), (.modifiedAt, tx.nowMillis)])
                }
            }
            try tx.delete(.board, id: from)
            return try tx.context.board(to)
        }
    }

    /// The stored ids of a merge's two records, which must be two.
    private static func pair<Record>(
        _ tx: WriteContext, _ source: TypedID<Record>, _ target: TypedID<Record>, _ entity: Entity, kind: String
    ) throws -> (String, String) {
        let (from, to) = (try tx.context.existing(source, entity), try tx.context.existing(target, entity))
        guard from != to else {
            throw CardboxError.invalid(field: kind, reason: "a \(kind) cannot be merged into itself")
        }
        return (from, to)
    }
}
