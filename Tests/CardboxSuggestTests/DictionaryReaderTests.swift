import CardboxCore
import Foundation
import Testing

@testable import CardboxSuggest

/// Debian's dictionaries, read directly: `scripts/install-deps.sh` installs wordnet-base and the
/// Spanish–English FreeDict pair.
enum RealDictionaries {
    static let dictd = DictionarySuggestionProvider.defaultDictionaryFolder
    static let wordNetFolder = DictionarySuggestionProvider.defaultWordNetFolder
    static func spanishEnglish() throws -> DictdDictionary {
        try DictdDictionary(
            index: dictd.appendingPathComponent("freedict-spa-eng.index"),
            text: dictd.appendingPathComponent("freedict-spa-eng.dict.dz"))
    }
}

@Suite("dictd and dictzip")
struct DictdTests {
    @Test("dictd's base-64 numbers: most significant digit first")
    func base64Numbers() {
        #expect(DictdDictionary.base64Number("A") == 0)
        #expect(DictdDictionary.base64Number("BA") == 64)
        #expect(DictdDictionary.base64Number("kC7") == 36 * 4096 + 2 * 64 + 59)
        #expect(DictdDictionary.base64Number("/") == 63)
        #expect(DictdDictionary.base64Number("k-7") == nil)
        #expect(DictdDictionary.base64Number("") == nil)
    }

    @Test("an entry's translations: numbering, notes and lists taken apart")
    func entryTranslations() {
        #expect(DictdDictionary.translations(inEntry: "perro /pˈero/\ndog\n") == ["dog"])
        #expect(DictdDictionary.translations(inEntry: "animal /æniməl/\n1. animal\n2. bestia") == ["animal", "bestia"])
        #expect(DictdDictionary.translations(inEntry: "goose\nganso, oca") == ["ganso", "oca"])
        #expect(DictdDictionary.translations(inEntry: "Haus <n, neut>\nhouse (building); home") == ["house", "home"])
    }

    @Test("FreeDict's Spanish–English dictionary, read chunk by chunk from its dictzip file")
    func realDictionary() throws {
        let dictionary = try RealDictionaries.spanishEnglish()
        #expect(dictionary.headwordCount > 4000)
        #expect(try dictionary.translations(of: "perro") == ["dog"])
        #expect(try dictionary.translations(of: "PERRO") == ["dog"])
        #expect(try dictionary.translations(of: "gato") == ["cat", "jack"])
        #expect(try dictionary.translations(of: "no such word").isEmpty)
        // Reading one entry inflates only its chunks; the whole text gives the same answers.
        let whole = try dictionary.wholeText()
        for word in ["perro", "casa", "zapato", "agua", "rojo"] {
            #expect(try dictionary.translations(of: word, in: whole) == dictionary.translations(of: word))
        }
    }

    @Test("a plain gzip dictionary (no chunk table) and an uncompressed one read the same")
    func plainGzip() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dictd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let gato = "gato /ˈɡato/\ncat\n"
        let perro = "perro /pˈero/\n1. dog\n2. hound\n"
        let text = gato + perro
        func number(_ value: Int) -> String {  // dictd's base 64, most significant first
            let digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            var value = value
            var result = ""
            repeat {
                result = String(digits[value % 64]) + result
                value /= 64
            } while value > 0
            return result
        }
        let index =
            "gato\tA\t\(number(gato.utf8.count))\nperro\t\(number(gato.utf8.count))\t\(number(perro.utf8.count))\n"
        try Data(text.utf8).write(to: folder.appendingPathComponent("x.dict"))
        try Data(index.utf8).write(to: folder.appendingPathComponent("x.index"))
        let plain = try DictdDictionary(
            index: folder.appendingPathComponent("x.index"), text: folder.appendingPathComponent("x.dict"))
        #expect(try plain.translations(of: "perro") == ["dog", "hound"])
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-k", folder.appendingPathComponent("x.dict").path]
        try gzip.run()
        gzip.waitUntilExit()
        let zipped = try DictdDictionary(
            index: folder.appendingPathComponent("x.index"), text: folder.appendingPathComponent("x.dict.gz"))
        #expect(try zipped.translations(of: "perro") == ["dog", "hound"])
        #expect(try zipped.translations(of: "gato") == ["cat"])
    }

    @Test("a damaged dictzip file is refused with an error, not read past its end")
    func damaged() throws {
        let real = try Data(
            contentsOf: RealDictionaries.dictd.appendingPathComponent("freedict-spa-eng.dict.dz"))
        for cut in [3, 12, 40, 200, real.count / 2] {
            let damaged = real.prefix(cut)
            do {
                let text = try DictzipText(data: damaged, name: "cut")
                #expect(throws: CardboxError.self) { _ = try text.whole() }
            } catch let error as CardboxError {
                #expect("\(error)".contains("cut"))
            }
        }
        var scrambled = real
        for offset in stride(from: 600, to: 2000, by: 7) { scrambled[offset] ^= 0x5A }
        let text = try DictzipText(data: scrambled, name: "scrambled")
        #expect(throws: CardboxError.self) { _ = try text.text(offset: 0, length: 100) }
    }
}

@Suite("WordNet's database files")
struct WordNetTests {
    let wordNet: WordNet

    init() throws { wordNet = try WordNet(folder: RealDictionaries.wordNetFolder) }

    @Test("a lemma's senses, its synset's words, gloss and examples")
    func dog() throws {
        let noun = try #require(wordNet.lemmas("dog").first { $0.partOfSpeech == .noun })
        #expect(noun.synsetOffsets.count == 7)
        let first = try #require(wordNet.synset(noun.synsetOffsets[0], .noun))
        #expect(first.words.prefix(3) == ["dog", "domestic dog", "Canis familiaris"])
        #expect(first.definition.hasPrefix("a member of the genus Canis"))
        #expect(first.examples == ["the dog barked all night"])
        let broader = wordNet.targets(of: first, ["@"]).flatMap(\.synset.words)
        #expect(broader.contains("canine"))
        let narrower = wordNet.targets(of: first, ["~"]).flatMap(\.synset.words)
        #expect(narrower.contains("puppy"))
    }

    @Test("antonyms are lexical: from the word to the word")
    func antonyms() throws {
        let adjective = try #require(wordNet.lemmas("large").first { $0.partOfSpeech == .adjective })
        let large = try #require(wordNet.synset(adjective.synsetOffsets[0], .adjective))
        let word = try #require(large.words.firstIndex(of: "large")) + 1
        let antonym = try #require(large.pointers.first { $0.symbol == "!" && $0.sourceWord == word })
        let small = try #require(wordNet.synset(antonym.offset, antonym.partOfSpeech))
        #expect(small.words[antonym.targetWord - 1] == "small")
    }

    @Test("multi-word lemmas, case and unknown words")
    func lookups() {
        #expect(!wordNet.lemmas("hot dog").isEmpty)
        #expect(!wordNet.lemmas("Dog").isEmpty)
        #expect(wordNet.lemmas("qwzx").isEmpty)
        #expect(wordNet.lemmas("").isEmpty)
        #expect(wordNet.lemmas("  ").isEmpty)
        #expect(wordNet.synset(-1, .noun) == nil)
    }

    @Test("a missing database names the package that provides it")
    func missing() {
        #expect(throws: CardboxError.self) { _ = try WordNet(folder: URL(fileURLWithPath: "/nonexistent")) }
        do {
            _ = try WordNet(folder: URL(fileURLWithPath: "/nonexistent"))
        } catch {
            #expect("\(error)".contains("wordnet-base"))
        }
    }
}
