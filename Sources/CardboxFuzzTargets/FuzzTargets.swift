import CardboxCore
import CardboxExchange
import CardboxImageDecoding
import CardboxImaging
import CardboxScheduling
import CardboxStore
import CardboxSuggest
import CardboxSync
import Foundation

/// Fuzz targets: one for each decoder that reads bytes a person or another device hands to Cardbox. A
/// target feeds its input to the real decoder and must survive any input. A thrown error is the expected
/// answer to bad input and is swallowed; a crash (a trap, a failed precondition, a sanitizer report) is a
/// bug and is left to crash. `scripts/fuzz.sh` runs the targets under libFuzzer (`cardbox-fuzz`); the
/// tests replay `Fuzz/corpus/<name>` and `Fuzz/regressions/<name>` through them.
public enum FuzzTargets {
    /// The targets by name, as `CARDBOX_FUZZ_TARGET` and the `Fuzz/corpus/<name>` folders name them.
    public static let all: [String: @Sendable (Data) -> Void] = [
        "listall": { data in _ = try? ListAllFormat.read(data, file: "fuzz.json") },
        "backup": { data in _ = try? BackupFormat.read(data, file: "fuzz.json") },
        "delimited": { data in FuzzTargets.delimited(data) },
        "trello": { data in _ = try? TrelloFormat.read(data, file: "fuzz.json") },
        "apkg": { data in FuzzTargets.ankiPackage(data) },
        "reviews": { data in FuzzTargets.reviews(data) },
        "isotime": { data in FuzzTargets.isoTime(data) },
        "positionkey": { data in FuzzTargets.positionKey(data) },
        "detect": { data in FuzzTargets.detect(data) },
        "changes": { data in FuzzTargets.changes(data) },
        "json": { data in FuzzTargets.json(data) },
        "dictzip": { data in FuzzTargets.dictzip(data) },
        "dictd": { data in FuzzTargets.dictd(data) },
        "wordnet": { data in FuzzTargets.wordNet(data) },
        "image": { data in _ = try? VipsImages.ingest(data) },
        "html": { data in FuzzTargets.html(data) },
        "workermessage": { data in FuzzTargets.workerMessage(data) },
        "storedid": { data in FuzzTargets.storedID(data) },
        "study": { data in FuzzTargets.study(data) },
        "cloze": { data in FuzzTargets.cloze(data) },
        "wire": { data in FuzzTargets.wire(data) },
    ]

    /// A card id's bytes (`cardbox_uuid_bytes`) and text (`cardbox_uuid_text`): text has bytes
    /// exactly when it is an id in its stored form, and they read back as that text; 16 bytes read as
    /// the id Foundation writes for them, whose bytes they are.
    static func storedID(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let bytes = StoredID.bytes(text)
        precondition(
            (bytes != nil) == UUID.isStoredForm(text), "\(text.debugDescription): bytes disagree with the form")
        if let bytes { precondition(StoredID.text(bytes) == text, "\(text) does not read back from its bytes") }
        if let id = StoredID.text(data) {
            precondition(StoredID.bytes(id) == data, "16 bytes do not read back")
            let foundation = UUID(uuid: data.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
            precondition(id == foundation.uuidString.lowercased(), "\(id) is not Foundation's text of its bytes")
        }
    }

    /// The image worker's framing: a message that decodes encodes back to the same bytes.
    static func workerMessage(_ data: Data) {
        guard let message = try? WorkerMessage.decode(data) else { return }
        precondition(message.encoded == data, "a worker message does not encode back to its bytes")
    }

    /// The HTML escape of the web pages: whatever the text, what it makes has no character HTML
    /// gives a meaning to, and reads back as the text.
    /// Both checks look at bytes: a Swift `Character` is a grapheme, so a `<` followed by a
    /// combining mark is not the `Character` "<" (that is how swift-mustache's escape missed it).
    static func html(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let html = Array(HTMLText.escape(text).utf8)
        precondition(!html.contains(where: { htmlSpecialBytes.contains($0) }), "an escaped text kept a special byte")
        precondition(unescaped(html) == Array(text.utf8), "an escaped text does not read back as the text")
    }

    private static let htmlSpecialBytes = Set("<>\"'".utf8)

    /// The five entities `HTMLText.escape` writes, each with the byte it stands for.
    private static let htmlEntities: [(entity: [UInt8], byte: UInt8)] = [
        ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&"),
    ].map { (Array($0.0.utf8), Array($0.1.utf8)[0]) }

    /// The five entities read back, over bytes.
    private static func unescaped(_ html: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < html.count {
            if let (entity, byte) = htmlEntities.first(where: { html[index...].starts(with: $0.entity) }) {
                result.append(byte)
                index += entity.count
            } else {
                result.append(html[index])
                index += 1
            }
        }
        return result
    }

    /// A dictzip (or gzip, or plain) dictionary text: read whole, and a range of it.
    static func dictzip(_ data: Data) {
        guard let text = try? DictzipText(data: data, name: "fuzz") else { return }
        _ = try? text.whole()
        _ = try? text.text(offset: Int(data.count % 97), length: Int(data.count % 300))
    }

    /// A dictd index (the input's first half) over a text (the rest): every headword looked up.
    static func dictd(_ data: Data) {
        let middle = data.startIndex + data.count / 2
        guard
            let dictionary = try? DictdDictionary(
                indexData: data[..<middle], textData: Data(data[middle...]), name: "fuzz")
        else { return }
        for headword in dictionary.headwords.prefix(50) { _ = try? dictionary.translations(of: headword) }
    }

    /// WordNet's index and data lines, and the binary search of an index file.
    static func wordNet(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(separator: "\n").prefix(100) {
            _ = WordNet.parseIndexLine(String(line), pos: .noun)
            _ = WordNet.parseDataLine(String(line), pos: .adjective)
        }
        let key = text.split(separator: " ").first.map(String.init) ?? "dog"
        _ = WordNet.findLine(in: data, key: key)
    }

    /// Cardbox's JSON parser against Foundation's decoder: whatever both read, they read alike, and
    /// what the parser reads it writes back and reads again unchanged.
    static func json(_ data: Data) {
        guard let text = String(data: data, encoding: .utf8) else { return }
        let ours = try? JSONParser.parse(text)
        if let ours {
            precondition((try? JSONParser.parse(ours.jsonText)) == ours, "a parsed value did not read back the same")
        }
        // Foundation also takes trailing commas, which the parser (as RFC 8259) refuses.
        guard let ours, let foundation = try? JSONDecoder().decode(JSONValue.self, from: data) else { return }
        precondition(readAlike(ours, foundation), "Foundation read \(foundation), the parser \(ours)")
    }

    /// Equal, but numbers of 2^53 or more (where a Double no longer holds every whole number) are
    /// compared as Doubles, within the steps between Doubles there. There, a number written with a fraction or an exponent is the nearest
    /// Double to the parser, or its whole value when that Double is whole; Foundation takes it
    /// again as a `Decimal` without its fraction, when its digits fit (12345678901234567.5 is
    /// 12345678901234567, -4444444444444444444424e-3 a Double).
    static func readAlike(_ ours: JSONValue, _ theirs: JSONValue) -> Bool {
        switch (ours, theirs) {
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { readAlike($0, $1) }
        case (.object(let a), .object(let b)):
            return Set(a.keys) == Set(b.keys)
                && a.allSatisfy { key, value in b[key].map { readAlike(value, $0) } ?? false }
        default:
            // The parser rounds to a Double, Foundation cuts the fraction: they may be a step of
            // Double apart (two, as each side is a Double here), and one for the fraction.
            if let a = number(ours), let b = number(theirs), max(abs(a), abs(b)) >= 9_007_199_254_740_992 {
                return abs(a - b) <= 2 * max(abs(a), abs(b)).ulp + 1
            }
            return ours == theirs
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    /// The names of the targets, sorted.
    public static var names: [String] { all.keys.sorted() }

    /// CSV/TSV with the separator guessed (or read from the header), then forced to a tab and to a comma;
    /// each row's cards made (cloze deletions read), and both sides of each cloze card drawn.
    static func delimited(_ data: Data) {
        let separators: [Character?] = [nil, "\t", ","]
        for separator in separators {
            guard let document = try? DelimitedFormat.read(data, file: "fuzz.txt", separator: separator) else {
                continue
            }
            for draft in document.rows.flatMap({ (try? $0.drafts(file: "fuzz.txt")) ?? [] }) {
                guard let number = draft.clozeNumber else { continue }
                for revealed in [false, true] {
                    _ = Cloze.plainText(of: draft.front, number: number, revealed: revealed)
                }
            }
        }
    }

    /// The file an Anki package is written to: the reader takes a path, as the importer gives it.
    /// One file per process, rewritten for each input, under a lock (tests may replay inputs concurrently).
    private final class PackageFile: @unchecked Sendable {
        let lock = NSLock()
        let path = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("cardbox-fuzz-\(ProcessInfo.processInfo.processIdentifier).apkg").path
    }

    private static let packageFile = PackageFile()

    /// A small collection limit keeps each input fast; the limit itself is part of what is exercised.
    static let packageCollectionLimit: UInt64 = 8 * 1024 * 1024

    static func ankiPackage(_ data: Data) {
        let file = packageFile
        file.lock.withLock {
            do {
                try data.write(to: URL(fileURLWithPath: file.path))
            } catch {
                return
            }
            defer { try? FileManager.default.removeItem(atPath: file.path) }
            _ = try? AnkiPackageFormat.read(path: file.path, file: "fuzz.apkg", collectionLimit: packageCollectionLimit)
        }
    }

    /// The default scheduler, as `cardbox fsrs replay` makes it without options.
    static let scheduler = try! Scheduler()

    /// Review lines (`{"card":"c1","rating":3,"time":"2025-01-01T09:00:00Z"}`), one a line: each is parsed,
    /// and the whole input is replayed through the scheduler as `cardbox fsrs replay` reads it.
    static func reviews(_ data: Data) {
        var replayer = ReviewReplayer(scheduler: scheduler)
        var lineNumber = 0
        for var line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let text = String(decoding: line, as: UTF8.self)
            _ = try? ReviewLine.parse(text, lineNumber: lineNumber)
            if text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            _ = try? replayer.replay(line: text, lineNumber: lineNumber)
        }
    }

    /// An ISO 8601 time; a time that parses must be a finite date.
    static func isoTime(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        if let date = ISOTime.parse(text) {
            precondition(date.timeIntervalSince1970.isFinite, "ISOTime.parse(\(text.debugDescription)) is not finite")
        }
    }

    /// Two position keys, `before` and `after`, split at the first NUL byte or line break (an empty side is
    /// the start or the end of the list). A key minted between them must sort strictly between them as
    /// byte strings: an order violated is a bug, reported as a crash.
    static func positionKey(_ data: Data) {
        let bytes = [UInt8](data)
        let split = bytes.firstIndex { $0 == 0 || $0 == UInt8(ascii: "\n") }
        let first = split.map { bytes[..<$0] } ?? bytes[...]
        let second = split.map { bytes[($0 + 1)...] } ?? []
        let before = first.isEmpty ? nil : String(decoding: first, as: UTF8.self)
        let after = second.isEmpty ? nil : String(decoding: second, as: UTF8.self)
        if let key = try? PositionKey.between(before, after) {
            checkOrder(key, before, after, "between")
        }
        var random = SeededRandom(seed: UInt64(bytes.count))
        if let key = try? PositionKey.between(before, after, using: &random) {
            checkOrder(key, before, after, "between(using:)")
        }
    }

    static func checkOrder(_ key: String, _ before: String?, _ after: String?, _ function: String) {
        let minted = Array(key.utf8)
        if let before {
            precondition(
                Array(before.utf8).lexicographicallyPrecedes(minted),
                "PositionKey.\(function)(\(before.debugDescription), \(after.debugDescription)) = "
                    + "\(key.debugDescription) does not sort after \(before.debugDescription)")
        }
        if let after {
            precondition(
                minted.lexicographicallyPrecedes(Array(after.utf8)),
                "PositionKey.\(function)(\(before.debugDescription), \(after.debugDescription)) = "
                    + "\(key.debugDescription) does not sort before \(after.debugDescription)")
        }
    }

    /// Import-format detection, as `cardbox import` runs it without `--format` (its refusals included: the
    /// line and column of a JSON syntax error), and every format's own test.
    static func detect(_ data: Data) {
        _ = try? ImportFileFormat.detect(data, file: "fuzz")
        _ = AnkiPackageFormat.matches(data)
        _ = BackupFormat.matches(data)
        _ = ListAllFormat.matches(data)
        _ = TrelloFormat.matches(data)
        _ = DelimitedFormat.matches(data)
    }

    /// A change set from another device: read, applied to an empty store of its account, applied again.
    /// A refusal is fine; a crash, a row naming a missing parent, a second apply that changes
    /// anything, or a row validation's quick check passes and its full check refuses, is a bug.
    static func changes(_ data: Data) {
        guard let text = String(data: data, encoding: .utf8), let changes = try? ChangeSet.parse(text),
            let store = try? CardboxStore.inMemory(account: changes.accountId)
        else { return }
        // Validation's quick check must never pass a row its full check refuses.
        for row in changes.rows where ChangeSet.isWellFormed(row) {
            precondition((try? ChangeSet.validate(row, path: "row")) != nil, "the quick check passed a faulty row")
        }
        guard (try? store.apply(changes)) != nil else { return }
        let problems = try! store.integrityProblems()
        precondition(problems.isEmpty, "applying a change set left \(problems)")
        let dump = try! store.canonicalDump()
        _ = try! store.apply(changes)
        precondition(try! store.canonicalDump() == dump, "applying a change set twice changed the store")
    }
}
