import CardboxCore
import Foundation

/// Translations between English and one other language from FreeDict's dictionaries, in both
/// directions when Debian ships both (`freedict-spa-eng` and `freedict-eng-spa`).
///
/// FreeDict's smaller dictionaries have slips ("good → despedida", "bad luck" filed under "bad" as
/// "malasuerte"), so with both directions installed a pair counts only when each dictionary
/// confirms it: "perro → dog" and "dog → perro".
public struct BilingualLexicon: Sendable {
    public let language: String
    public let dictionaryNames: [String]
    /// Lower-cased foreign word → English words, and the reverse; only confirmed pairs.
    private let toEnglish: [String: [String]]
    private let fromEnglish: [String: [String]]

    /// FreeDict's three-letter names of the ISO 639-1 languages it has an English dictionary for.
    static let freeDictCodes: [String: String] = [
        "af": "afr", "ar": "ara", "bg": "bul", "cs": "ces", "cy": "cym", "da": "dan", "de": "deu", "el": "ell",
        "eo": "epo", "es": "spa", "fi": "fin", "fr": "fra", "ga": "gle", "hi": "hin", "hr": "hrv", "hu": "hun",
        "id": "ind", "is": "isl", "it": "ita", "ja": "jpn", "la": "lat", "lt": "lit", "nl": "nld", "no": "nor",
        "pl": "pol", "pt": "por", "ro": "rom", "ru": "rus", "sk": "slk", "sl": "slv", "sr": "srp", "sv": "swe",
        "sw": "swh", "tr": "tur",
    ]

    /// The lexicon for `language` (ISO 639-1) from the dictionaries in `folder`, or a clear error
    /// naming the Debian packages that would provide one.
    public init(language: String, folder: URL) throws {
        self.language = language
        guard let code = Self.freeDictCodes[language] else {
            throw CardboxError.invalid(
                field: "language pair",
                reason: "there is no FreeDict dictionary between \(Language.name(of: language)) and English")
        }
        let fromForeign = try Self.open("freedict-\(code)-eng", in: folder)
        let fromEnglishDictionary = try Self.open("freedict-eng-\(code)", in: folder)
        guard fromForeign != nil || fromEnglishDictionary != nil else {
            throw CardboxError.invalid(
                field: "language pair",
                reason:
                    "no dictionary between \(Language.name(of: language)) and English is installed in \(folder.path) "
                    + "(apt install dict-freedict-\(code)-eng dict-freedict-eng-\(code))")
        }
        dictionaryNames = [fromForeign?.name, fromEnglishDictionary?.name].compactMap { $0 }
        var pairs: [String: Set<String>] = [:]  // "foreign\tenglish" → which directions state it
        if let fromForeign {
            for (foreign, english) in try fromForeign.allPairs() {
                pairs["\(foreign)\t\(english)", default: []].insert("f")
            }
        }
        if let fromEnglishDictionary {
            for (english, foreign) in try fromEnglishDictionary.allPairs() {
                pairs["\(foreign)\t\(english)", default: []].insert("e")
            }
        }
        let needed = dictionaryNames.count
        var toEnglish: [String: [String]] = [:]
        var fromEnglish: [String: [String]] = [:]
        for (pair, directions) in pairs.sorted(by: { $0.key < $1.key }) where directions.count == needed {
            let parts = pair.split(separator: "\t", maxSplits: 1).map(String.init)
            toEnglish[parts[0].lowercased(), default: []].append(parts[1])
            fromEnglish[parts[1].lowercased(), default: []].append(parts[0])
        }
        self.toEnglish = toEnglish
        self.fromEnglish = fromEnglish
    }

    public var pairCount: Int { toEnglish.values.reduce(0) { $0 + $1.count } }

    public func english(for foreign: String) -> [String] { toEnglish[foreign.lowercased()] ?? [] }

    public func foreign(for english: String) -> [String] { fromEnglish[english.lowercased()] ?? [] }

    private static func open(_ name: String, in folder: URL) throws -> DictdDictionary? {
        let index = folder.appendingPathComponent("\(name).index")
        guard FileManager.default.fileExists(atPath: index.path) else { return nil }
        for suffix in [".dict.dz", ".dict"] {
            let text = folder.appendingPathComponent(name + suffix)
            if FileManager.default.fileExists(atPath: text.path) {
                return try DictdDictionary(index: index, text: text)
            }
        }
        return nil
    }
}

extension DictdDictionary {
    /// Every (headword, translation) pair, headwords as the index spells them, lower-cased.
    func allPairs() throws -> [(String, String)] {
        let text = try wholeText()
        return try headwords.sorted().flatMap { headword in
            try translations(of: headword, in: text).map { (headword, $0) }
        }
    }
}
