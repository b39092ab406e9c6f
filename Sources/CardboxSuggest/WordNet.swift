import CardboxCore
import Foundation

/// Princeton WordNet 3.x read from its database files (Debian's `wordnet-base`, in
/// `/usr/share/wordnet`), as `wndb(5WN)` describes them.
///
/// `index.POS` has a line per lemma, sorted, so a lemma is found by binary search over the mapped
/// file: `lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…`.
/// `data.POS` has a line per synset at the byte offset that names it:
/// `offset lex_filenum ss_type w_cnt word lex_id… p_cnt [symbol offset pos source/target]… | gloss`.
public struct WordNet: Sendable {
    public enum PartOfSpeech: String, Sendable, CaseIterable {
        case noun, verb, adjective = "adj", adverb = "adv"

        init?(symbol: Substring) {
            switch symbol {
            case "n": self = .noun
            case "v": self = .verb
            case "a", "s": self = .adjective
            case "r": self = .adverb
            default: return nil
            }
        }
    }

    /// A lemma's entry in an index file.
    public struct Lemma: Sendable, Equatable {
        public var partOfSpeech: PartOfSpeech
        /// How often its senses were tagged in WordNet's semantic concordance: a measure of frequency.
        public var taggedSenseCount: Int
        /// Its senses' synsets, most frequent first.
        public var synsetOffsets: [Int]
    }

    public struct Pointer: Sendable, Equatable {
        /// `!` antonym, `@` hypernym, `~` hyponym, `&` similar to, `%p`/`#p` part of… (wndb(5WN)).
        public var symbol: String
        public var offset: Int
        public var partOfSpeech: PartOfSpeech
        /// For a lexical pointer, the word (1-based) it starts from in this synset and the one it
        /// names in the target; 0 and 0 when it relates whole synsets.
        public var sourceWord: Int
        public var targetWord: Int
    }

    public struct Synset: Sendable, Equatable {
        public var offset: Int
        public var partOfSpeech: PartOfSpeech
        /// Its words, with spaces for WordNet's underscores and without adjective markers such as `(a)`.
        public var words: [String]
        public var pointers: [Pointer]
        /// The gloss's definition, without its examples.
        public var definition: String
        /// The gloss's example sentences, without their quotes.
        public var examples: [String]
    }

    private let indexes: [PartOfSpeech: Data]
    private let data: [PartOfSpeech: Data]

    /// Opens the database in `folder`; the files are mapped, not read.
    public init(folder: URL) throws {
        var indexes: [PartOfSpeech: Data] = [:]
        var data: [PartOfSpeech: Data] = [:]
        for pos in PartOfSpeech.allCases {
            let index = folder.appendingPathComponent("index.\(pos.rawValue)")
            let datafile = folder.appendingPathComponent("data.\(pos.rawValue)")
            guard FileManager.default.fileExists(atPath: index.path),
                FileManager.default.fileExists(atPath: datafile.path)
            else {
                throw CardboxError.invalid(
                    field: "WordNet",
                    reason:
                        "\(folder.path) has no index.\(pos.rawValue) and data.\(pos.rawValue) (apt install wordnet-base)"
                )
            }
            indexes[pos] = try Data(contentsOf: index, options: .alwaysMapped)
            data[pos] = try Data(contentsOf: datafile, options: .alwaysMapped)
        }
        self.indexes = indexes
        self.data = data
    }

    /// The lemma's entries, one per part of speech that has it.
    public func lemmas(_ word: String) -> [Lemma] {
        let key = Self.key(word)
        guard !key.isEmpty else { return [] }
        return PartOfSpeech.allCases.compactMap { pos in
            indexes[pos].flatMap { Self.findLine(in: $0, key: key) }.flatMap { Self.parseIndexLine($0, pos: pos) }
        }
    }

    public func synset(_ offset: Int, _ pos: PartOfSpeech) -> Synset? {
        guard let file = data[pos], offset >= 0, offset < file.count else { return nil }
        let start = file.startIndex + offset
        let end = file[start...].firstIndex(of: UInt8(ascii: "\n")) ?? file.endIndex
        return Self.parseDataLine(String(decoding: file[start..<end], as: UTF8.self), pos: pos)
    }

    /// The synsets a pointer names.
    public func targets(of synset: Synset, _ symbols: Set<String>) -> [(pointer: Pointer, synset: Synset)] {
        synset.pointers.filter { symbols.contains($0.symbol) }.compactMap { pointer in
            self.synset(pointer.offset, pointer.partOfSpeech).map { (pointer, $0) }
        }
    }

    static func key(_ word: String) -> String {
        word.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().replacingOccurrences(of: " ", with: "_")
    }

    /// Binary search of a sorted index file for the line whose first field is `key` (over the raw
    /// bytes: a lookup is a few dozen comparisons of a mapped file).
    public static func findLine(in file: Data, key: String) -> String? {
        let keyBytes = Array(key.utf8)
        return file.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> String? in
            let newline = UInt8(ascii: "\n")
            var low = 0
            var high = bytes.count
            while low < high {
                let middle = low + (high - low) / 2
                var lineStart = middle
                while lineStart > 0 && bytes[lineStart - 1] != newline { lineStart -= 1 }
                var lineEnd = lineStart
                while lineEnd < bytes.count && bytes[lineEnd] != newline { lineEnd += 1 }
                // The licence at the top is indented two spaces: it sorts before every lemma.
                if bytes[lineStart] == UInt8(ascii: " ") {
                    low = lineEnd + 1
                    continue
                }
                var fieldEnd = lineStart
                while fieldEnd < lineEnd && bytes[fieldEnd] != UInt8(ascii: " ") { fieldEnd += 1 }
                let field = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<fieldEnd])
                if field.elementsEqual(keyBytes) {
                    return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd]), as: UTF8.self)
                }
                if field.lexicographicallyPrecedes(keyBytes) { low = lineEnd + 1 } else { high = lineStart }
            }
            return nil
        }
    }

    public static func parseIndexLine(_ line: String, pos: PartOfSpeech) -> Lemma? {
        let fields = line.split(separator: " ")
        guard fields.count >= 6, let synsetCount = Int(fields[2]), let pointerCount = Int(fields[3]),
            synsetCount >= 0, synsetCount < fields.count, pointerCount >= 0, pointerCount < fields.count
        else { return nil }
        let tagged = 4 + pointerCount + 1
        guard fields.count >= tagged + 1 + synsetCount, let taggedCount = Int(fields[tagged]) else { return nil }
        let offsets = fields[(tagged + 1)..<(tagged + 1 + synsetCount)].compactMap { Int($0) }
        return Lemma(partOfSpeech: pos, taggedSenseCount: taggedCount, synsetOffsets: offsets)
    }

    public static func parseDataLine(_ line: String, pos: PartOfSpeech) -> Synset? {
        let parts = line.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        let fields = parts[0].split(separator: " ")
        guard fields.count >= 4, let offset = Int(fields[0]), let wordCount = Int(fields[3], radix: 16),
            wordCount >= 0, wordCount < fields.count
        else { return nil }
        var index = 4
        var words: [String] = []
        for _ in 0..<wordCount {
            guard index + 1 < fields.count else { return nil }
            words.append(displayWord(fields[index]))
            index += 2
        }
        guard index < fields.count, let pointerCount = Int(fields[index]), pointerCount >= 0,
            pointerCount < fields.count
        else { return nil }
        index += 1
        var pointers: [Pointer] = []
        for _ in 0..<pointerCount {
            guard index + 3 < fields.count, let target = Int(fields[index + 1]),
                let targetPos = PartOfSpeech(symbol: fields[index + 2]), fields[index + 3].count == 4,
                let sourceTarget = Int(fields[index + 3], radix: 16)
            else { return nil }
            pointers.append(
                Pointer(
                    symbol: String(fields[index]), offset: target, partOfSpeech: targetPos,
                    sourceWord: sourceTarget >> 8, targetWord: sourceTarget & 0xFF))
            index += 4
        }
        let (definition, examples) = parseGloss(parts.count > 1 ? String(parts[1]) : "")
        return Synset(
            offset: offset, partOfSpeech: pos, words: words, pointers: pointers, definition: definition,
            examples: examples)
    }

    /// `"a member of the genus Canis…; "the dog barked all night""` → definition and examples.
    static func parseGloss(_ gloss: String) -> (definition: String, examples: [String]) {
        var definitions: [String] = []
        var examples: [String] = []
        for part in gloss.split(separator: ";") {
            let trimmed = part.trimmed { $0.isWhitespace }
            if trimmed.hasPrefix("\"") {
                let sentence = trimmed.trimmed { $0 == "\"" }
                if !sentence.isEmpty { examples.append(String(sentence)) }
            } else if !trimmed.isEmpty, examples.isEmpty {
                definitions.append(String(trimmed))
            }
        }
        return (definitions.joined(separator: "; "), examples)
    }

    /// `domestic_dog` → `domestic dog`; `big(a)` → `big`.
    static func displayWord(_ field: Substring) -> String {
        var word = String(field.map { $0 == "_" ? " " : $0 })
        if word.hasSuffix(")"), let open = word.lastIndex(of: "(") { word = String(word[..<open]) }
        return word
    }
}

extension Substring {
    /// Without the leading and trailing characters that `drop` holds for (Foundation's trimming
    /// bridges through NSString: a tenth of the offline provider's time).
    func trimmed(_ drop: (Character) -> Bool) -> Substring {
        var result = self
        while let first = result.first, drop(first) { result = result.dropFirst() }
        while let last = result.last, drop(last) { result = result.dropLast() }
        return result
    }
}
