import CardboxCore
import Foundation

/// A bilingual dictionary in dictd's format, as FreeDict ships them in Debian
/// (`/usr/share/dictd/freedict-spa-eng.index` and `.dict.dz`).
///
/// The `.index` file has a line per entry: the headword, then the entry's offset and length in the
/// text, both in base 64 (digits `A–Z a–z 0–9 + /`, most significant first), separated by tabs.
/// An entry's text is its headword line (with the pronunciation), then its translations: one
/// line each, sometimes numbered ("1. animal"), sometimes several to a line ("ganso, oca").
public struct DictdDictionary: Sendable {
    public let name: String
    private let text: DictzipText
    /// Lower-cased headword → its entries' ranges in the text.
    private let entries: [String: [(offset: Int, length: Int)]]

    public init(index: URL, text dictionary: URL) throws {
        name = index.deletingPathExtension().lastPathComponent
        text = try DictzipText(contentsOf: dictionary)
        entries = try Self.parseIndex(Data(contentsOf: index), name: name)
    }

    public init(indexData: Data, textData: Data, name: String) throws {
        self.name = name
        text = try DictzipText(data: textData, name: name)
        entries = try Self.parseIndex(indexData, name: name)
    }

    public var headwordCount: Int { entries.count }

    /// Every headword (lower-cased), for building the reverse direction.
    public var headwords: Dictionary<String, [(offset: Int, length: Int)]>.Keys { entries.keys }

    /// The translations of `headword` (case-insensitive), in the dictionary's order, without
    /// repeats; empty when it is not in the dictionary.
    public func translations(of headword: String) throws -> [String] {
        try translations(of: headword, in: nil)
    }

    /// The whole text, inflated once: for reading every entry.
    func wholeText() throws -> Data { try text.whole() }

    /// As `translations(of:)`, reading from `wholeText` when given (one inflation for all entries).
    func translations(of headword: String, in wholeText: Data?) throws -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for range in entries[headword.lowercased()] ?? [] {
            let entry: String
            if let wholeText {
                guard range.offset + range.length <= wholeText.count else {
                    throw CardboxError.invalid(field: name, reason: "an entry runs past the text's end")
                }
                entry = String(decoding: wholeText[range.offset..<range.offset + range.length], as: UTF8.self)
            } else {
                entry = try text.text(offset: range.offset, length: range.length)
            }
            for translation in Self.translations(inEntry: entry) where seen.insert(translation.lowercased()).inserted {
                result.append(translation)
            }
        }
        return result
    }

    /// The translations in one entry's text: every line after the headword's, without numbering,
    /// grammar notes in `<…>` or remarks in `(…)`, split at commas and semicolons.
    static func translations(inEntry entry: String) -> [String] {
        entry.split(separator: "\n").dropFirst().flatMap { line -> [String] in
            var line = line.trimmingCharacters(in: .whitespaces)
            if let dot = line.firstIndex(of: "."), line[..<dot].allSatisfy(\.isNumber), dot > line.startIndex {
                line = String(line[line.index(after: dot)...])
            }
            line = line.removingBracketed("<", ">").removingBracketed("(", ")")
            return line.split(whereSeparator: { $0 == "," || $0 == ";" })
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && $0.count <= 60 }
        }
    }

    static func parseIndex(_ data: Data, name: String) throws -> [String: [(offset: Int, length: Int)]] {
        var entries: [String: [(offset: Int, length: Int)]] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 3 else {
                throw CardboxError.invalid(
                    field: name, reason: "index line '\(line.prefix(40))' has no offset and length")
            }
            // dictd's own entries (00-database-info…) describe the dictionary, not words.
            if fields[0].hasPrefix("00database") || fields[0].hasPrefix("00-database") { continue }
            guard let offset = base64Number(fields[1]), let length = base64Number(fields[2]) else {
                throw CardboxError.invalid(field: name, reason: "index line '\(line.prefix(40))' has a bad offset")
            }
            entries[fields[0].lowercased(), default: []].append((offset, length))
        }
        return entries
    }

    /// dictd's base-64 numbers: the usual alphabet, most significant digit first.
    static func base64Number(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.count <= 8 else { return nil }
        var value = 0
        for scalar in digits.unicodeScalars {
            let digit: Int
            switch scalar {
            case "A"..."Z": digit = Int(scalar.value) - 65
            case "a"..."z": digit = Int(scalar.value) - 97 + 26
            case "0"..."9": digit = Int(scalar.value) - 48 + 52
            case "+": digit = 62
            case "/": digit = 63
            default: return nil
            }
            value = value << 6 | digit
        }
        return value
    }
}

extension String {
    /// The string without any `open…close` spans (not nested).
    func removingBracketed(_ open: Character, _ close: Character) -> String {
        var result = ""
        var depth = 0
        for character in self {
            if character == open {
                depth += 1
            } else if character == close, depth > 0 {
                depth -= 1
            } else if depth == 0 {
                result.append(character)
            }
        }
        return result.trimmingCharacters(in: .whitespaces)
    }
}
