import CardboxCore
import CardboxScheduling
import CardboxStore
import Foundation
import GRDB
import Testing
import ZIPFoundation

@testable import CardboxExchange

@Suite("Anki packages (.apkg made by the real Anki: scripts/anki_package.py)")
final class AnkiPackageTests {
    /// Packages a test writes by hand, removed with the test.
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("apkg-tests-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/spanish.apkg").path

    func imported() throws -> (CardboxStore, ImportReport) {
        let store = try CardboxStore.inMemory()
        let package = try AnkiPackageFormat.read(path: Self.fixture, file: "spanish.apkg")
        var report = try store.importCards(package.cards, newDeckLanguages: ("es", "en"), onDuplicate: .skip)
        report.notImported += package.notImported
        return (store, report)
    }

    @Test("Basic, reversed and cloze notes become cards with their deck, tags and image")
    func cards() throws {
        let (store, report) = try imported()
        #expect(report.created == ["card": 6, "deck": 2, "review": 3])
        #expect(report.notImported.isEmpty)
        #expect(try store.decks().map(\.name) == ["Spanish", "Spanish::Animals"])
        let animals = try store.cards(in: try store.resolve("Spanish::Animals"))
        #expect(animals.map(\.front) == ["el gato", "el perro"])
        #expect(animals.map(\.back) == ["the cat", "the dog & friend"])
        #expect(animals[0].tags == ["animal", "noun"] && animals[0].imageHash != nil && animals[1].imageHash == nil)
        let spanish = try store.cards(in: try store.resolve("Spanish"))
        #expect(
            spanish.map { "\($0.question)→\($0.back) \($0.cardType)" } == [
                "hola→hello basic", "hello→hola reversed", "[...] días→ cloze",
            ])
        #expect(
            try store.cards(in: try store.resolve("Spanish"), filter: CardFilter(archived: true)).map(\.front) == [
                "adiós"
            ])
    }

    @Test("review history becomes FSRS state, as replaying it through the scheduler gives")
    func history() throws {
        let (store, _) = try imported()
        let log = try store.reviewLog(in: try store.resolve("Spanish::Animals"))
        #expect(log.map(\.rating) == [3, 3, 1] || log.map(\.rating).sorted() == [1, 3, 3])
        for card in try store.cards(in: try store.resolve("Spanish::Animals")) {
            let reviews = log.filter { $0.cardId == card.id }
            var expected = MemoryState.new(at: reviews.first?.reviewedAt ?? Date())
            let scheduler = try Scheduler()
            for review in reviews {
                expected = scheduler.review(expected, rating: Rating(rawValue: review.rating)!, at: review.reviewedAt)
            }
            #expect(card.reps == reviews.count)
            #expect(card.stability == expected.stability && card.difficulty == expected.difficulty)
            #expect(card.dueAt == expected.due && card.state.rawValue == expected.phase.rawValue)
        }
    }

    @Test("a note's fields split at U+001F, empty ones kept, text beyond ASCII whole")
    func noteFields() {
        #expect(AnkiPackageFormat.Reader.fields(of: "") == [""])
        #expect(AnkiPackageFormat.Reader.fields(of: "el niño\u{1F}\u{1F}the boy 👦") == ["el niño", "", "the boy 👦"])
        #expect(AnkiPackageFormat.Reader.fields(of: "a\u{1F}") == ["a", ""])
    }

    @Test("a damaged deflate stream that never ends is refused, not read for ever (found by fuzzing)")
    func deflateThatNeverEnds() throws {
        let input = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/regressions/apkg/deflate-stream-that-never-ends")
        #expect {
            try AnkiPackageFormat.read(path: input.path, file: "damaged.apkg")
        } throws: { error in
            "\(error)".contains("damaged")
        }
    }

    @Test("a collection whose bytes do not match the archive's CRC-32 is refused as damaged")
    func checksumMismatch() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixture)))
        let name = Array("collection.anki21".utf8)
        // The name follows a local header at 30 bytes (its CRC at 14) and a central directory
        // header at 46 (its CRC at 16): flip a bit of the CRC in both.
        var patched = 0
        for start in 0..<(bytes.count - name.count) where bytes[start..<start + name.count].elementsEqual(name) {
            let header = Array(bytes[max(0, start - 46)..<start])
            if start >= 30, bytes[start - 30..<start - 26].elementsEqual([0x50, 0x4B, 0x03, 0x04]) {
                bytes[start - 30 + 14] ^= 1
                patched += 1
            } else if header.count == 46, header.prefix(4).elementsEqual([0x50, 0x4B, 0x01, 0x02]) {
                bytes[start - 46 + 16] ^= 1
                patched += 1
            }
        }
        #expect(patched == 2)
        let path = scratch.appendingPathComponent("crc.apkg")
        try Data(bytes).write(to: path)
        #expect {
            try AnkiPackageFormat.read(path: path.path, file: "crc.apkg")
        } throws: { error in
            "\(error)".contains("collection.anki21 is damaged in the archive")
        }
        #expect(try AnkiPackageFormat.read(path: Self.fixture, file: "spanish.apkg").cards.count == 6)
    }

    @Test("a collection read in two parts at once gives the cards, in order, that one read gives")
    func readInParts() throws {
        func summary(_ package: AnkiPackageFormat.Package) -> [String] {
            package.cards.map { card in
                let reviews = card.reviews.map { "\($0.rating)@\($0.at.timeIntervalSince1970)/\($0.durationMs ?? -1)" }
                return [
                    card.deck, card.draft.front, card.draft.back, card.draft.cardType, card.draft.notes,
                    card.draft.tags.joined(separator: " "), "\(card.draft.clozeNumber ?? 0)", "\(card.isArchived)",
                    "\(card.image?.count ?? 0)", card.source.description, reviews.joined(separator: " "),
                ].joined(separator: "|")
            } + package.notImported + package.fieldMapping
        }
        let whole = try AnkiPackageFormat.read(path: Self.fixture, file: "spanish.apkg", partsFrom: .max)
        let inParts = try AnkiPackageFormat.read(path: Self.fixture, file: "spanish.apkg", partsFrom: 2)
        #expect(whole.cards.count == 6 && whole.cards.contains { !$0.reviews.isEmpty })
        #expect(whole.cards.contains { $0.image != nil } && whole.cards.contains(where: \.isArchived))
        #expect(summary(inParts) == summary(whole))
    }

    @Test("importing the same package again skips every card")
    func again() throws {
        let (store, _) = try imported()
        let package = try AnkiPackageFormat.read(path: Self.fixture, file: "spanish.apkg")
        let report = try store.importCards(package.cards, newDeckLanguages: nil, onDuplicate: .skip)
        #expect(report.created.isEmpty && report.skipped == ["card": 6])
    }

    func zip(_ entries: [String: Data]) throws -> String {
        let path = scratch.appendingPathComponent("t-\(UUID().uuidString).apkg").path
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        for (name, data) in entries {
            try archive.addEntry(
                with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate
            ) {
                position, size in data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return path
    }

    @Test("damaged, foreign and hostile packages are refused by name")
    func refused() throws {
        let notZip = scratch.appendingPathComponent("not-a-zip.apkg")
        try Data("hello".utf8).write(to: notZip)
        let cases: [(String, String, UInt64)] = [
            (notZip.path, "is not a readable zip archive", AnkiPackageFormat.maximumCollectionBytes),
            (
                try zip(["readme.txt": Data("hi".utf8)]), "has no collection.anki2",
                AnkiPackageFormat.maximumCollectionBytes
            ),
            (
                try zip(["collection.anki21b": Data([1])]), "uses Anki's newer package format",
                AnkiPackageFormat.maximumCollectionBytes
            ),
            (
                try zip(["collection.anki21": Data("not sqlite".utf8)]), "its collection",
                AnkiPackageFormat.maximumCollectionBytes
            ),
            // A zip bomb: a small entry that expands past the limit is stopped while it expands.
            (try zip(["collection.anki21": Data(count: 2 * 1024 * 1024)]), "expands past 1048576 bytes", 1024 * 1024),
            // Zeros are no database: refused from the header in the first chunk, not after expanding.
            (
                try zip(["collection.anki2": Data(count: 8 * 1024 * 1024)]),
                "its collection is not an SQLite database", AnkiPackageFormat.maximumCollectionBytes
            ),
            // A real header that declares one 4 KiB page, followed by megabytes: stopped at the declared size.
            (
                try zip(["collection.anki2": Self.sqliteHeader(pageSize: 4096, pages: 1) + Data(count: 4 * 1024 * 1024)]
                ),
                "collection.anki2 is longer than the 4096 bytes its header declares",
                AnkiPackageFormat.maximumCollectionBytes
            ),
        ]
        for (path, message, limit) in cases {
            #expect {
                _ = try AnkiPackageFormat.read(path: path, file: "x.apkg", collectionLimit: limit)
            } throws: { error in
                (error as? CardboxError)?.localizedDescription.contains(message) == true
            }
        }
    }

    /// The first 100 bytes of an SQLite file declaring `pages` pages of `pageSize` bytes.
    static func sqliteHeader(pageSize: UInt16, pages: UInt32) -> Data {
        var header = [UInt8](repeating: 0, count: 100)
        header.replaceSubrange(0..<16, with: Array("SQLite format 3\u{0}".utf8))
        header[16] = UInt8(pageSize >> 8)
        header[17] = UInt8(pageSize & 0xFF)
        for (offset, value) in [(24, UInt32(7)), (28, pages), (92, UInt32(7))] {
            for index in 0..<4 { header[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
        }
        return Data(header)
    }

    /// A legacy package as genanki writes one: a note type "Vocab" with three fields (Spanish, English,
    /// Example) and one card per note, plus a note whose fields are damaged (only one, no separator).
    func genankiPackage() throws -> String {
        let models = #"""
            {"1607392319": {"name": "Vocab", "type": 0,
              "flds": [{"name": "Spanish"}, {"name": "English"}, {"name": "Example"}],
              "tmpls": [{"qfmt": "{{Spanish}}"}]}}
            """#
        return try legacyPackage(models: models, decks: #"{"1": {"name": "Vocabulario"}}"#) { db in
            let fields = [
                "palabra0 <img src=\"missing.jpg\">\u{1F}word0\u{1F}<b>Una</b> palabra.",
                "perro\u{1F}dog\u{1F}", "solo",
            ]
            for (index, flds) in fields.enumerated() {
                try db.execute(
                    sql: "INSERT INTO notes VALUES (?, 1607392319, ' vocab ', ?)", arguments: [index + 1, flds])
                try db.execute(sql: "INSERT INTO cards VALUES (?, ?, 1, 0, 0)", arguments: [index + 10, index + 1])
            }
        }
    }

    /// A package written by hand with the tables and columns Cardbox reads: `col` holding `models`
    /// and `decks` (their JSON), and the notes, cards and reviews `fill` inserts.
    func legacyPackage(models: String, decks: String, _ fill: (Database) throws -> Void) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("g-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let collection = folder.appendingPathComponent("collection.anki2").path
        let queue = try DatabaseQueue(path: collection)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE col (models TEXT, decks TEXT);
                    CREATE TABLE notes (id INTEGER, mid INTEGER, tags TEXT, flds TEXT);
                    CREATE TABLE cards (id INTEGER, nid INTEGER, did INTEGER, ord INTEGER, queue INTEGER);
                    CREATE TABLE revlog (id INTEGER, cid INTEGER, ease INTEGER, time INTEGER, type INTEGER);
                    """)
            try db.execute(sql: "INSERT INTO col VALUES (?, ?)", arguments: [models, decks])
            try fill(db)
        }
        try queue.close()
        return try zip(["collection.anki2": try Data(contentsOf: URL(fileURLWithPath: collection))])
    }

    @Test("a note type with more than two fields keeps the rest in notes, by name, and says where each went")
    func extraFields() throws {
        let package = try AnkiPackageFormat.read(path: try genankiPackage(), file: "vocab.apkg")
        #expect(package.cards.map(\.draft.front) == ["palabra0", "perro", "solo"])
        #expect(package.cards.map(\.draft.back) == ["word0", "dog", ""])
        #expect(package.cards.map(\.draft.notes) == ["Example: Una palabra.", "", ""])
        #expect(package.cards.map(\.draft.tags) == [["vocab"], ["vocab"], ["vocab"]])
        #expect(package.fieldMapping == ["note type 'Vocab': Spanish → front, English → back, Example → notes"])
        #expect(package.notImported == ["1 image (missing, over 5 MB, or not JPEG/PNG/HEIC)"])
    }
}

extension AnkiPackageTests {
    @Test(
        "a front that is only an image is named by its file; a card with an empty front (or a blank image name) is left out and said"
    )
    func emptyFronts() throws {
        let models = #"""
            {"1": {"name": "Basic", "type": 0, "flds": [{"name": "Front"}, {"name": "Back"}],
              "tmpls": [{"qfmt": "{{Front}}"}]}}
            """#
        let path = try legacyPackage(models: models, decks: #"{"1": {"name": "Animales"}}"#) { db in
            let fields = [
                "<img src=\"gato.jpg\">\u{1F}cat", " <br>\u{1F}dog", "<img src=\" \">\u{1F}blank", "hola\u{1F}hello",
            ]
            for (index, flds) in fields.enumerated() {
                try db.execute(sql: "INSERT INTO notes VALUES (?, 1, '', ?)", arguments: [index + 1, flds])
                try db.execute(sql: "INSERT INTO cards VALUES (?, ?, 1, 0, 0)", arguments: [index + 10, index + 1])
            }
        }
        let package = try AnkiPackageFormat.read(path: path, file: "animales.apkg")
        #expect(package.cards.map(\.draft.front) == ["gato.jpg", "hola"])
        #expect(
            package.notImported == [
                "2 cards with an empty front", "1 image (missing, over 5 MB, or not JPEG/PNG/HEIC)",
            ])
        let store = try CardboxStore.inMemory()
        _ = try store.setPlan(.premium)
        let report = try store.importCards(package.cards, newDeckLanguages: ("es", "en"), onDuplicate: .skip)
        #expect(report.created == ["card": 2, "deck": 1])
    }
}
