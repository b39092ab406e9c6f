/// What the browser's study page shows when it is drawn from the replica (offline), as JSON for the
/// page to draw.
extension ReplicaRecords {
    /// A deck's study screen at `now`: `{"deck": {"id", "name"}, "counts": {"learning", "review",
    /// "new"}, "card": null or {"id", "part", "front", "back", "notes", "clozeNumber", "imageHash",
    /// "due": [after Again, Hard, Good, Easy]}, "canUndo"}`; seed 000's not-found for a deck a person
    /// does not see.
    public func studyView(deck deckId: String, now: Int64, day: StudyDayBounds) throws(CardboxError) -> JSONValue {
        let deck = try visibleDeck(deckId)
        let counts = try studyCounts(deck: deckId, now: now, day: day)
        var card = JSONValue.null
        if let next = try studyQueue(deck: deckId, now: now, day: day, limit: 1).first,
            let row = records.rows[Key(cardEntity, next.id)]
        {
            var fields: [String: JSONValue] = ["id": .string(next.id), "part": .string(next.part.rawValue)]
            for name in ["front", "back", "notes", "clozeNumber", "imageHash"] {
                fields[name] = row.fields[name]?.value ?? .null
            }
            fields["due"] = .array(
                try nextDue(card: next.id, deck: deckId, now: now).map { $0.map(JSONValue.int) ?? .null })
            card = .object(fields)
        }
        return .object([
            "deck": .object(["id": .string(deckId), "name": deck.fields["name"]?.value ?? .string("")]),
            "counts": .object([
                "learning": .int(Int64(counts.learning)), "review": .int(Int64(counts.review)),
                "new": .int(Int64(counts.new)),
            ]),
            "card": card, "canUndo": .bool(!reviews(ofDeck: deckId).isEmpty),
        ])
    }
}
