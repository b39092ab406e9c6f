import CardboxCore
import Foundation
import Testing

@Suite("Seed 001 card rules")
struct CardRulesTests {
    @Test("the limit error has seed 001's exact message")
    func limitMessage() {
        let error = CardboxError.cardLimitExceeded(currentCount: 25, limit: 25, remainingCards: 0)
        #expect(
            error.localizedDescription == "Card limit exceeded. You have 25 cards out of 25 allowed. 0 cards remaining."
        )
        let batch = CardboxError.cardLimitExceeded(currentCount: 20, limit: 25, remainingCards: 5, adding: 30)
        #expect(
            batch.localizedDescription == "Card limit exceeded. You have 20 cards out of 25 allowed. 5 cards remaining."
        )
        #expect(
            batch.detail
                == "You tried to add 30 cards. 'cardbox plan set premium' lifts the limit; deleting cards makes room."
        )
    }

    @Test("one card is refused once the count reaches the limit")
    func singleCardLimit() throws {
        try CardAllowance(plan: .free, cardCount: 24, freeCardLimit: 25).checkCanAdd()
        #expect(throws: CardboxError.cardLimitExceeded(currentCount: 25, limit: 25, remainingCards: 0)) {
            try CardAllowance(plan: .free, cardCount: 25, freeCardLimit: 25).checkCanAdd()
        }
        try CardAllowance(plan: .premium, cardCount: 10_000, freeCardLimit: 25).checkCanAdd()
    }

    @Test("a batch is checked whole: count + batch must not pass the limit")
    func batchLimit() throws {
        try CardAllowance(plan: .free, cardCount: 20, freeCardLimit: 25).checkCanAdd(batchOf: 5)
        #expect(throws: CardboxError.cardLimitExceeded(currentCount: 20, limit: 25, remainingCards: 5, adding: 6)) {
            try CardAllowance(plan: .free, cardCount: 20, freeCardLimit: 25).checkCanAdd(batchOf: 6)
        }
        try CardAllowance(plan: .premium, cardCount: 20, freeCardLimit: 25).checkCanAdd(batchOf: 100_000)
    }

    @Test("remaining cards never go below zero; premium is unlimited")
    func remaining() {
        #expect(CardAllowance(plan: .free, cardCount: 30, freeCardLimit: 25).remainingCards == 0)
        #expect(CardAllowance(plan: .free, cardCount: 3, freeCardLimit: 25).remainingCards == 22)
        let premium = CardAllowance(plan: .premium, cardCount: 3, freeCardLimit: 25)
        #expect(premium.hasUnlimitedCards && premium.remainingCards == nil && premium.cardLimit == nil)
    }

    @Test("tag names are trimmed and compared case-insensitively")
    func tagNames() throws {
        #expect(TagName.normalize("  Verbs ") == TagName.normalize("verbs"))
        #expect(TagName.normalize("Irregular   Verbs") == "irregular verbs")
        #expect(try TagName.validateList(["Verbs", " verbs ", "nouns"]) == ["Verbs", "nouns"])
        #expect(try TagName.validateList(["Ñandú", "ñandú", "ÑANDÚ", "Ave"]) == ["Ñandú", "Ave"])
        // A long list is checked through a set of keys: the same outcome.
        let long = (0..<40).map { "Tag \($0 % 20)" } + (0..<20).map { "tag  \($0)" }
        #expect(try TagName.validateList(long) == (0..<20).map { "Tag \($0)" })
        #expect(TagName.normalize("Ñandú Rojo") == "ñandú rojo" && TagName.normalize("plain tag") == "plain tag")
        #expect(throws: CardboxError.invalid(field: "tag", reason: "cannot be empty")) { try TagName.validate("  ") }
    }

    @Test("filters combine: language, then tag, then favorites (seed 001's filteredItems)")
    func filters() {
        let now = Date()
        func card(_ front: String, language: String, tags: [String], favorite: Bool) -> Card {
            Card(
                id: CardID(UUID()), deckId: DeckID(UUID()), front: front, back: "-", frontLanguage: language,
                backLanguage: "en",
                isFavorite: favorite, tags: tags, createdAt: now, modifiedAt: now)
        }
        let cards = [
            card("hola", language: "es", tags: ["greeting"], favorite: true),
            card("adiós", language: "es", tags: ["greeting"], favorite: false),
            card("bonjour", language: "fr", tags: ["greeting"], favorite: true),
            card("perro", language: "es", tags: ["noun"], favorite: true),
        ]
        let filter = CardFilter(favoritesOnly: true, tag: "Greeting", language: "es")
        #expect(cards.filter(filter.matches).map(\.front) == ["hola"])
        #expect(cards.filter(CardFilter(language: "fr").matches).map(\.front) == ["bonjour"])
        #expect(cards.filter(CardFilter(archived: true).matches).isEmpty)
    }

    @Test("a new card is never due; a reviewed card is due once its time has come")
    func due() {
        let now = Date()
        var card = Card(
            id: CardID(UUID()), deckId: DeckID(UUID()), front: "a", back: "b", frontLanguage: "es", backLanguage: "en",
            createdAt: now,
            modifiedAt: now)
        #expect(!card.isDue(at: now))
        card.dueAt = now.addingTimeInterval(-1)
        #expect(card.isDue(at: now))
        card.isArchived = true
        #expect(!card.isDue(at: now))
    }

    @Test("card drafts are validated field by field")
    func drafts() throws {
        #expect(throws: CardboxError.invalid(field: "front", reason: "cannot be empty")) {
            try CardDraft(front: " ", back: "x").validated()
        }
        #expect(throws: CardboxError.invalid(field: "jsonContent", reason: "is not valid JSON")) {
            try CardDraft(front: "a", back: "b", jsonContent: "{").validated()
        }
        // An image prompt and structured content hold at most 50,000 characters, as the longest
        // texts: more could not travel to the server.
        let long = "\"" + String(repeating: "x", count: 50_000) + "\""
        #expect(
            throws: CardboxError.invalid(field: "jsonContent", reason: "must be at most 50000 characters, got 50002")
        ) {
            try CardDraft(front: "a", back: "b", jsonContent: long).validated()
        }
        #expect(
            throws: CardboxError.invalid(field: "imagePrompt", reason: "must be at most 50000 characters, got 50001")
        ) {
            try CardDraft(front: "a", back: "b", imagePrompt: String(repeating: "p", count: 50_001)).validated()
        }
        _ = try CardDraft(front: "a", back: "b", imagePrompt: String(repeating: "p", count: 50_000)).validated()
        let draft = try CardDraft(front: " hola ", back: "hello", cardType: "Vocabulary").validated()
        #expect(draft.front == "hola" && draft.cardType == "vocabulary")
    }

    @Test("a new card's type is one Cardbox knows; a type a card already holds is kept as it is")
    func cardTypes() throws {
        #expect(CardText.types == ["basic", "reversed", "vocabulary", "phrase", "cloze"])
        #expect(
            throws: CardboxError.invalid(
                field: "cardType",
                reason: "'banana' is not a card type; the types are basic, reversed, vocabulary, phrase or cloze")
        ) { try CardDraft(front: "a", back: "b", cardType: "Banana").validated() }
        #expect(try CardText.cardType(" Phrase ") == "phrase")
        #expect(try CardText.storedCardType("Banana") == "banana")
        #expect(throws: CardboxError.self) { try CardText.storedCardType("") }
    }

    @Test("suggestion categories are seed 000's four")
    func categories() throws {
        #expect(
            SuggestionCategory.allCases.map(\.rawValue) == [
                "related_vocabulary", "usage_examples", "opposites", "progressive_complexity",
            ])
        #expect(try SuggestionCategory.validate("Opposites") == .opposites)
        #expect(throws: CardboxError.self) { try SuggestionCategory.validate("jokes") }
        #expect(SuggestionMatch.frontKey(" Hola ") == SuggestionMatch.frontKey("hola"))
    }

    @Test("preset decks are complete, valid and distinct")
    func presets() throws {
        let spanish = try PresetDeck.named("spanish-basics")
        #expect(spanish.cards.count == 30)
        #expect(spanish.frontLanguage == "es" && spanish.backLanguage == "en")
        for preset in PresetDeck.catalog {
            _ = try Language.validate(preset.frontLanguage, field: "front")
            let fronts = Set(preset.cards.map { SuggestionMatch.frontKey($0.front) })
            #expect(fronts.count == preset.cards.count, "\(preset.slug) repeats a front")
            for card in preset.cards { _ = try card.draft.validated() }
        }
        #expect(throws: CardboxError.self) { try PresetDeck.named("klingon-basics") }
    }
}

@Suite("Time-ordered ids")
struct UUIDv7Tests {
    @Test("ids made in the same millisecond sort in the order they were made")
    func monotonic() {
        let generator = UUIDv7Generator()
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let ids = (0..<10_000).map { _ in generator.next(now: now).uuidString.lowercased() }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.dropFirst(14).first == "7" })
        let later = generator.next(now: now.addingTimeInterval(60)).uuidString.lowercased()
        #expect(later > ids.last!)
    }

    @Test("an id is the time in milliseconds, version 7 and the counter, the variant and the random tail")
    func layout() {
        let generator = UUIDv7Generator(random: SeededRandom(seed: 7))
        var tails = SeededRandom(seed: 7)
        let now = Date(timeIntervalSince1970: 1_750_000_000.123)
        for counter in 0..<3 {
            let tail = tails.next()
            let bytes = (0..<8).map { UInt8(truncatingIfNeeded: tail >> (8 * UInt64($0))) }
            let rest = ([0x80 | (bytes[0] & 0x3F)] + bytes.dropFirst()).map { String(format: "%02x", $0) }.joined()
            let expected =
                String(format: "%012llx", 1_750_000_000_123 as UInt64) + String(format: "7%03x", counter) + rest
            #expect(generator.next(now: now).uuidString.lowercased().filter { $0 != "-" } == expected)
        }
    }
}

@Suite("Seeded randomness")
struct SeededRandomTests {
    @Test("the same seed gives the same sequence; values spread over the range")
    func sequence() {
        var a = SeededRandom(seed: 7)
        var b = SeededRandom(seed: 7)
        let first = (0..<1_000).map { _ in a.next() }
        #expect(first == (0..<1_000).map { _ in b.next() })
        #expect(Set(first).count == 1_000)
        var c = SeededRandom(seed: 7)
        let buckets = (0..<10_000).reduce(into: [Int](repeating: 0, count: 8)) { counts, _ in
            counts[Int.random(in: 0..<8, using: &c)] += 1
        }
        #expect(buckets.allSatisfy { (1_100...1_400).contains($0) })
    }
}
