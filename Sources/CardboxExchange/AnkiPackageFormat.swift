import CardboxCore
import CardboxScheduling
import CardboxStore
import Foundation
import GRDB
import Synchronization
import ZIPFoundation

/// Anki's `.apkg` packages in the legacy layout (Anki's "Support older Anki versions" export): a zip
/// with `collection.anki21` (or `collection.anki2`), an SQLite collection, plus `media`, a JSON map of
/// the numbered media files. Notes of the Basic kinds become cards; review history is replayed into
/// FSRS state; images are attached. Everything else is said in the report, not dropped silently.
public enum AnkiPackageFormat {
    /// The collection is copied out of the zip to a temporary file; a larger one is refused (a zip
    /// bomb is stopped while it expands, not after).
    public static let maximumCollectionBytes: UInt64 = 2 * 1024 * 1024 * 1024

    public struct Package: Sendable {
        public var cards: [CardImport]
        public var notImported: [String]
        /// Where each note type's fields went, e.g. "note type 'Vocab': Spanish → front, English → back,
        /// Example → notes".
        public var fieldMapping: [String] = []
    }

    /// Cards from which a package's collection is read in two parts at once, each on its own
    /// connection: reading a 10,000-note package was a quarter of its import, on one core of two.
    public static let partThreshold = 2_000

    /// Whether the file at `data`'s start is a zip (the only zip format Cardbox reads).
    public static func matches(_ data: Data) -> Bool { data.starts(with: [0x50, 0x4B, 0x03, 0x04]) }

    /// `partsFrom`: the number of cards from which the collection is read in two parts at once.
    public static func read(
        path: String, file: String, collectionLimit: UInt64 = maximumCollectionBytes,
        partsFrom partThreshold: Int = AnkiPackageFormat.partThreshold
    ) throws -> Package {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw CardboxError.invalid(field: file, reason: "is not a readable zip archive")
        }
        guard let entry = archive["collection.anki21"] ?? archive["collection.anki2"] else {
            if archive["collection.anki21b"] != nil {
                throw CardboxError.invalid(
                    field: file,
                    reason: "uses Anki's newer package format; export again with 'Support older Anki versions' checked")
            }
            throw CardboxError.invalid(field: file, reason: "has no collection.anki2: not an Anki package")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-apkg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let collection = folder.appendingPathComponent("collection.sqlite")
        try extract(entry, from: archive, to: collection, limit: collectionLimit, file: file)
        let media = try mediaMap(archive, file: file)
        return try Reader(archive: archive, media: media, file: file, partThreshold: partThreshold).read(collection)
    }

    /// Copies an entry out, checking the SQLite header in its first bytes before expanding the rest, and
    /// stopping as soon as it passes `limit` bytes or the size its header declares: a package whose
    /// collection is not a database, or expands far past its size, is refused in its first chunks.
    static func extract(_ entry: Entry, from archive: Archive, to url: URL, limit: UInt64, file: String) throws {
        let tooLarge = CardboxError.invalid(
            field: file,
            reason: "\(entry.path) expands past \(limit) bytes, the most Cardbox reads from one Anki package")
        guard entry.uncompressedSize <= limit else { throw tooLarge }
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: url)
        else {
            throw CardboxError.storage("cannot write a temporary file for \(file)")
        }
        defer { try? handle.close() }
        var header = SQLiteHeader()
        var written: UInt64 = 0
        do {
            try BoundedZipEntry.extract(entry, from: archive, file: file) { chunk in
                written += UInt64(chunk.count)
                if written > limit { throw tooLarge }
                if !header.isComplete {
                    header.append(chunk)
                    if header.isComplete || written == entry.uncompressedSize {
                        try header.check(file: file)
                    }
                }
                if let declared = header.declaredSize, written > declared {
                    throw CardboxError.invalid(
                        field: file, reason: "\(entry.path) is longer than the \(declared) bytes its header declares")
                }
                handle.write(chunk)
            }
        } catch let error as CardboxError {
            throw error
        } catch {
            throw CardboxError.invalid(field: file, reason: "\(entry.path) is damaged in the archive")
        }
        if !header.isComplete { try header.check(file: file) }
    }

    /// The first 100 bytes of an SQLite database file: its magic string and, when the header is
    /// current, the database's size (page size × page count).
    struct SQLiteHeader {
        static let magic = Array("SQLite format 3\u{0}".utf8)
        private(set) var bytes: [UInt8] = []
        var isComplete: Bool { bytes.count >= 100 }

        mutating func append(_ chunk: Data) {
            bytes.append(contentsOf: chunk.prefix(100 - bytes.count))
        }

        func check(file: String) throws {
            guard isComplete, bytes.starts(with: Self.magic) else {
                throw CardboxError.invalid(field: file, reason: "its collection is not an SQLite database")
            }
        }

        /// The size the header declares, when its "version valid for" number matches the change
        /// counter (SQLite's rule for trusting the in-header size); nil otherwise.
        var declaredSize: UInt64? {
            guard isComplete, bytes.starts(with: Self.magic) else { return nil }
            func number(_ offset: Int, _ count: Int) -> UInt64 {
                bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt64($1) }
            }
            guard number(24, 4) == number(92, 4) else { return nil }
            let pageSize = number(16, 2) == 1 ? 65_536 : number(16, 2)
            let pages = number(28, 4)
            guard pageSize >= 512, pages > 0 else { return nil }
            return pageSize * pages
        }
    }

    /// Bytes of a small entry (a media file), or nil when it is larger than `limit`.
    static func data(_ entry: Entry, from archive: Archive, limit: Int) -> Data? {
        guard entry.uncompressedSize <= UInt64(limit) else { return nil }
        var data = Data()
        do {
            try BoundedZipEntry.extract(entry, from: archive, file: "media") { chunk in
                data.append(chunk)
                if data.count > limit { throw CardboxError.invalid(field: "media", reason: "too large") }
            }
        } catch {
            return nil
        }
        return data
    }

    /// The `media` entry: media file names by their numbered entry names.
    static func mediaMap(_ archive: Archive, file: String) throws -> [String: String] {
        guard let entry = archive["media"] else { return [:] }
        guard let data = data(entry, from: archive, limit: 64 * 1024 * 1024),
            let map = try? JSONDecoder().decode([String: String].self, from: data)
        else { return [:] }
        var byName: [String: String] = [:]
        for (number, name) in map { byName[name] = number }
        return byName
    }

    struct NoteType: Decodable, Sendable {
        struct Field: Decodable, Sendable { var name: String }
        struct Template: Decodable, Sendable { var qfmt: String }
        var name: String
        var type: Int
        var flds: [Field]
        var tmpls: [Template]

        /// Where the fields go: the first to the front, the second to the back, every other one to the
        /// card's notes under its name.
        var mapping: String {
            let places = ["front", "back"]
            return flds.enumerated().map { index, field in
                "\(field.name) → \(index < places.count ? places[index] : "notes")"
            }.joined(separator: ", ")
        }

        /// The fields after the first two, as notes: one line each, labelled by the field's name; empty
        /// fields are left out.
        func extraFieldNotes(_ values: [String]) -> String {
            values.enumerated().dropFirst(2).compactMap { index, value in
                let text = DelimitedFormat.plainText(value)
                guard !text.isEmpty else { return nil }
                let name = index < flds.count ? flds[index].name : "Field \(index + 1)"
                return "\(name): \(text)"
            }.joined(separator: "\n")
        }

        /// Anki's Cloze type (and types made from it): the first field is the text, the second the
        /// back extra; card `ord` studies deletion `ord + 1`.
        var isCloze: Bool { type == 1 && !flds.isEmpty }

        /// Basic, Basic (and reversed card), Basic (optional reversed card), Basic (type in the
        /// answer): a standard type whose templates show the first field, then the second.
        var isBasic: Bool {
            guard type == 0, flds.count >= 2, (1...2).contains(tmpls.count) else { return false }
            return tmpls.enumerated().allSatisfy { index, template in template.qfmt.contains("{{\(flds[index].name)}}")
            }
        }
    }

    /// A note type and whether Cardbox reads its cards.
    struct ReadType: Sendable {
        let type: NoteType
        let isRead: Bool
    }

    /// What the collection's rows say beside its cards: note types and deck names, by id.
    struct Catalog: Sendable {
        let noteTypes: [Int64: ReadType]
        let deckNames: [Int64: String]
    }

    /// The cards of one range of notes, read on a thread of its own. Images are named here and
    /// read from the archive afterwards, on one thread: the archive's file is not shared.
    struct Part: Sendable {
        var cards: [CardImport] = []
        var imageNames: [String?] = []
        var skipped: [String: Int] = [:]
        var mappings: [String: String] = [:]
    }

    struct Reader {
        let archive: Archive
        let media: [String: String]
        let file: String
        let partThreshold: Int

        func read(_ collection: URL) throws -> Package {
            let rows = Rows(file: file)
            let first = try rows.open(collection)
            let (known, split) = try rows.guarded {
                try first.read { db in (try Rows.collection(db), try Rows.splitNote(db, from: partThreshold)) }
            }
            // Parts in note order: before the note the split falls on, and from it.
            let conditions: [(String, StatementArguments)] =
                split.map { [("c.nid < ?", [$0]), ("c.nid >= ?", [$0])] } ?? [("1", [])]
            let results = Mutex<[Int: Result<Part, any Error>]>([:])
            DispatchQueue.concurrentPerform(iterations: conditions.count) { index in
                let result = Result {
                    try rows.guarded {
                        let queue = index == 0 ? first : try rows.open(collection)
                        return try queue.read { db in
                            try rows.part(db, where: conditions[index].0, conditions[index].1, known)
                        }
                    }
                }
                results.withLock { $0[index] = result }
            }
            var whole = try results.withLock { $0[0]! }.get()
            for index in conditions.indices.dropFirst() {
                let part = try results.withLock { $0[index]! }.get()
                whole.cards += part.cards
                whole.imageNames += part.imageNames
                whole.skipped.merge(part.skipped, uniquingKeysWith: +)
                whole.mappings.merge(part.mappings) { first, _ in first }
            }
            return package(whole)
        }

        /// The parts' cards with their images, and what did not come over.
        private func package(_ whole: Part) -> Package {
            var cards = whole.cards
            var skippedImages = 0
            for (index, name) in whole.imageNames.enumerated() {
                guard let name else { continue }
                cards[index].image = attachment(named: name)
                if cards[index].image == nil { skippedImages += 1 }
            }
            func counted(_ count: Int) -> String { Wording.counted(count, "card") }
            var notImported = whole.skipped.sorted { $0.key < $1.key }.map { kind, count in "\(counted(count)) \(kind)"
            }
            if skippedImages > 0 {
                notImported.append(
                    "\(Wording.counted(skippedImages, "image")) (missing, over 5 MB, or not JPEG/PNG/HEIC)")
            }
            let fieldMapping = whole.mappings.sorted { $0.key < $1.key }.map { "note type '\($0.key)': \($0.value)" }
            return Package(cards: cards, notImported: notImported, fieldMapping: fieldMapping)
        }

        /// A note's fields, which Anki keeps in one text separated by U+001F. Split as bytes: Foundation's
        /// `components(separatedBy:)` took a few percent of a 10,000-note import.
        static func fields(of text: String) -> [String] {
            var text = text
            return text.withUTF8 { bytes in
                bytes.split(separator: 0x1F, omittingEmptySubsequences: false).map {
                    String(decoding: UnsafeBufferPointer(rebasing: $0), as: UTF8.self)
                }
            }
        }

        /// A JSON column of `col`, or an empty value when it is missing or damaged.
        static func decode<T: Decodable & ExpressibleByDictionaryLiteral>(_ type: T.Type, _ text: String?) -> T {
            guard let text, let value = try? JSONDecoder().decode(type, from: Data(text.utf8)) else { return [:] }
            return value
        }

        /// The image a card shows, as a valid JPEG/PNG/HEIC of at most 5 MB, or nil.
        private func attachment(named name: String) -> Data? {
            guard let number = media[name], let entry = archive[number],
                let data = AnkiPackageFormat.data(entry, from: archive, limit: Limits.imageBytes),
                (try? ImageFormat.validate(data)) != nil
            else { return nil }
            return data
        }

        /// The file name in the first `<img src="…">` of a field.
        static func firstImage(in html: String) -> String? {
            guard html.utf8.contains(UInt8(ascii: "<")) else { return nil }  // text without markup: most fields
            guard let tag = html.range(of: "<img", options: .caseInsensitive),
                let source = html.range(of: "src=", options: .caseInsensitive, range: tag.upperBound..<html.endIndex)
            else { return nil }
            var rest = html[source.upperBound...]
            let quote = rest.first == "\"" || rest.first == "'" ? rest.first : nil
            if quote != nil { rest = rest.dropFirst() }
            let end =
                rest.firstIndex { character in
                    if let quote { return character == quote }
                    return character == " " || character == ">"
                } ?? rest.endIndex
            let name = String(rest[..<end])
            return name.isEmpty ? nil : name.removingPercentEncoding ?? name
        }
    }

    /// Reads a collection's rows, on any thread: what `Reader` does apart from the archive.
    struct Rows: Sendable {
        let file: String

        func open(_ collection: URL) throws -> DatabaseQueue {
            var configuration = Configuration()
            configuration.readonly = true
            do {
                return try DatabaseQueue(path: collection.path, configuration: configuration)
            } catch {
                throw CardboxError.invalid(field: file, reason: "its collection is not an SQLite database")
            }
        }

        /// A damaged collection's errors, named as the package's.
        func guarded<Value>(_ body: () throws -> Value) throws -> Value {
            do {
                return try body()
            } catch let error as CardboxError {
                throw error
            } catch {
                throw CardboxError.invalid(
                    field: file, reason: "its collection is damaged (\(error.localizedDescription))")
            }
        }

        static func collection(_ db: Database) throws -> Catalog? {
            // Every column is read as optional: a damaged collection gives errors or gaps, never a trap.
            guard let col = try Row.fetchOne(db, sql: "SELECT models, decks FROM col") else { return nil }
            // Whether Cardbox reads a note type's cards is decided once per type, not once per card.
            let noteTypes = Reader.decode([String: NoteType].self, col["models"]).reduce(
                into: [Int64: ReadType]()
            ) { types, entry in
                if let id = Int64(entry.key) {
                    types[id] = ReadType(type: entry.value, isRead: entry.value.isBasic || entry.value.isCloze)
                }
            }
            struct DeckName: Decodable { var name: String }
            let deckNames = Reader.decode([String: DeckName].self, col["decks"]).reduce(into: [Int64: String]()) {
                names, entry in if let id = Int64(entry.key) { names[id] = entry.value.name }
            }
            return Catalog(noteTypes: noteTypes, deckNames: deckNames)
        }

        /// The note at which the cards divide in two halves, when there are enough to read in parts.
        static func splitNote(_ db: Database, from threshold: Int) throws -> Int64? {
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM cards") ?? 0
            guard count >= threshold, ProcessInfo.processInfo.activeProcessorCount > 1 else { return nil }
            return try Int64.fetchOne(
                db, sql: "SELECT nid FROM cards WHERE nid IS NOT NULL ORDER BY nid LIMIT 1 OFFSET ?",
                arguments: [count / 2])
        }

        /// The cards whose notes meet `condition` (on `cards c`), with their notes and answers.
        func part(
            _ db: Database, where condition: String, _ arguments: StatementArguments, _ known: Catalog?
        ) throws -> Part {
            guard let known else { throw CardboxError.invalid(field: file, reason: "its collection has no col row") }
            // Rows are read through cursors by column position: collecting them first and reading
            // columns by name was a fifth of reading a 10,000-note package.
            var reviews: [Int64: [ReviewImport]] = [:]
            let reviewRows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT r.cid, r.id, r.ease, r.time FROM revlog r JOIN cards c ON c.id = r.cid
                    WHERE \(condition) AND r.ease BETWEEN 1 AND 4 AND r.type < 4 ORDER BY r.cid, r.id
                    """, arguments: arguments)
            while let row = try reviewRows.next() {
                guard let cardId = row[0] as Int64?, let millis = row[1] as Int64?, let rating = row[2] as Int?
                else { continue }
                reviews[cardId, default: []].append(
                    ReviewImport(
                        rating: rating, at: Date(timeIntervalSince1970: Double(millis) / 1000),
                        durationMs: ((row[3] as Int?) ?? 0).clamped(to: StudyRanges.answerDuration)))
            }
            var part = Part()
            // Each card with its note: a note's fields are split again for its second card (a
            // reversed one), which costs less than holding every note's fields by id.
            let cardRows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT c.id, c.did, c.ord, c.queue, n.mid, n.tags, n.flds FROM cards c JOIN notes n ON n.id = c.nid
                    WHERE \(condition) ORDER BY c.nid, c.ord
                    """, arguments: arguments)
            while let row = try cardRows.next() {
                guard let cardId = row[0] as Int64?, let noteType = row[4] as Int64? else { continue }
                guard let read = known.noteTypes[noteType] else {
                    part.skipped["of an unknown note type", default: 0] += 1
                    continue
                }
                let type = read.type
                guard read.isRead else {
                    part.skipped["of note type '\(type.name)' (custom templates)", default: 0] += 1
                    continue
                }
                let noteFields = Reader.fields(of: (row[6] as String?) ?? "")
                let ord = (row[2] as Int?) ?? 0
                let fields = noteFields + Array(repeating: "", count: max(0, 2 - noteFields.count))
                var (question, answer) = ord == 0 ? (fields[0], fields[1]) : (fields[1], fields[0])
                if type.isCloze { (question, answer) = (fields[0], fields[1]) }  // Text, Back Extra
                if type.flds.count > 2 { part.mappings[type.name] = type.mapping }  // two fields go where expected
                var draft = CardDraft(
                    front: DelimitedFormat.plainText(question), back: DelimitedFormat.plainText(answer),
                    cardType: ord == 0 ? Card.defaultType : "reversed", notes: type.extraFieldNotes(fields),
                    tags: ((row[5] as String?) ?? "").split(separator: " ").map(String.init))
                if type.isCloze {
                    // Card `ord` studies deletion ord + 1; Anki keeps a card whose deletion was
                    // removed from the text (an "empty card"), which has nothing to study.
                    guard Cloze.numbers(in: draft.front).contains(ord + 1) else {
                        part.skipped["empty cloze (its deletion is gone from the text)", default: 0] += 1
                        continue
                    }
                    (draft.cardType, draft.clozeNumber) = (Cloze.cardType, ord + 1)
                }
                if draft.front.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
                    // A front that is only an image is named by the image's file, as Anki's browser
                    // shows it; a front with nothing at all has nothing to study.
                    guard let name = Reader.firstImage(in: question)?.trimmingCharacters(in: .whitespaces),
                        !name.isEmpty
                    else {
                        part.skipped["with an empty front", default: 0] += 1
                        continue
                    }
                    draft.front = name
                }
                let did = (row[1] as Int64?) ?? 1
                var card = CardImport(
                    deck: known.deckNames[did] ?? "Default", draft: draft,
                    source: ImportSource(file: file, unit: "card", number: cardId))
                card.isArchived = (row[3] as Int?) == -1  // suspended: kept, never studied
                card.reviews = reviews[cardId] ?? []
                part.cards.append(card)
                part.imageNames.append(Reader.firstImage(in: question + answer))
            }
            return part
        }
    }
}
