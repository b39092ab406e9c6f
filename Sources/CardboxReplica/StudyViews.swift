/// What the browser's study page shows when it is drawn from the replica (offline), as JSON for the
/// page to draw.
extension ReplicaRecords {
    /// How many of the coming cards' pictures a study page keeps for offline study: a day's worth.
    static let picturesKept = 200

    /// A deck's study page at `now`: `{"page": the study template's model (`WebPageModels.study`,
    /// as the server's study page), "pictures": the image hashes of the next `picturesKept` cards}`;
    /// seed 000's not-found for a deck a person does not see.
    public func studyView(deck deckId: String, now: Int64, day: StudyDayBounds) throws(CardboxError) -> JSONValue {
        let deck = try visibleDeck(deckId)
        let study = try deckDay(deck: deckId, now: now, day: day)
        let counts = Self.counts(of: study)
        let coming = Self.queue(of: study, limit: Self.picturesKept)
        var next: WebPageModels.StudyCard?
        if let first = coming.first, let row = records.rows[Key(cardEntity, first.id)] {
            var (clozeNumber, imageHash): (Int?, String?) = (nil, nil)
            if case .int(let number)? = row.fields["clozeNumber"]?.value { clozeNumber = Int(number) }
            if case .string(let hash)? = row.fields["imageHash"]?.value { imageHash = hash }
            let due = try nextDue(card: first.id, deck: deckId, now: now)
            next = WebPageModels.StudyCard(
                id: first.id, front: Self.text(row, "front"), back: Self.text(row, "back"),
                notes: Self.text(row, "notes"), clozeNumber: clozeNumber, imageHash: imageHash,
                intervals: due.map { IntervalLabel.text(milliseconds: ($0 ?? now) - now) },
                remaining: (counts.new, counts.learning, counts.review))
        }
        // The thumbnails the coming cards show, for the page to keep.
        var pictures: [JSONValue] = []
        for card in coming {
            if case .string(let hash)? = records.rows[Key(cardEntity, card.id)]?.fields["imageHash"]?.value {
                pictures.append(.string(hash))
            }
        }
        let page = WebPageModels.study(
            deck: .init(id: deckId, name: Self.text(deck, "name")), next: next,
            canUndo: latestAnswer(inDeck: deckId) != nil)
        return .object(["page": page, "pictures": .array(pictures)])
    }
}

extension ReplicaRecords {
    /// The account's settings as their records hold them, `{"key": "value as text"}`: what the page
    /// needs to work out a study day (`dayStartHour`, `timeZone`).
    public func settingValues() -> JSONValue {
        guard let setting = schema.entity(named: "setting") else { return .object([:]) }
        var values: [String: JSONValue] = [:]
        for row in visibleTopLevelRows(setting) {
            if case .string(let name)? = row.fields["key"]?.value { values[name] = row.fields["value"]?.value ?? .null }
        }
        return .object(values)
    }
}

extension ReplicaRecords {
    /// A card's front as the study pages draw it (HTML): a cloze card's deletion hidden, or marked
    /// once revealed; any other card's front escaped.
    static func side(of card: ReplicaRow<NamedEntity>, revealed: Bool) -> String {
        var clozeNumber: Int?
        if case .int(let number)? = card.fields["clozeNumber"]?.value { clozeNumber = Int(number) }
        return WebPageModels.cardSide(front: text(card, "front"), clozeNumber: clozeNumber, revealed: revealed)
    }
}
