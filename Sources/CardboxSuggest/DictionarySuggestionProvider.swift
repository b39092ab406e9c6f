import CardboxCore
import Foundation

/// The offline default: suggestions from WordNet (English) and FreeDict (between English and the
/// deck's other language), on the machine, with no service to call.
///
/// Where each category comes from (for a card whose English side is "dog"):
/// - related_vocabulary: the words of the card's WordNet synsets (synonyms), its broader terms
///   (hypernyms: "canine"), its sister terms (other kinds of that broader term: "wolf"), and
///   its parts and wholes (meronyms and holonyms);
/// - opposites: WordNet's antonyms of the word, and of the head adjective a satellite adjective
///   is similar to ("huge" is like "large", whose opposite is "small");
/// - usage_examples: the example sentences of the word's WordNet glosses, as a fill-in-the-blank
///   card ("the ___ barked all night" → "dog"), for decks whose front is English (the sentences are);
/// - progressive_complexity: its narrower terms (hyponyms: "puppy", "hunting dog"), the more
///   specific vocabulary that comes after it.
/// A deck with a foreign side keeps a candidate only when FreeDict translates it (both of
/// Debian's dictionaries agreeing when both are installed); the foreign word is the front when the
/// deck's front is foreign.
public struct DictionarySuggestionProvider: SuggestionProvider {
    public static let defaultWordNetFolder = URL(fileURLWithPath: "/usr/share/wordnet")
    public static let defaultDictionaryFolder = URL(fileURLWithPath: "/usr/share/dictd")

    public let wordNetFolder: URL
    public let dictionaryFolder: URL
    public var name: String { "offline dictionaries (WordNet, FreeDict)" }

    public init(wordNetFolder: URL = defaultWordNetFolder, dictionaryFolder: URL = defaultDictionaryFolder) {
        self.wordNetFolder = wordNetFolder
        self.dictionaryFolder = dictionaryFolder
    }

    public func candidates(for request: SuggestionRequest) async throws -> [SuggestionDraft] {
        let wordNet = try WordNet(folder: wordNetFolder)
        let sides = try DeckSides(request: request, dictionaryFolder: dictionaryFolder)
        // Each card gives its share of a category, so the queue draws on many cards, not the newest alone.
        let limit = request.limitPerCategory
        let seeds = max(1, min(request.cards.count, limit))
        let share = (limit + seeds - 1) / seeds
        var builder = CandidateBuilder(
            wordNet: wordNet, sides: sides, limit: limit, perSeed: share, excluded: request.excludedFronts)
        for card in request.cards {
            builder.add(seed: card)
            if builder.isFull { break }
        }
        return builder.drafts
    }
}

/// Which side of the deck is English, and how to translate the other.
struct DeckSides {
    enum Shape {
        /// Both sides English: the front is a word, the back its definition.
        case english
        /// One side foreign; `foreignFront` when the front is the foreign one.
        case bilingual(lexicon: BilingualLexicon, foreignFront: Bool)
    }
    let shape: Shape
    let foreignLanguage: String?

    init(request: SuggestionRequest, dictionaryFolder: URL) throws {
        switch (request.frontLanguage, request.backLanguage) {
        case ("en", "en"):
            shape = .english
            foreignLanguage = nil
        case ("en", let other), (let other, "en"):
            shape = .bilingual(
                lexicon: try BilingualLexicon(language: other, folder: dictionaryFolder),
                foreignFront: request.frontLanguage != "en")
            foreignLanguage = other
        default:
            throw CardboxError.invalid(
                field: "language pair",
                reason: "the offline suggestions cannot serve a \(Language.name(of: request.frontLanguage))–"
                    + "\(Language.name(of: request.backLanguage)) deck: they find related words in WordNet, "
                    + "which is English, so one side of the deck must be English (or configure a chat-completions "
                    + "provider)")
        }
    }

    /// Whether the deck's front is English (WordNet's language).
    var frontIsEnglish: Bool {
        if case .bilingual(_, foreignFront: true) = shape { return false }
        return true
    }

    /// The English words a seed card is about: its English side, and the translations of its
    /// foreign side, without articles.
    func englishWords(of card: SuggestionRequest.SeedCard) -> [String] {
        switch shape {
        case .english:
            return [Articles.strip(card.front, language: "en")]
        case .bilingual(let lexicon, let foreignFront):
            let english = Articles.strip(foreignFront ? card.back : card.front, language: "en")
            let foreign = Articles.strip(foreignFront ? card.front : card.back, language: foreignLanguage ?? "")
            var words = [english]
            for translation in lexicon.english(for: foreign) where !words.contains(translation.lowercased()) {
                words.append(translation.lowercased())
            }
            return words.filter { !$0.isEmpty }
        }
    }

    /// The seed card's word as the deck's learner sees it in hints: its foreign side when it has one.
    func hint(of card: SuggestionRequest.SeedCard) -> String {
        switch shape {
        case .english: card.front
        case .bilingual(_, let foreignFront): foreignFront ? card.front : card.back
        }
    }

    /// The cards that could teach English word `english`, best first: one per translation ("little"
    /// is "chico" or "pequeño"); none when it cannot be translated.
    func cards(english: String, definition: String) -> [(front: String, back: String)] {
        switch shape {
        case .english:
            return definition.isEmpty ? [] : [(english, definition)]
        case .bilingual(let lexicon, let foreignFront):
            let translations = lexicon.foreign(for: english)
            return foreignFront ? translations.map { ($0, english) } : [(english, translations.joined(separator: ", "))]
        }
    }
}

/// Articles stripped from a card's side before looking it up ("el perro" → "perro").
enum Articles {
    static let byLanguage: [String: [String]] = [
        "en": ["the ", "a ", "an ", "to "],
        "es": ["el ", "la ", "los ", "las ", "un ", "una ", "unos ", "unas "],
        "fr": ["le ", "la ", "les ", "l'", "l’", "un ", "une ", "des "],
        "de": ["der ", "die ", "das ", "ein ", "eine "],
        "it": ["il ", "lo ", "la ", "i ", "gli ", "le ", "l'", "un ", "uno ", "una "],
        "pt": ["o ", "a ", "os ", "as ", "um ", "uma "],
        "nl": ["de ", "het ", "een "],
    ]

    static func strip(_ text: String, language: String) -> String {
        let lowered = text.trimmedWhitespace.lowercased()
        for article in byLanguage[language] ?? [] where lowered.hasPrefix(article) && lowered.count > article.count {
            return String(lowered.dropFirst(article.count)).trimmedWhitespace
        }
        return lowered
    }
}
