/// A card of a preset deck (seed 001's `PresetCard`).
public struct PresetCard: Sendable, Equatable {
    public var front: String
    public var back: String
    public var notes: String
    public var tags: [String]

    public init(front: String, back: String, notes: String = "", tags: [String] = []) {
        self.front = front
        self.back = back
        self.notes = notes
        self.tags = tags
    }

    public var draft: CardDraft { CardDraft(front: front, back: back, notes: notes, tags: tags) }
}

/// A ready-made deck that `cardbox deck create --preset SLUG` adds in one batch.
public struct PresetDeck: Sendable, Equatable {
    public var slug: String
    public var name: String
    public var frontLanguage: String
    public var backLanguage: String
    public var cards: [PresetCard]

    public init(slug: String, name: String, frontLanguage: String, backLanguage: String, cards: [PresetCard]) {
        self.slug = slug
        self.name = name
        self.frontLanguage = frontLanguage
        self.backLanguage = backLanguage
        self.cards = cards
    }

    public static func named(_ slug: String) throws -> PresetDeck {
        guard let preset = catalog.first(where: { $0.slug == slug.lowercased() }) else {
            let known = catalog.map(\.slug).joined(separator: ", ")
            throw CardboxError.invalid(field: "preset", reason: "unknown preset '\(slug)' (known: \(known))")
        }
        return preset
    }
}

extension PresetDeck {
    /// The presets still worth offering: one whose deck is already there (a deck of its name, in
    /// any case) is not offered again.
    public static func offered(besides deckNames: [String]) -> [PresetDeck] {
        let taken = Set(deckNames.map { $0.trimmedWhitespace.lowercased() })
        return catalog.filter { !taken.contains($0.name.lowercased()) }
    }

    /// Why this preset cannot be added on `allowance`, said before a person tries: nil when its
    /// cards fit. "Spanish Basics has 30 cards; the free plan has room for 25".
    public func roomNote(_ allowance: CardAllowance) -> String? {
        guard let remaining = allowance.remainingCards, cards.count > remaining else { return nil }
        return "\(name) has \(cards.count) cards; the \(allowance.plan.rawValue) plan has room for \(remaining)"
    }
}
