import CardboxCore
import CardboxStore
import Foundation

/// Cards as delimited text (CSV or TSV), as Anki's "notes in plain text" writes and reads them:
/// optional `#key:value` header lines (`#separator:`, `#html:`, `#tags column:`, `#deck column:`,
/// `#notetype column:`),
/// then one card a row: front, back, and the tags (space-separated) in the tags column. A plain
/// two-column file (term, definition — what Quizlet exports) needs no header.
public enum DelimitedFormat {
    /// One line may hold at most this many bytes: a file of one enormous line is refused, not parsed.
    public static let maximumLineBytes = 1024 * 1024

    public struct Row: Sendable, Equatable {
        public var line: Int
        public var deck: String?
        public var front: String
        public var back: String
        public var tags: [String]
        /// A third text column (Cardbox's own export writes the card's notes there); further columns
        /// are added below it, one a line.
        public var notes: String = ""
        /// The row's note type, from a `#notetype column:` (Anki's "Basic", "Cloze", …); nil without one.
        public var noteType: String? = nil

        /// The cards the row makes: a "Cloze" note type's cloze cards (refused without a deletion), or
        /// with no note type given, cloze cards when the front has deletions; else one card.
        public func drafts(file: String) throws -> [CardDraft] {
            guard let noteType else { return CardDraft.written(front: front, back: back, notes: notes, tags: tags) }
            guard noteType.lowercased().contains(Cloze.cardType) else {
                return [CardDraft(front: front, back: back, notes: notes, tags: tags)]
            }
            do {
                return try CardDraft.cloze(text: front, extra: back, notes: notes, tags: tags)
            } catch CardboxError.invalid(_, let reason) {
                throw CardboxError.invalid(
                    field: "\(file) line \(line)", reason: "is a cloze note whose text \(reason)")
            }
        }
    }

    public struct Document: Sendable, Equatable {
        public var rows: [Row]
        /// Header lines Cardbox read but does not act on (e.g. `#notetype column`), said in the report.
        public var ignored: [String]
        /// The first line's cells, when they named the columns instead of being a card (see
        /// `isColumnNames`), said in the report.
        public var columnNames: [String]? = nil
    }

    /// Words a first line uses to name its columns: the sides of a card, as Anki, Quizlet and
    /// spreadsheets name them, and languages ("Spanish, English").
    static let columnWords: Set<String> = Set(
        [
            "front", "back", "question", "answer", "term", "definition", "word", "meaning", "translation", "tags",
            "tag", "notes", "note", "deck", "text", "extra", "back extra", "example", "sentence", "reading",
        ] + Language.codes.map { Language.name(of: $0).lowercased() })

    /// What a named column holds, by its name; a name not here (a language, "word") is read by its
    /// place: the first such column is the front, the next the back, the others notes.
    static let columnRoles: [String: ColumnRole] = [
        "front": .front, "question": .front, "term": .front, "text": .front, "back": .back, "answer": .back,
        "definition": .back, "meaning": .back, "translation": .back, "extra": .back, "back extra": .back,
        "tags": .tags, "tag": .tags, "deck": .deck, "notes": .notes, "note": .notes, "example": .notes,
        "sentence": .notes, "reading": .notes,
    ]

    enum ColumnRole { case front, back, tags, deck, notes }

    /// Whether a first line names the columns rather than being a card: each of its cells is a
    /// column's name (`columnWords`, any case). A file whose `#columns:` line names them has none.
    static func isColumnNames(_ cells: [String]) -> Bool {
        cells.count >= 2
            && cells.allSatisfy { columnWords.contains($0.trimmingCharacters(in: .whitespaces).lowercased()) }
    }

    // MARK: Writing

    /// Anki-readable text: a header, then front, back, tags and notes (a tag's spaces become
    /// underscores, as Anki's tags cannot hold spaces). Every field of the card that Anki's text format
    /// can hold is kept; archived cards are for the caller to leave out.
    ///
    /// Cloze cards are written as Anki writes a cloze note: one row per text (the cards of a text
    /// share it), the text with its `{{c1::…}}` deletions as the front and the extra as the back,
    /// and a fifth column naming each row's note type ("Basic" or "Cloze", `#notetype column:5`).
    public static func export(
        _ cards: [Card], separator: Character, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) -> Data {
        let name = separator == "\t" ? "tab" : "comma"
        // With a cloze card, or a front that would read as one (a basic card holding "{{c1::"), each
        // row says its note type, so an import makes each the card it was.
        let hasCloze = cards.contains { $0.isCloze || !Cloze.numbers(in: $0.front).isEmpty }
        var text = "#separator:\(name)\n#html:false\n#tags column:3\n"
        if hasCloze { text += "#notetype column:5\n" }
        text +=
            "#columns:"
            + (["Front", "Back", "Tags", "Notes"] + (hasCloze ? ["Notetype"] : [])).joined(
                separator: String(separator)) + "\n"
        var clozeTexts: Set<[String]> = []
        for (index, card) in cards.enumerated() {
            if (index + 1) % 1_000 == 0 || index + 1 == cards.count { progress?(index + 1, cards.count) }
            if card.isCloze, !clozeTexts.insert([card.deckId.description, card.front]).inserted { continue }
            let tags = card.tags.map { $0.replacingOccurrences(of: " ", with: "_") }.joined(separator: " ")
            var fields = [card.front, card.back, tags, card.notes]
            if hasCloze { fields.append(card.isCloze ? "Cloze" : "Basic") }
            text += fields.map { quoted($0, separator: separator) }.joined(separator: String(separator))
            text += "\n"
        }
        return Data(text.utf8)
    }

    static func quoted(_ field: String, separator: Character) -> String {
        guard field.contains(where: { $0 == separator || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: Reading

    /// Whether `data` looks like delimited text (for detecting an import's format): no NUL bytes
    /// (binary files have them), and a tab or a comma on the first line that is not a header.
    public static func matches(_ data: Data) -> Bool {
        let head = data.prefix(64 * 1024)
        guard !head.contains(0) else { return false }
        let firstLine = String(decoding: head, as: UTF8.self).split(separator: "\n").first { !$0.hasPrefix("#") } ?? ""
        return firstLine.contains("\t") || firstLine.contains(",")
    }

    /// Reads rows; `separator` overrides the header and the guess (tab if the first content line has
    /// one, else comma). Errors name the file and the line.
    public static func read(_ data: Data, file: String, separator forced: Character? = nil) throws -> Document {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }  // a UTF-8 byte-order mark
        var index = 0
        var line = 1
        var separator = forced.map { UInt8(ascii: $0.unicodeScalars.first!) }
        var html = false
        var tagsColumn: Int?
        var deckColumn: Int?
        var noteTypeColumn: Int?
        var ignored: [String] = []
        var namedColumns = false
        // Header lines: "#key:value" before the first row.
        while index < bytes.count, bytes[index] == UInt8(ascii: "#") {
            let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            guard end - index <= maximumLineBytes else { throw tooLong(file, line) }
            let header = String(decoding: bytes[(index + 1)..<end], as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines)
            let parts = header.split(separator: ":", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard parts.count == 2 else {
                // A Markdown heading, a comment: this is not Anki's text format, and not a table.
                throw CardboxError.invalid(
                    field: "\(file) line \(line)",
                    reason: "starts with '#' but is not a header line (#key:value): the file is not a table of cards")
            }
            let value = parts[1]
            switch parts[0] {
            case "separator":
                let named: [String: UInt8] = [
                    "tab": 9, "comma": 44, "semicolon": 59, "space": 32, "pipe": 124, "colon": 58,
                ]
                guard let byte = named[value] ?? (value.utf8.count == 1 ? value.utf8.first : nil) else {
                    throw CardboxError.invalid(field: "\(file) line \(line)", reason: "unknown separator '\(value)'")
                }
                if forced == nil { separator = byte }
            case "html": html = value == "true"
            case "tags column": tagsColumn = try columnNumber(value, file: file, line: line)
            case "deck column": deckColumn = try columnNumber(value, file: file, line: line)
            case "notetype column": noteTypeColumn = try columnNumber(value, file: file, line: line)
            case "columns": namedColumns = true  // names only; columns are read by place (front, back, notes)
            default: ignored.append("#" + header)
            }
            index = min(end + 1, bytes.count)  // a header on the last line may have no line break
            line += 1
        }
        if separator == nil {
            let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            separator = bytes[index..<end].contains(9) ? 9 : 44
        }
        var rows: [Row] = []
        var columnNames: [String]?
        // Columns a named first line gives a role: the front's, the back's, and the notes' (1-based).
        var (frontColumn, backColumn, notesColumns): (Int?, Int?, Set<Int>) = (nil, nil, [])
        var columnCounts: [(line: Int, count: Int)] = []
        while index < bytes.count {
            let rowLine = line
            let fields = try parseRecord(bytes, at: &index, line: &line, separator: separator!, file: file)
            if fields.count == 1 && fields[0].isEmpty { continue }  // a blank line
            // The first line naming the columns, as Anki's importer and spreadsheets write one.
            if rows.isEmpty && columnNames == nil && !namedColumns && index < bytes.count && isColumnNames(fields) {
                columnNames = fields
                for (offset, name) in fields.enumerated() {
                    let column = offset + 1
                    switch columnRoles[name.trimmingCharacters(in: .whitespaces).lowercased()] {
                    case .front?: frontColumn = frontColumn ?? column
                    case .back?: backColumn = backColumn ?? column
                    case .tags?: tagsColumn = tagsColumn ?? column
                    case .deck?: deckColumn = deckColumn ?? column
                    case .notes?: notesColumns.insert(column)
                    case nil: break
                    }
                }
                continue
            }
            columnCounts.append((rowLine, fields.count))
            var remaining: [String] = []
            var (namedFront, namedBack, namedNotes): (String?, String?, [String]) = (nil, nil, [])
            var tags: [String] = []
            var deck: String?
            var noteType: String?
            for (offset, field) in fields.enumerated() {
                let column = offset + 1
                if column == tagsColumn {
                    tags = tagList(field)
                } else if column == deckColumn {
                    deck = field
                } else if column == noteTypeColumn {
                    noteType = field
                } else if column == frontColumn {
                    namedFront = html ? plainText(field) : field
                } else if column == backColumn {
                    namedBack = html ? plainText(field) : field
                } else if !notesColumns.isEmpty && notesColumns.contains(column) {
                    namedNotes.append(html ? plainText(field) : field)
                } else {
                    remaining.append(html ? plainText(field) : field)
                }
            }
            // Named sides first; unnamed columns fill the front, then the back, then the notes.
            let front = namedFront ?? (remaining.isEmpty ? nil : remaining.removeFirst())
            guard let front else {
                throw CardboxError.invalid(field: "\(file) line \(rowLine)", reason: "has no front text")
            }
            let back = namedBack ?? (remaining.isEmpty ? "" : remaining.removeFirst())
            let notes = namedNotes.isEmpty ? remaining : namedNotes + remaining
            rows.append(
                Row(
                    line: rowLine, deck: deck, front: front, back: back, tags: tags,
                    notes: notes.filter { !$0.isEmpty }.joined(separator: "\n"), noteType: noteType))
        }
        try checkIsTable(columnCounts, file: file)
        return Document(rows: rows, ignored: ignored, columnNames: columnNames)
    }

    /// Refuses text whose lines do not agree on a number of columns (prose, Markdown, a log): a
    /// table's rows have as many cells as each other, but for a few. Fewer than five rows pass.
    static func checkIsTable(_ counts: [(line: Int, count: Int)], file: String) throws {
        guard counts.count >= 5 else { return }
        var tally: [Int: Int] = [:]
        for row in counts { tally[row.count, default: 0] += 1 }
        let common = tally.max { ($0.value, -$0.key) < ($1.value, -$1.key) }!
        guard common.value * 10 < counts.count * 9 else { return }
        let odd = counts.filter { $0.count != common.key }.prefix(3)
            .map { "line \($0.line) has \($0.count)" }.joined(separator: ", ")
        throw CardboxError.invalid(
            field: file,
            reason:
                "is not a table of cards: most rows have \(Wording.counted(common.key, "column")) but \(odd)")
    }

    /// A tags column's tags: separated by white space. An ASCII field is split as bytes (its white
    /// space is tab, line feed, vertical tab, form feed, carriage return and space): judging every
    /// character's white-space property cost more than the rest of reading a row.
    static func tagList(_ field: String) -> [String] {
        guard field.utf8.allSatisfy({ $0 < 0x80 }) else {
            return field.split(whereSeparator: \.isWhitespace).map(String.init)
        }
        return field.utf8.split(whereSeparator: { $0 == 0x20 || (0x09...0x0D).contains($0) })
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// One record (RFC 4180: quoted fields may hold separators, quotes as "", and line breaks).
    static func parseRecord(_ bytes: [UInt8], at index: inout Int, line: inout Int, separator: UInt8, file: String)
        throws -> [String]
    {
        var fields: [String] = []
        var field: [UInt8] = []
        let start = index
        let startLine = line
        var quoted = false
        while index < bytes.count {
            let byte = bytes[index]
            if index - start > maximumLineBytes { throw tooLong(file, startLine) }
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 2
                        continue
                    }
                    quoted = false
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
                index += 1
                continue
            }
            if field.isEmpty && byte != UInt8(ascii: "\"") && byte != separator && byte != UInt8(ascii: "\n") {
                // An unquoted field runs to the next separator or line break, quotes in it kept:
                // taken whole instead of byte by byte.
                var end = index + 1
                let limit = min(bytes.count, start + maximumLineBytes + 2)  // past it, the line is too long
                while end < limit && bytes[end] != separator && bytes[end] != UInt8(ascii: "\n") { end += 1 }
                if min(end, bytes.count - 1) - start > maximumLineBytes { throw tooLong(file, startLine) }
                field.append(contentsOf: bytes[index..<end])
                index = end
                continue
            }
            switch byte {
            case UInt8(ascii: "\"") where field.isEmpty: quoted = true
            case separator:
                fields.append(String(decoding: field, as: UTF8.self))
                field = []
            case UInt8(ascii: "\n"):
                index += 1
                line += 1
                fields.append(String(decoding: field.last == 13 ? field.dropLast() : field[...], as: UTF8.self))
                return fields
            default: field.append(byte)
            }
            index += 1
        }
        if quoted {
            throw CardboxError.invalid(field: "\(file) line \(startLine)", reason: "a quoted field is never closed")
        }
        fields.append(String(decoding: field.last == 13 ? field.dropLast() : field[...], as: UTF8.self))
        return fields
    }

    /// HTML fields as plain text: line breaks kept (`<br>`, `<br/>`, `<br />`, any case), other tags
    /// dropped, the common entities decoded (once: `&amp;lt;` is `&lt;`), white space trimmed at both
    /// ends. One pass over the bytes: the Foundation search-and-replace it replaces took a fifth of a
    /// 10,000-note `.apkg` import (perf), and removing tags one by one was quadratic.
    static func plainText(_ html: String) -> String {
        // Most fields are text without markup or entities: trimmed, and not copied at all when
        // they start and end with a visible character.
        guard html.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") }) else {
            return trimmed(html)
        }
        var html = html
        return html.withUTF8(plainText(bytes:))
    }

    private static let entities: [(name: [UInt8], replacement: UInt8)] = [
        ("&nbsp;", 0x20), ("&lt;", 0x3C), ("&gt;", 0x3E), ("&quot;", 0x22), ("&#39;", 0x27), ("&amp;", 0x26),
    ].map { (Array($0.0.utf8), $0.1) }

    private static func plainText(bytes: UnsafeBufferPointer<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        scanning: while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<"), let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: ">")) {
                if isLineBreak(bytes[(index + 1)..<close]) { output.append(0x0A) }
                index = close + 1
                continue
            }
            if byte == UInt8(ascii: "&") {
                for entity in entities where bytes[index...].starts(with: entity.name) {
                    output.append(entity.replacement)
                    index += entity.name.count
                    continue scanning
                }
            }
            output.append(byte)
            index += 1
        }
        return trimmed(String(decoding: output, as: UTF8.self))
    }

    /// Whether a tag's inside is `br`, `br/` or `br /`, in any case.
    private static func isLineBreak(_ tag: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard tag.count >= 2, tag.count <= 4, tag.first! | 0x20 == UInt8(ascii: "b"),
            tag[tag.startIndex + 1] | 0x20 == UInt8(ascii: "r")
        else { return false }
        return tag.dropFirst(2).elementsEqual("".utf8) || tag.dropFirst(2).elementsEqual("/".utf8)
            || tag.dropFirst(2).elementsEqual(" /".utf8)
    }

    /// `text` without white space (Unicode's, as `CharacterSet.whitespacesAndNewlines`) at either end.
    private static func trimmed(_ text: String) -> String {
        let visible = UInt8(ascii: "!")...UInt8(ascii: "~")
        if let first = text.utf8.first, let last = text.utf8.last, visible.contains(first), visible.contains(last) {
            return text
        }
        let scalars = text.unicodeScalars
        let isSpace = { (scalar: Unicode.Scalar) in CharacterSet.whitespacesAndNewlines.contains(scalar) }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[first...last])
    }

    static func columnNumber(_ value: String, file: String, line: Int) throws -> Int {
        guard let number = Int(value), number >= 1 else {
            throw CardboxError.invalid(
                field: "\(file) line \(line)", reason: "'\(value)' is not a column number (1, 2, …)")
        }
        return number
    }

    static func tooLong(_ file: String, _ line: Int) -> CardboxError {
        .invalid(field: "\(file) line \(line)", reason: "is longer than \(maximumLineBytes) bytes")
    }
}
