import CardboxCore
import CardboxExchange
import CardboxStore
import Foundation
import GRDB
import Testing

@Suite("Cloze cards in imports and exports")
struct ClozeExchangeTests {
    /// Writes packages by hand into a folder that goes with the test.
    let packages: AnkiPackageTests

    init() throws { packages = try AnkiPackageTests() }

    func premiumStore() throws -> CardboxStore {
        let store = try CardboxStore.inMemory()
        _ = try store.setPlan(.premium)
        return store
    }

    func importText(_ text: String, into store: CardboxStore, _ policy: DuplicatePolicy = .skip) throws -> ImportReport
    {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cloze-\(UUID().uuidString).txt").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try store.importFile(
            at: path, named: "cards.txt", ImportOptions(onDuplicate: policy, deck: "Spanish", frontLanguage: "es"))
    }

    @Test("a CSV/TSV front with deletions makes one cloze card per number; importing it again skips them all")
    func delimitedImport() throws {
        let store = try premiumStore()
        let report = try importText("El {{c1::gato}} {{c2::duerme}}\tThe cat sleeps\nhola\thello\n", into: store)
        #expect(report.created == ["card": 3, "deck": 1])
        let cards = try store.cards(in: try store.resolve("Spanish"))
        #expect(cards.map(\.clozeNumber) == [1, 2, nil])
        #expect(cards.map(\.cardType) == ["cloze", "cloze", "basic"])
        #expect(cards[1].back == "The cat sleeps" && cards[1].question == "El gato [...]")
        #expect(try importText("El {{c1::gato}} {{c2::duerme}}\tx\n", into: store).skipped == ["card": 2])
    }

    @Test("a note type column decides: Cloze without a deletion is refused by line, Basic keeps the text")
    func noteTypeColumn() throws {
        let store = try premiumStore()
        let report = try importText("#notetype column:3\n{{c1::literal}}\tback\tBasic\n", into: store)
        #expect(report.created["card"] == 1)
        #expect(try store.cards(in: nil).map(\.cardType) == ["basic"])
        #expect {
            try importText("#notetype column:3\nplain\tback\tCloze\nok\tfine\tBasic\n", into: store)
        } throws: { error in
            (error as? CardboxError)?.localizedDescription.hasPrefix(
                "cards.txt line 2: is a cloze note whose text has no cloze deletion")
                == true
        }
        #expect(try store.cards(in: nil).count == 1)
    }

    @Test("export writes a cloze text once, in Anki's form with its note type, and import makes its cards again")
    func exportRoundTrip() throws {
        let store = try premiumStore()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        _ = try store.addClozeCards(
            to: deck.id, text: "{{c1::Buenos}} {{c2::días::time}}", extra: "Good morning", tags: ["greeting"])
        _ = try store.addCard(to: deck.id, CardDraft(front: "hola", back: "hello"))
        let text = String(
            decoding: DelimitedFormat.export(try store.cards(in: deck.id), separator: "\t"), as: UTF8.self)
        #expect(
            text == """
                #separator:tab
                #html:false
                #tags column:3
                #notetype column:5
                #columns:Front\tBack\tTags\tNotes\tNotetype
                {{c1::Buenos}} {{c2::días::time}}\tGood morning\tgreeting\t\tCloze
                hola\thello\t\t\tBasic

                """)
        let copy = try premiumStore()
        #expect(try importText(text, into: copy).created["card"] == 3)
        #expect(try copy.cards(in: nil).map(\.question) == ["[...] días", "Buenos [time]", "hola"])
        #expect(try copy.cards(in: nil)[1].tags == ["greeting"])
    }

    @Test("a basic card whose front holds '{{c1::' exports with its note type, and comes back basic")
    func literalBraces() throws {
        let store = try premiumStore()
        let deck = try store.createDeck(name: "Spanish", frontLanguage: "es", backLanguage: "en")
        _ = try store.addCard(to: deck.id, CardDraft(front: "{{c1::literal}}", back: "b"))
        let text = String(
            decoding: DelimitedFormat.export(try store.cards(in: deck.id), separator: "\t"), as: UTF8.self)
        #expect(text.contains("#notetype column:5") && text.contains("{{c1::literal}}\tb\t\t\tBasic"))
        let copy = try premiumStore()
        _ = try importText(text, into: copy)
        #expect(try copy.cards(in: nil).map(\.cardType) == ["basic"])
    }

    /// A package with Anki's Cloze note type: a note with deletions c1 and c2, its Back Extra, and a
    /// third card whose deletion was removed from the text (an "empty card" in Anki); c2 has reviews.
    func clozePackage() throws -> String {
        let models = #"""
            {"1": {"name": "Cloze", "type": 1, "flds": [{"name": "Text"}, {"name": "Back Extra"}],
              "tmpls": [{"qfmt": "{{cloze:Text}}"}]}}
            """#
        return try packages.legacyPackage(models: models, decks: #"{"1": {"name": "Frases"}}"#) { db in
            try db.execute(
                sql: "INSERT INTO notes VALUES (1, 1, ' frase ', ?)",
                arguments: ["El <b>{{c1::gato}}</b> {{c2::duerme::verb}}\u{1F}The cat sleeps"])
            for ord in 0..<3 {
                try db.execute(sql: "INSERT INTO cards VALUES (?, 1, 1, ?, 0)", arguments: [10 + ord, ord])
            }
            try db.execute(sql: "INSERT INTO revlog VALUES (1700000000000, 11, 3, 4000, 0)")
        }
    }

    @Test("Anki's cloze notes come in as cloze cards, one per deletion, with their reviews; an empty card is said")
    func ankiPackage() throws {
        let package = try AnkiPackageFormat.read(path: try clozePackage(), file: "cloze.apkg")
        #expect(package.cards.map(\.draft.clozeNumber) == [1, 2])
        #expect(package.cards.allSatisfy { $0.draft.front == "El {{c1::gato}} {{c2::duerme::verb}}" })
        #expect(package.cards.map(\.draft.back) == ["The cat sleeps", "The cat sleeps"])
        #expect(package.cards.map(\.reviews.count) == [0, 1])
        #expect(package.notImported == ["1 card empty cloze (its deletion is gone from the text)"])
        let store = try premiumStore()
        let report = try store.importCards(package.cards, newDeckLanguages: ("es", "en"), onDuplicate: .skip)
        #expect(report.created == ["card": 2, "deck": 1, "review": 1])
        let cards = try store.cards(in: try store.resolve("Frases"))
        #expect(cards.map(\.question) == ["El [...] duerme", "El gato [verb]"])
        #expect(cards.map(\.reps) == [0, 1] && cards[0].state == .new)
    }
}
