import CardboxCore
import Foundation
import GRDB

extension CardboxStore {
    /// Adds what a person wrote as a front and back: a front with cloze deletions makes its cloze
    /// cards (the back their extra, with the draft's notes and tags), any other front one card.
    public func addWrittenCards(to deckReference: DeckID, _ draft: CardDraft, image: Data? = nil) throws -> [Card] {
        guard !Cloze.numbers(in: draft.front).isEmpty else {
            return [try addCard(to: deckReference, draft, image: image)]
        }
        return try addClozeCards(
            to: deckReference, text: draft.front, extra: draft.back, notes: draft.notes, tags: draft.tags, image: image)
    }

    /// Adds the cards a cloze text makes, one per deletion number (`CardDraft.cloze`): all of them, or
    /// none when they would pass the plan's card limit.
    public func addClozeCards(
        to deckReference: DeckID, text: String, extra: String = "", notes: String = "", tags: [String] = [],
        image: Data? = nil
    ) throws -> [Card] {
        let drafts = try CardDraft.cloze(text: text, extra: extra, notes: notes, tags: tags).map { try $0.validated() }
        return try write(decodingImages: Self.decoding(image)) { tx in
            try tx.checkCanAdd(batchOf: drafts.count)
            let deck = try tx.context.deck(tx.context.existing(deckReference, .deck))
            let cards = try tx.insertCards(drafts.map { ($0, image) }, into: deck)
            for card in cards {
                try tx.logEvent(.cardAdded, cardLanguage: card.frontLanguage, tagCount: card.tags.count)
            }
            return cards
        }
    }

    /// The cloze cards made from the same text as `card` (in the same deck), itself included, by
    /// deletion number; a card that is not a cloze card has none but itself.
    public func clozeSiblings(of reference: CardID) throws -> [Card] {
        try read { context in
            let card = try context.card(context.existing(reference, .card))
            guard card.isCloze else { return [card] }
            return try context.cards(ids: Self.clozeSiblingRows(of: card, context).map(\.id)).sorted {
                ($0.clozeNumber ?? 0) < ($1.clozeNumber ?? 0)
            }
        }
    }

    /// Ids and deletion numbers of the cloze cards of `card`'s deck with its text, itself included,
    /// by deletion number (then id): an edit that drops two deletions names the first, on every
    /// replica.
    fileprivate static func clozeSiblingRows(of card: Card, _ context: StoreContext) throws -> [(
        id: String, number: Int
    )] {
        try Row.fetchAll(
            context.db.cachedStatement(
                sql: """
                    SELECT \(Entity.card.idExpression) AS id, clozeNumber FROM card
                    WHERE \(Entity.card.binding("deckId")) AND frontKey = ? AND cardType = ? AND front = ?
                      AND clozeNumber IS NOT NULL
                    ORDER BY clozeNumber, id
                    """),
            arguments: [card.deckId.storage, SuggestionMatch.frontKey(card.front), Cloze.cardType, card.front]
        ).map { ($0["id"], $0["clozeNumber"]) }
    }
}

extension WriteContext {
    /// A cloze card's text and back extra belong to every card made from the text, as a note's fields
    /// do in Anki: a change to one is made to all. A deletion number the new text adds gets a card
    /// (within the plan's limit); one it drops while a card studies it is refused, so no card is left
    /// without its deletion.
    func editClozeText(of card: Card, front: String?, back: String?) throws {
        let text = front ?? card.front
        let numbers = Set(Cloze.numbers(in: text))
        let siblings = try CardboxStore.clozeSiblingRows(of: card, context)
        for sibling in siblings where !numbers.contains(sibling.number) {
            let which = sibling.id == card.id.storage ? "this card" : "card \(sibling.id.suffix(8))"
            throw CardboxError.invalid(
                field: "front",
                reason:
                    "no longer has the deletion c\(sibling.number), which \(which) studies: keep it, or delete that card first"
            )
        }
        // Only what changed is written: a field given its old value would still get a new clock,
        // and win over a real edit made meanwhile on another device.
        var fields: Assignments<Columns.Card> = []
        if let front, front != card.front {
            fields += [(.front, front), (.frontKey, SuggestionMatch.frontKey(front))]
        }
        if let back, back != card.back { fields.append((.back, back)) }
        guard !fields.isEmpty else { return }
        for sibling in siblings where sibling.id != card.id.storage {
            try update(.card, id: sibling.id, fields + [(.modifiedAt, nowMillis)])
        }
        // Only a deletion the new text brings gets a card: one whose card was deleted stays so.
        let added = numbers.subtracting(Cloze.numbers(in: card.front)).subtracting(siblings.map(\.number)).sorted()
        guard !added.isEmpty else { return }
        try checkCanAdd(batchOf: added.count)
        let deck = try context.deck(card.deckId.storage)
        let drafts = added.map { number in
            CardDraft(
                front: text, back: back ?? card.back, cardType: Cloze.cardType, notes: card.notes, tags: card.tags,
                clozeNumber: number)
        }
        for card in try insertCards(drafts.map { ($0, nil) }, into: deck) {
            try logEvent(.cardAdded, cardLanguage: card.frontLanguage, tagCount: card.tags.count)
        }
    }
}
