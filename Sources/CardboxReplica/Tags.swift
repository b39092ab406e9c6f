/// Tag names: one tag to every spelling that differs only in case and white space (seed 001's
/// `findOrCreateTag`), as the store keys them (`nameKey`) and lists them.
public enum TagNames {
    /// The key two names share when they name the same tag: trimmed, inner white space folded, lowercased.
    public static func key(_ name: String) -> String { lowercased(folded(name)) }

    /// `lowercased()`, but a name with no capital letter and nothing beyond ASCII (most tags) is
    /// returned as it is, without making a new string.
    static func lowercased(_ name: String) -> String {
        name.utf8.contains { (0x41...0x5A).contains($0) || $0 >= 0x80 } ? name.lowercased() : name
    }

    /// Trimmed, each run of white space inside made one space.
    static func folded(_ name: String) -> String {
        isFolded(name) ? name : name.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// A tag name as checked (folded, 1 to 50 characters).
    public static func validate(_ name: String) throws(CardboxError) -> String {
        try Validate.text(folded(name), field: "tag", length: Limits.tagName)
    }

    /// Validates a card's tags, keeping the first spelling of each distinct tag. A card's few tags
    /// are compared with each other one by one; a set of their keys is made only for a long list
    /// (an import validates every row's tags, and hashing them into a set was half of the work).
    public static func validateList(_ names: [String]) throws(CardboxError) -> [String] {
        var result: [String] = []
        result.reserveCapacity(names.count)
        let usesSet = names.count > 16
        var keys: [String] = []
        var seen = Set<String>()
        if usesSet { seen.reserveCapacity(names.count) } else { keys.reserveCapacity(names.count) }
        for name in names {
            let valid = try validate(name)
            let key = lowercased(valid)
            let isNew = usesSet ? seen.insert(key).inserted : !keys.contains(key)
            guard isNew else { continue }
            if !usesSet { keys.append(key) }
            result.append(valid)
        }
        return result
    }

    /// The tags a person typed in a form's one field: separated by commas, white space around each
    /// left out, empty ones dropped.
    public static func split(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmedWhitespace }.filter { !$0.isEmpty }
    }

    /// Whether `name` is ASCII words between single spaces, as most tags are (`verbs`, `group 3`):
    /// then folding leaves it as it is, told from its bytes without splitting it into `Character`s
    /// (an import of 100,000 cards validates 200,000 tags).
    static func isFolded(_ name: String) -> Bool {
        var afterSpace = true
        for byte in name.utf8 {
            let space = byte == UInt8(ascii: " ")
            // The ASCII white space but the space: tab, line feed, vertical tab, form feed, return.
            if byte >= 0x80 || (!space && (0x09...0x0D).contains(byte)) { return false }
            if space && afterSpace { return false }
            afterSpace = space
        }
        return !afterSpace || name.isEmpty
    }
}

/// Tags on a replica that holds records by name (the browser's), written as a store writes them
/// (`TagStore`): a tag found by its name's key or made with the id every device of the account
/// mints for it, and a card's links to its tags (`cardTag`, named `card/tag`).
extension ReplicaRecords {
    var tagEntity: NamedEntity { schema.entity(named: "tag")! }
    var cardTagEntity: NamedEntity { schema.entity(named: "cardTag")! }

    /// The id of the account's tag named `name` (any spelling of it), made when there is none.
    mutating func findOrCreateTag(
        named name: String, account: String, _ clock: WriteClock, _ milliseconds: Int64
    ) -> String {
        let id = NameBasedID.tagID(account: account, key: TagNames.key(name))
        if !records.isLive(Key(tagEntity, id)) {
            create(tagEntity, id: id, ["name": .string(name), "createdAt": .int(milliseconds)], at: clock)
        }
        return id
    }

    mutating func link(card: String, tag: String, _ clock: WriteClock) {
        let key = Key(cardTagEntity, card + "/" + tag)
        guard !records.isLive(key) else { return }
        create(cardTagEntity, id: key.id, ["cardId": .string(card), "tagId": .string(tag)], at: clock)
    }

    /// Gives a card exactly these tags, touching only the links that change.
    mutating func replaceTags(
        of card: String, with names: [String], account: String, _ clock: WriteClock, _ milliseconds: Int64
    ) throws(CardboxError) {
        var wanted = Set<String>()
        for name in names { wanted.insert(findOrCreateTag(named: name, account: account, clock, milliseconds)) }
        let current = Set(tagIds(of: card))
        for tag in current.subtracting(wanted).sorted() { delete(Key(cardTagEntity, card + "/" + tag), at: clock) }
        for tag in wanted.subtracting(current).sorted() { link(card: card, tag: tag, clock) }
    }

    /// The ids of the tags a card is linked to (links a person sees: their tag too, as the store's
    /// join of links and tags reads them).
    func tagIds(of card: String) -> [String] {
        var tags: [String] = []
        forEachRow(of: cardTagEntity, naming: ParentReference(entity: cardEntity.rawValue, id: card)) { row in
            guard isVisible(Key(cardTagEntity, row.id)), case .string(let tag)? = row.fields["tagId"]?.value
            else { return }
            tags.append(tag)
        }
        return tags
    }
}
