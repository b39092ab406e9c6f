import CardboxCore
import CardboxStore
import Foundation
import Testing

@testable import CardboxExchange

@Suite("CSV/TSV cards (Anki's notes in plain text)")
struct DelimitedFormatTests {
    @Test("a file of header lines only, the last without a line break, has no rows (found by fuzzing)")
    func headerOnly() throws {
        for text in ["#html:true", "#separat\u{FEFF}or:t", "#tags column:3\n#html:false"] {
            #expect(try DelimitedFormat.read(Data(text.utf8), file: "h.txt").rows.isEmpty)
        }
    }

    func read(_ text: String, separator: Character? = nil) throws -> DelimitedFormat.Document {
        try DelimitedFormat.read(Data(text.utf8), file: "cards.txt", separator: separator)
    }

    @Test("a plain two-column TSV (as Quizlet exports) needs no options")
    func quizlet() throws {
        let document = try read("hola\thello\nperro\tdog\n")
        #expect(document.rows.map(\.front) == ["hola", "perro"])
        #expect(document.rows.map(\.back) == ["hello", "dog"])
        #expect(document.rows.map(\.line) == [1, 2])
    }

    @Test("a first line naming the columns is not a card; one line alone, or after #columns:, is")
    func columnNames() throws {
        let named = try read("Front,Back,Tags\nperro,dog,noun\n")
        #expect(named.rows.map(\.front) == ["perro"] && named.columnNames == ["Front", "Back", "Tags"])
        #expect(try read("Spanish\tEnglish\nperro\tdog\n").rows.map(\.front) == ["perro"])
        // Words that are not column names, a line alone, and a file whose #columns: line names them.
        #expect(try read("hola,hello\nperro,dog\n").rows.count == 2)
        #expect(try read("front,back").rows.map(\.front) == ["front"])
        #expect(try read("#columns:Front,Back\nfront,back\nperro,dog\n").rows.count == 2)
    }

    @Test("a first line naming the columns puts each where it says: tags in tags, notes in notes, sides by name")
    func namedColumns() throws {
        let document = try read("front,back,tags,notes\nperro,dog,noun animal,El perro ladra.\n")
        #expect(document.rows.map(\.front) == ["perro"] && document.rows.map(\.back) == ["dog"])
        #expect(document.rows.map(\.tags) == [["noun", "animal"]] && document.rows.map(\.notes) == ["El perro ladra."])
        let swapped = try read("Tags\tDefinition\tTerm\tDeck\nverb\tto eat\tcomer\tVerbs\n")
        #expect(swapped.rows.map(\.front) == ["comer"] && swapped.rows.map(\.back) == ["to eat"])
        #expect(swapped.rows.map(\.tags) == [["verb"]] && swapped.rows.map(\.deck) == ["Verbs"])
        // Languages name their columns by place: the first is the front.
        let languages = try read("Spanish,English,Notes\ngato,cat,a pet\n")
        #expect(languages.rows.map(\.front) == ["gato"] && languages.rows.map(\.notes) == ["a pet"])
    }

    @Test("text that is not a table (Markdown, prose) is refused with the reason, naming the line")
    func notATable() throws {
        #expect(
            throws: CardboxError.invalid(
                field: "notes.md line 1",
                reason: "starts with '#' but is not a header line (#key:value): the file is not a table of cards")
        ) { try DelimitedFormat.read(Data("# Cardbox\n\nA local-first home, for decks.\n".utf8), file: "notes.md") }
        let prose = """
            We went to the market, bought bread, milk and eggs.
            Then home.
            The bus was late, again, as it is on Sundays, so we walked.
            A short line.
            Another one, with a comma.
            And the last, with two, commas.
            """
        #expect(
            throws: CardboxError.invalid(
                field: "walk.txt",
                reason: "is not a table of cards: most rows have 1 column but line 1 has 3, line 3 has 4, line 5 has 2"
            )
        ) { try DelimitedFormat.read(Data(prose.utf8), file: "walk.txt") }
        // The project's own README, which an import once made 230 cards of.
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        #expect(throws: CardboxError.self) {
            try DelimitedFormat.read(try Data(contentsOf: readme), file: "README.md")
        }
        // A word list (one column) and a table with a stray short row are tables.
        #expect(try read("perro\ngato\ncasa\nagua\nsol\n").rows.count == 5)
        let mostly = (1...12).map { "w\($0),t\($0)" } + ["alone"]
        #expect(try read(mostly.joined(separator: "\n")).rows.count == 13)
    }

    @Test("Anki's header lines: separator, html, tags column, deck column, note type column")
    func ankiHeaders() throws {
        let text = """
            #separator:Pipe
            #html:true
            #tags column:3
            #deck column:4
            #notetype column:5
            <b>hola</b>|hello<br>there &amp; back|greeting basic|Spanish::Basics|Basic
            perro|dog||Spanish::Basics|Basic
            """
        let document = try read(text)
        #expect(document.rows.count == 2)
        #expect(document.rows[0].front == "hola" && document.rows[0].back == "hello\nthere & back")
        #expect(document.rows[0].tags == ["greeting", "basic"] && document.rows[0].deck == "Spanish::Basics")
        #expect(document.rows[0].line == 6)
        #expect(document.ignored.isEmpty && document.rows.map(\.noteType) == ["Basic", "Basic"])
    }

    @Test("RFC 4180 quoting: separators, doubled quotes and line breaks inside quotes; CRLF and BOM")
    func quoting() throws {
        let text = "\u{FEFF}\"a, b\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",x\r\nlast,row"
        let document = try read(text)
        #expect(document.rows.map(\.front) == ["a, b", "two\nlines", "last"])
        #expect(document.rows.map(\.back) == ["say \"hi\"", "x", "row"])
        #expect(document.rows.map(\.line) == [1, 2, 4])
    }

    @Test("export writes what import reads back, tags included")
    func roundTrip() throws {
        let now = Date()
        let cards = [
            Card(
                id: CardID(UUID()), deckId: DeckID(UUID()), front: "a, \"b\"", back: "line\nbreak", frontLanguage: "es",
                backLanguage: "en",
                tags: ["irregular verbs", "b"], createdAt: now, modifiedAt: now),
            Card(
                id: CardID(UUID()), deckId: DeckID(UUID()), front: "plain", back: "", frontLanguage: "es",
                backLanguage: "en",
                createdAt: now,
                modifiedAt: now),
        ]
        var reported: [Int] = []
        _ = DelimitedFormat.export(cards, separator: ",") { done, _ in reported.append(done) }
        #expect(reported == [2])
        for separator: Character in [",", "\t"] {
            let document = try DelimitedFormat.read(DelimitedFormat.export(cards, separator: separator), file: "x")
            #expect(document.rows.map(\.front) == ["a, \"b\"", "plain"])
            #expect(document.rows.map(\.back) == ["line\nbreak", ""])
            #expect(document.rows[0].tags == ["irregular_verbs", "b"])
        }
    }

    @Test(
        "malformed files are refused with the line",
        arguments: [
            ("a,\"never closed\nb,c", "cards.txt line 1: a quoted field is never closed"),
            ("#separator:wat\na,b", "cards.txt line 1: unknown separator 'wat'"),
            ("#tags column:zero\na,b", "cards.txt line 1: 'zero' is not a column number"),
            ("#tags column:1\ntagonly", "cards.txt line 2: has no front text"),
        ])
    func malformed(text: String, message: String) {
        #expect {
            try read(text)
        } throws: { error in
            (error as? CardboxError)?.localizedDescription.hasPrefix(message) == true
        }
    }

    @Test("a line longer than the limit is refused without reading it all")
    func longLine() {
        let text = String(repeating: "x", count: DelimitedFormat.maximumLineBytes + 10) + ",y"
        #expect(throws: CardboxError.self) { try read(text) }
    }

    @Test("format detection: text with tabs or commas; not binary, not a lone word")
    func detection() {
        #expect(DelimitedFormat.matches(Data("#separator:tab\nhola\thello".utf8)))
        #expect(DelimitedFormat.matches(Data("a,b\n".utf8)))
        #expect(!DelimitedFormat.matches(Data([0x50, 0x4B, 0x03, 0x04, 0, 0, 9])))
        #expect(!DelimitedFormat.matches(Data("hello".utf8)))
    }
}

@Suite("Importing cards")
struct CardImportTests {
    func imports(_ fronts: [String], deck: String = "D") -> [CardImport] {
        fronts.enumerated().map {
            CardImport(deck: deck, draft: CardDraft(front: $1, back: "x", tags: ["t"]), source: "f line \($0 + 1)")
        }
    }

    @Test("duplicates (same front and type in the deck) are skipped, replaced or copied")
    func duplicates() throws {
        let store = try CardboxStore.inMemory()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        _ = try store.addCard(to: try store.resolve("D"), CardDraft(front: "Hola", back: "old"))
        let skipped = try store.importCards(
            imports(["hola", "adiós", "adiós"]), newDeckLanguages: nil, onDuplicate: .skip)
        #expect(skipped.created == ["card": 1] && skipped.skipped == ["card": 2])
        var replacing = imports(["hola"])
        replacing[0].draft.back = "new"
        let replaced = try store.importCards(replacing, newDeckLanguages: nil, onDuplicate: .replace)
        #expect(replaced.replaced == ["card": 1])
        let hola = try #require(try store.cards(in: try store.resolve("D")).first { $0.front == "Hola" })
        #expect(hola.back == "new" && hola.tags == ["t"])
        let copied = try store.importCards(imports(["hola"]), newDeckLanguages: nil, onDuplicate: .copy)
        #expect(try copied.created == ["card": 1] && store.cards(in: try store.resolve("D")).count == 3)
    }

    @Test("the plan's limit is checked for the whole import; nothing is added when it would pass it")
    func limit() throws {
        let store = try CardboxStore.inMemory()
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        #expect(throws: CardboxError.cardLimitExceeded(currentCount: 0, limit: 25, remainingCards: 25, adding: 26)) {
            try store.importCards(imports((0..<26).map { "w\($0)" }), newDeckLanguages: nil, onDuplicate: .skip)
        }
        #expect(try store.allowance().cardCount == 0)
    }

    @Test("missing decks are created with the given languages, or refused; bad rows name their line")
    func decks() throws {
        let store = try CardboxStore.inMemory()
        #expect(
            throws: CardboxError.invalid(
                field: "f line 1",
                reason: "deck 'New' does not exist (give the front language for new decks to create it)")
        ) {
            try store.importCards(imports(["a"], deck: "New"), newDeckLanguages: nil, onDuplicate: .skip)
        }
        let report = try store.importCards(
            imports(["a", "b"], deck: "New"), newDeckLanguages: ("fr", "en"), onDuplicate: .skip)
        #expect(report.created == ["deck": 1, "card": 2])
        #expect(try store.deck(try store.resolve("New")).frontLanguage == "fr")
        #expect(throws: CardboxError.invalid(field: "f line 2: front", reason: "cannot be empty")) {
            try store.importCards(imports(["c", " "], deck: "New"), newDeckLanguages: nil, onDuplicate: .skip)
        }
        #expect(try store.cards(in: try store.resolve("New")).count == 2)
    }
}

@Suite("Import progress")
struct ImportProgressTests {
    @Test("a card import reports its progress, ending at the total")
    func progress() throws {
        let store = try CardboxStore.inMemory()
        _ = try store.setPlan(.premium)
        _ = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let cards = (0..<2_500).map {
            CardImport(deck: "D", draft: CardDraft(front: "w\($0)", back: "x"), source: "line \($0 + 1)")
        }
        var seen: [Int] = []
        _ = try store.importCards(cards, newDeckLanguages: nil, onDuplicate: .skip) { done, total in
            #expect(total == 2_500)
            seen.append(done)
        }
        #expect(seen == [0, 1_000, 2_000, 2_500])
    }
}

@Suite("HTML fields as plain text")
struct PlainTextTests {
    /// The same rules over Characters, written for clarity: a tag runs from `<` to the next `>`,
    /// entities are decoded in the text between tags, once.
    static func reference(_ html: String) -> String {
        let entities = [
            ("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&"),
        ]
        var output = ""
        var rest = Substring(html)
        while let character = rest.first {
            if character == "<", let close = rest.dropFirst().firstIndex(of: ">") {
                let inside = rest[rest.index(after: rest.startIndex)..<close].lowercased()
                if ["br", "br/", "br /"].contains(inside) { output += "\n" }
                rest = rest[rest.index(after: close)...]
            } else if character == "&", let (entity, text) = entities.first(where: { rest.hasPrefix($0.0) }) {
                output += text
                rest = rest.dropFirst(entity.count)
            } else {
                output.append(character)
                rest = rest.dropFirst()
            }
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("tags dropped, line breaks kept, entities decoded once, ends trimmed")
    func examples() {
        #expect(
            DelimitedFormat.plainText(" <b>el</b> perro<BR>the dog<br />!<img src=\"a.jpg\"> ")
                == "el perro\nthe dog\n!")
        #expect(DelimitedFormat.plainText("a &lt;b&gt; &amp;lt; &nbsp;&#39;x&#39;") == "a <b> &lt;  'x'")
        #expect(DelimitedFormat.plainText("1 < 2 and 3 > 2") == "1  2")
        #expect(DelimitedFormat.plainText("x < y") == "x < y")
        #expect(DelimitedFormat.plainText("\u{00A0}café\u{2003}") == "café")
        // Text joined by removing a tag is not decoded again: the entity was not in the text.
        #expect(DelimitedFormat.plainText("&<b>lt;</b> <<br>>") == "&lt; >")
    }

    @Test("matches the rules written over Characters on 20,000 random fields of markup fragments")
    func matchesReference() {
        let pieces = [
            "<", ">", "br", "BR", "/", " ", "&", "amp;", "lt;", "gt;", "nbsp;", "#39;", "quot;", "x", "é", "\n",
            "<br>", "<b>", "&amp;", "\u{00A0}", "日本", "\t", "\u{01}", "\u{3000}", "\r\n", "~", "!", "\u{85}",
        ]
        var random = SeededRandom(seed: 7)
        for _ in 0..<20_000 {
            let field = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            #expect(DelimitedFormat.plainText(field) == Self.reference(field), "\(field.debugDescription)")
        }
    }
}

@Suite("Records and tags read as runs of bytes")
struct DelimitedRecordTests {
    /// One record read byte by byte, as RFC 4180 says (the rules `parseRecord` keeps while taking an
    /// unquoted field whole): a quote opens a quoted field only at its start, `""` in it is a quote.
    static func reference(_ text: String, separator: UInt8) -> (fields: [String], rest: Int) {
        let bytes = Array(text.utf8)
        var (fields, field, quoted, index) = ([String](), [UInt8](), false, 0)
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 2
                        continue
                    }
                    quoted = false
                } else {
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") && field.isEmpty {
                quoted = true
            } else if byte == separator {
                fields.append(String(decoding: field, as: UTF8.self))
                field = []
            } else if byte == UInt8(ascii: "\n") {
                fields.append(String(decoding: field.last == 13 ? field.dropLast() : field[...], as: UTF8.self))
                return (fields, index + 1)
            } else {
                field.append(byte)
            }
            index += 1
        }
        fields.append(String(decoding: field.last == 13 ? field.dropLast() : field[...], as: UTF8.self))
        return (fields, index)
    }

    @Test("a record is what reading it byte by byte gives, on 20,000 random lines of quotes and separators")
    func matchesReference() throws {
        let pieces = ["\"", "\"\"", ",", "\t", "\n", "\r\n", "a", "bc", " ", "é", "日本", "x\"y"]
        var random = SeededRandom(seed: 11)
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...10, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            let separator = Bool.random(using: &random) ? UInt8(ascii: ",") : 9
            let expected = Self.reference(text, separator: separator)
            let bytes = Array(text.utf8)
            var (index, line) = (0, 1)
            do {
                let fields = try DelimitedFormat.parseRecord(
                    bytes, at: &index, line: &line, separator: separator, file: "f")
                #expect(fields == expected.fields && index == expected.rest, "\(text.debugDescription)")
            } catch {
                // Only a quoted field left open is refused.
                #expect(error.localizedDescription.contains("never closed"), "\(text.debugDescription): \(error)")
            }
        }
    }

    @Test("tags split as bytes are the tags split at white space characters, ASCII or not")
    func tags() {
        let pieces = [
            "a", "tag", " ", "\t", "\n", "\r", "\r\n", "\u{0B}", "\u{0C}", "\u{1C}", "\u{85}", "\u{00A0}", "\u{3000}",
            "\u{2003}", "é", "::",
        ]
        var random = SeededRandom(seed: 5)
        for _ in 0..<20_000 {
            let field = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            #expect(
                DelimitedFormat.tagList(field) == field.split(whereSeparator: \.isWhitespace).map(String.init),
                "\(field.debugDescription)")
        }
    }
}
