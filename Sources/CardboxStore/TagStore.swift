import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// A tag with how many cards carry it.
public struct TagSummary: Codable, Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var cardCount: Int
}

extension CardboxStore {
    public func tags() throws -> [TagSummary] {
        try read { context in
            try Row.fetchAll(
                context.db.cachedStatement(
                    sql: """
                        SELECT tag.id, tag.name, COUNT(cardTag.tagKey) AS cardCount FROM tag
                        LEFT JOIN cardTag ON cardTag.tagKey = tag.key
                        GROUP BY tag.key ORDER BY tag.nameKey
                        """), arguments: []
            ).map { TagSummary(id: try UUID(stored: $0["id"]), name: $0["name"], cardCount: $0["cardCount"]) }
        }
    }

    /// Renames a tag. A tag's id is derived from its name, so a new name is a new tag: the cards move to
    /// it (merging with an existing tag of that name), and the old one is deleted.
    public func renameTag(_ name: String, to newName: String) throws -> TagSummary {
        let newName = try TagName.validate(newName)
        try write { tx in
            let oldId = try tx.tagID(named: name)
            let newId = DeterministicID.tagID(
                accountId: tx.context.accountId, normalizedName: TagName.normalize(newName)
            )
            .storage
            if newId == oldId {
                try tx.update(.tag, id: oldId, [(.name, newName)])
                return
            }
            var cache: [String: WriteContext.FoundTag] = [:]
            let targetId = try tx.findOrCreateTag(named: newName, cache: &cache).id
            let cardIds = try String.fetchAll(
                tx.db.cachedStatement(
                    sql: """
                        SELECT \(Entity.card.idExpression(table: "card"))
                        FROM cardTag JOIN card ON card.key = cardTag.cardKey
                        WHERE cardTag.tagKey = (SELECT key FROM tag WHERE id = ?)
                        """),
                arguments: [oldId])
            for cardId in cardIds {
                try tx.unlinkTag(cardId: cardId, tagId: oldId)
                try tx.linkTag(cardId: cardId, tagId: targetId)
            }
            try tx.delete(.tag, id: oldId)
        }
        guard let renamed = try tags().first(where: { TagName.normalize($0.name) == TagName.normalize(newName) }) else {
            throw CardboxError.notFound(kind: "tag", reference: newName)
        }
        return renamed
    }

    /// Deletes a tag; its cards stay, without it.
    public func deleteTag(_ name: String) throws {
        try write { tx in
            try tx.delete(.tag, id: try tx.tagID(named: name))
        }
    }
}

extension WriteContext {
    /// A tag found or made in a transaction: its id, and its row's key (what links are written by).
    struct FoundTag {
        let id: String
        let key: Int64
    }

    /// Seed 001's `findOrCreateTag`: the tag whose normalized name matches, else a new one whose id is
    /// derived from that name (so every device of the account mints the same id).
    func findOrCreateTag(named name: String, cache: inout [String: FoundTag]) throws -> FoundTag {
        let normalized = TagName.normalize(name)
        if let tag = cache[normalized] { return tag }
        let id = DeterministicID.tagID(accountId: context.accountId, normalizedName: normalized).storage
        let key: Int64
        if let existing = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT key FROM tag WHERE id = ?"), arguments: [id])
        {
            key = existing
        } else {
            try insert(.tag, id: id, [(.name, name), (.nameKey, normalized), (.createdAt, nowMillis)])
            key = db.lastInsertedRowID  // the tag's row: nothing else is written after it
        }
        let tag = FoundTag(id: id, key: key)
        cache[normalized] = tag
        return tag
    }

    func tagID(named name: String) throws -> String {
        guard
            let id = try String.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM tag WHERE nameKey = ?"),
                arguments: [TagName.normalize(name)])
        else { throw CardboxError.notFound(kind: "tag", reference: name) }
        return id
    }

    func linkTag(cardId: String, tagId: String) throws {
        let linked = try context.count(
            "SELECT COUNT(*) FROM cardTag WHERE \(Entity.cardTag.rowCondition)", [cardId, tagId])
        guard linked == 0 else { return }
        try insert(.cardTag, id: RecordID.make([cardId, tagId]), [(.cardId, cardId), (.tagId, tagId)])
    }

    func unlinkTag(cardId: String, tagId: String) throws {
        try delete(.cardTag, id: RecordID.make([cardId, tagId]))
    }

    /// Gives a card exactly these tags, touching only the links that change.
    func replaceTags(of cardId: String, with names: [String]) throws {
        var cache: [String: FoundTag] = [:]
        let wanted = try Set(names.map { try findOrCreateTag(named: $0, cache: &cache).id })
        let current = Set(
            try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT tag.id FROM cardTag JOIN tag ON tag.key = cardTag.tagKey
                        WHERE \(Entity.cardTag.binding("cardId", table: "cardTag"))
                        """),
                arguments: [cardId]))
        for tagId in current.subtracting(wanted).sorted() { try unlinkTag(cardId: cardId, tagId: tagId) }
        for tagId in wanted.subtracting(current).sorted() { try linkTag(cardId: cardId, tagId: tagId) }
    }
}
