import CardboxCore
import Foundation

/// Gathers the offline provider's candidates, category by category, from WordNet's relations of
/// each seed card's English word; every front is new to the deck and to the other candidates.
struct CandidateBuilder {
    let wordNet: WordNet
    let sides: DeckSides
    let limit: Int
    /// At most this many candidates of a category from one seed card, so later cards get a share.
    let perSeed: Int
    var excluded: Set<String>
    private(set) var byCategory: [SuggestionCategory: [SuggestionDraft]] = [:]
    /// The seed card being explored, and how many candidates of each category it gave so far.
    private var seed: String?
    private var fromSeed: [SuggestionCategory: Int] = [:]

    /// How many senses of a word are explored: its commonest ones, where the useful relations are.
    static let sensesPerWord = 2
    /// Sister terms taken per broader term, so one big family ("dog" has 100 sisters) does not fill
    /// the whole category.
    static let sistersPerHypernym = 6

    init(wordNet: WordNet, sides: DeckSides, limit: Int, perSeed: Int? = nil, excluded: Set<String>) {
        self.wordNet = wordNet
        self.sides = sides
        self.limit = limit
        self.perSeed = perSeed ?? limit
        self.excluded = excluded
    }

    /// Every category the deck can have is full (a foreign-front deck has no usage examples: see
    /// `addExamples`), so the remaining cards need not be explored.
    var isFull: Bool {
        SuggestionCategory.allCases.allSatisfy { category in
            (category == .usageExamples && !sides.frontIsEnglish) || (byCategory[category]?.count ?? 0) >= limit
        }
    }

    var drafts: [SuggestionDraft] { SuggestionCategory.allCases.flatMap { byCategory[$0] ?? [] } }

    mutating func add(seed card: SuggestionRequest.SeedCard) {
        (seed, fromSeed) = (card.front, [:])
        let hint = sides.hint(of: card)
        for word in sides.englishWords(of: card) {
            for synset in senses(of: word) {
                addRelated(word: word, synset: synset, hint: hint)
                addOpposites(word: word, synset: synset, hint: hint)
                addExamples(word: word, synset: synset, hint: hint)
                addNarrower(word: word, synset: synset, hint: hint)
            }
        }
    }

    /// The word's commonest senses in its commonest part of speech ("dog" the animal, not "to dog"
    /// someone): a dictionary's translation of the word means that one.
    mutating func senses(of word: String) -> [WordNet.Synset] {
        guard let lemma = lemmas(word).max(by: { $0.taggedSenseCount < $1.taggedSenseCount }) else {
            return []
        }
        return lemma.synsetOffsets.prefix(Self.sensesPerWord).compactMap { synset($0, lemma.partOfSpeech) }
    }

    /// Whether `synset` is one of `word`'s commonest senses, so that a dictionary's translation of the
    /// word fits it ("head" is a kind of domestic animal only in its 30th sense, "head of cattle").
    mutating func isCommonSense(_ word: String, _ synset: WordNet.Synset) -> Bool {
        let lemmas = lemmas(word)
        let commonest = lemmas.map(\.taggedSenseCount).max()
        return lemmas.contains { lemma in
            lemma.partOfSpeech == synset.partOfSpeech && lemma.taggedSenseCount == commonest
                && lemma.synsetOffsets.prefix(Self.sensesPerWord + 1).contains(synset.offset)
        }
    }

    /// Synsets read once per run: a deck's words share broader terms and their families.
    private var synsetCache: [Int: WordNet.Synset?] = [:]

    mutating func synset(_ offset: Int, _ pos: WordNet.PartOfSpeech) -> WordNet.Synset? {
        // Offsets are byte positions in one data file per part of speech: the two together are unique.
        let key = offset << 2 | (WordNet.PartOfSpeech.allCases.firstIndex(of: pos) ?? 0)
        if let known = synsetCache[key] { return known }
        let found = wordNet.synset(offset, pos)
        synsetCache[key] = found
        return found
    }

    /// The synsets `synset` points to with one of `symbols`, at most `limit` of them.
    mutating func targets(
        of synset: WordNet.Synset, _ symbols: Set<String>, limit: Int = .max
    ) -> [(pointer: WordNet.Pointer, synset: WordNet.Synset)] {
        var found: [(pointer: WordNet.Pointer, synset: WordNet.Synset)] = []
        for pointer in synset.pointers where symbols.contains(pointer.symbol) {
            guard found.count < limit else { break }
            if let target = self.synset(pointer.offset, pointer.partOfSpeech) { found.append((pointer, target)) }
        }
        return found
    }

    /// WordNet's lemmas of `word`, looked up once per run: related words recur across a deck.
    private var lemmaCache: [String: [WordNet.Lemma]] = [:]

    mutating func lemmas(_ word: String) -> [WordNet.Lemma] {
        if let known = lemmaCache[word] { return known }
        let found = wordNet.lemmas(word)
        lemmaCache[word] = found
        return found
    }

    mutating func addRelated(word: String, synset: WordNet.Synset, hint: String) {
        for synonym in synset.words where synonym.lowercased() != word {
            propose(
                synonym, synset: synset, category: .relatedVocabulary,
                context: "Means the same as '\(hint)' (\(word)): a synonym in WordNet")
        }
        for (_, broader) in targets(of: synset, ["@", "@i"]) {
            if let term = broader.words.first {
                propose(
                    term, synset: broader, category: .relatedVocabulary,
                    context: "The broader term for '\(hint)': \(Self.kind(word, of: term, synset.partOfSpeech))")
            }
            for (_, sister) in targets(of: broader, ["~", "~i"], limit: Self.sistersPerHypernym + 1)
            where sister.offset != synset.offset {
                if let term = sister.words.first {
                    propose(
                        term, synset: sister, category: .relatedVocabulary,
                        context:
                            "Like '\(hint)' (\(word)), \(Self.kind(term, of: broader.words.first ?? "", synset.partOfSpeech))"
                    )
                }
            }
        }
        for (pointer, whole) in targets(of: synset, ["%p", "%m", "%s", "#p", "#m", "#s"]) {
            guard let term = whole.words.first else { continue }
            let relation = pointer.symbol.hasPrefix("%") ? "is part of \(word)" : "has \(word) as a part"
            propose(
                term, synset: whole, category: .relatedVocabulary,
                context: "Goes with '\(hint)': \(Self.article(term)) \(term) \(relation)")
        }
    }

    mutating func addOpposites(word: String, synset: WordNet.Synset, hint: String) {
        let position = (synset.words.firstIndex { $0.lowercased() == word } ?? -1) + 1
        var sources: [(synset: WordNet.Synset, word: Int, via: String?)] = [(synset, position, nil)]
        // A satellite adjective ("huge") has no antonym of its own: its head ("large") does.
        for (_, head) in targets(of: synset, ["&"]) where synset.partOfSpeech == .adjective {
            sources.append((head, 0, head.words.first))
        }
        for source in sources {
            for pointer in source.synset.pointers where pointer.symbol == "!" {
                guard source.word == 0 || pointer.sourceWord == source.word,
                    let opposite = self.synset(pointer.offset, pointer.partOfSpeech)
                else { continue }
                let index = pointer.targetWord > 0 ? pointer.targetWord - 1 : 0
                guard index < opposite.words.count else { continue }
                let via = source.via.map { " (\(word) is like \($0))" } ?? ""
                propose(
                    opposite.words[index], synset: opposite, category: .opposites,
                    context: "The opposite of '\(hint)' (\(word))\(via): an antonym in WordNet")
            }
        }
    }

    /// WordNet's example sentences are English: a deck whose front is another language gets none (a
    /// front is in the deck's front language, or it is not offered).
    mutating func addExamples(word: String, synset: WordNet.Synset, hint: String) {
        guard sides.frontIsEnglish else { return }
        for example in synset.examples {
            guard let blanked = Self.blank(word, in: example) else { continue }
            let front = hint.lowercased() == word ? blanked : "\(blanked) (\(hint))"
            propose(
                front: front, back: word, imagePrompt: example, category: .usageExamples,
                context: "Shows '\(hint)' (\(word)) in use: an example sentence of WordNet's")
        }
    }

    mutating func addNarrower(word: String, synset: WordNet.Synset, hint: String) {
        for (_, narrower) in targets(of: synset, ["~", "~i"]) {
            guard let term = narrower.words.first else { continue }
            propose(
                term, synset: narrower, category: .progressiveComplexity,
                context: "More specific than '\(hint)' (\(word)): \(Self.kind(term, of: word, synset.partOfSpeech))")
        }
    }

    /// Proposes the card for English word `english`, when the deck's languages can express it.
    mutating func propose(
        _ english: String, synset: WordNet.Synset, category: SuggestionCategory, context: String
    ) {
        // The dictionary first: most related words have no translation, and it is the cheaper test.
        let cards = sides.cards(english: english, definition: synset.definition)
        guard !cards.isEmpty, isCommonSense(english, synset) else { return }
        let picture = "\(english): \(synset.definition)"
        for card in cards {
            if propose(front: card.front, back: card.back, imagePrompt: picture, category: category, context: context) {
                return
            }
        }
    }

    /// Adds the candidate unless its category is full or its front is taken; says whether it did.
    @discardableResult
    mutating func propose(
        front: String, back: String, imagePrompt: String, category: SuggestionCategory, context: String
    ) -> Bool {
        guard (byCategory[category]?.count ?? 0) < limit, fromSeed[category, default: 0] < perSeed,
            var draft = try? SuggestionDraft(
                front: front, back: back, imagePrompt: imagePrompt, context: context, category: category
            ).validated(),
            excluded.insert(SuggestionMatch.frontKey(draft.front)).inserted
        else { return false }
        draft.seed = seed
        byCategory[category, default: []].append(draft)
        fromSeed[category, default: 0] += 1
        return true
    }

    /// `example` with `word` (whole words, any case, a plural "s" too) replaced by a blank; nil when
    /// the sentence does not use the word itself.
    static func blank(_ word: String, in example: String) -> String? {
        let escaped = NSRegularExpression.escapedPattern(for: word)
        guard let expression = try? NSRegularExpression(pattern: "\\b\(escaped)(s|es)?\\b", options: .caseInsensitive)
        else { return nil }
        let range = NSRange(example.startIndex..., in: example)
        guard expression.firstMatch(in: example, range: range) != nil else { return nil }
        return expression.stringByReplacingMatches(in: example, range: range, withTemplate: "___")
    }

    /// "a puppy is a kind of dog"; for verbs, "to lunch is a way to eat".
    static func kind(_ narrower: String, of broader: String, _ pos: WordNet.PartOfSpeech) -> String {
        pos == .verb
            ? "to \(narrower) is a way to \(broader)"
            : "\(article(narrower)) \(narrower) is a kind of \(broader)"
    }

    static func article(_ word: String) -> String {
        guard let first = word.lowercased().first else { return "a" }
        return "aeiou".contains(first) ? "an" : "a"
    }
}
