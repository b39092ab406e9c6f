import ArgumentParser
import CardboxCore
import CardboxScheduling
import Foundation

/// Printing for people and for scripts (public for the server's commands, in `cardbox-server`).
public enum Console {
    public static func error(_ message: String) {
        Terminal.current.writeError(Data("error: \(message)\n".utf8))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func printJSON(_ value: some Encodable) throws {
        Terminal.current.print(
            compactingEmpty(String(decoding: lowercasingIDs(try encoder.encode(value)), as: UTF8.self)))
    }

    /// Foundation's pretty printer writes an empty array as `[`, two line breaks and `]`: written
    /// `[]` (and `{}`), as every other JSON tool does. A line break inside a JSON string is always
    /// escaped, so a bracket, line breaks and spaces, and its closing bracket are never text.
    static func compactingEmpty(_ json: String) -> String {
        json.replacingOccurrences(of: #"\[\n\s*\]"#, with: "[]", options: .regularExpression)
            .replacingOccurrences(of: #"\{\n\s*\}"#, with: "{}", options: .regularExpression)
    }

    /// JSONEncoder writes a `UUID` in uppercase; ids are lowercase everywhere else (the store, the text
    /// output, the ids people type back). Every JSON string that is exactly an id is lowercased.
    static func lowercasingIDs(_ json: Data) -> Data {
        var bytes = [UInt8](json)
        var index = 0
        while index + 37 < bytes.count {
            if bytes[index] == UInt8(ascii: "\""), bytes[index + 37] == UInt8(ascii: "\""),
                isUppercaseID(bytes[(index + 1)..<(index + 37)])
            {
                for offset in (index + 1)..<(index + 37) where bytes[offset] >= UInt8(ascii: "A") {
                    bytes[offset] += 32
                }
                index += 38
            } else {
                index += 1
            }
        }
        return Data(bytes)
    }

    private static func isUppercaseID(_ text: ArraySlice<UInt8>) -> Bool {
        for (offset, byte) in text.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
                else { return false }
            }
        }
        return true
    }

    /// Reads a password: one line of standard input with --password-stdin, else asked for on the
    /// terminal without echo.
    public static func readPassword(fromStdin: Bool, prompt: String = "password: ") throws -> String {
        let line: String?
        if fromStdin {
            line = Terminal.current.readLine()
        } else {
            guard Terminal.current.inputIsTerminal, let typed = getpass(prompt) else {
                throw CardboxError.invalid(field: "password", reason: "give it on standard input with --password-stdin")
            }
            line = String(cString: typed)
        }
        guard let password = line, !password.isEmpty else {
            throw CardboxError.invalid(field: "password", reason: "is empty")
        }
        return password
    }

    /// Prints `value` as JSON with --json, else the text `describe` makes of it.
    public static func emit<T: Encodable>(_ value: T, json: Bool, _ describe: (T) -> String) throws {
        if json { try printJSON(value) } else { Terminal.current.print(describe(value)) }
    }

    /// A short id for people: the id's last 8 hex digits (its random part; the first digits of a
    /// time-ordered id are its creation time). Any unique prefix or suffix of an id is accepted back.
    static func short<Record>(_ id: TypedID<Record>) -> String { String(id.description.suffix(8)) }

    /// Left-aligned columns, two spaces apart.
    public static func table(_ rows: [[String]], header: [String]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// A description under its record: indented, at most `maximumLines` lines (then "…").
    static func indented(_ text: String, by spaces: Int = 4, maximumLines: Int = 3) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let pad = String(repeating: " ", count: spaces)
        return lines.prefix(maximumLines).map { pad + $0 } + (lines.count > maximumLines ? [pad + "…"] : [])
    }

    static func date(_ date: Date?) -> String {
        guard let date else { return "-" }
        return ISO8601DateFormatter().string(from: date)
    }

    /// Reads a file a person named, with an error that names it; refuses a file over `limit` bytes
    /// before reading it.
    static func readFile(_ path: String, field: String, limit: Int) throws -> Data {
        let url = URL(fileURLWithPath: path)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? NSNumber
        else { throw CardboxError.invalid(field: field, reason: "cannot read '\(path)': no such file") }
        guard size.intValue <= limit else {
            throw CardboxError.invalid(
                field: field, reason: "'\(path)' is \(size.intValue) bytes; images may be at most 5 MB (\(limit) bytes)"
            )
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw CardboxError.invalid(field: field, reason: "cannot read '\(path)': \(error.localizedDescription)")
        }
    }

    /// Writes a file a person named (`-o FILE`), whole or not at all, with an error that names it.
    static func writeFile(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CardboxError.invalid(field: "output", reason: "cannot write '\(path)': \(error.localizedDescription)")
        }
    }

    /// A due time typed by a person: "now", "new" (no due time: a new card), an ISO 8601 time
    /// ("2025-03-01T09:00:00Z") or a date ("2025-03-01", midnight UTC).
    static func dueDate(_ text: String) throws -> Date? {
        switch text.lowercased() {
        case "now": return Date()
        case "new": return nil
        default:
            // Foundation's formatter rolls a day that does not exist over into the next month
            // (2025-02-31 would be 3 March): `ISOTime` refuses it, and a date only when it reads back
            // as given.
            if let time = ISOTime.parse(text) { return time }
            let dateOnly = ISO8601DateFormatter()
            dateOnly.formatOptions = [.withFullDate]
            if let date = dateOnly.date(from: text), dateOnly.string(from: date) == text { return date }
            throw CardboxError.invalid(
                field: "due", reason: "'\(text)' is not a time (2025-03-01T09:00:00Z), a date (2025-03-01), now or new")
        }
    }

    static func image(_ path: String?) throws -> Data? {
        try path.map { try readFile($0, field: "image", limit: Limits.imageBytes) }
    }
}

/// A place in a list, column or board as people type it: 0 is the first, `end` (or -1) the last.
struct Position: ExpressibleByArgument {
    /// nil: at the end.
    let index: Int?

    init?(argument: String) {
        switch argument.lowercased() {
        case "end", "last", "-1": index = nil
        default:
            guard let number = Int(argument), number >= 0 else { return nil }
            index = number
        }
    }

    static var defaultCompletionKind: CompletionKind { .list(["0", "end"]) }
}

/// A rating as people type it: 1–4 or again, hard, good, easy.
struct RatingArgument: ExpressibleByArgument {
    static let names = ["again", "hard", "good", "easy"]
    let value: Int

    init?(argument: String) {
        if let number = Int(argument), (1...4).contains(number) {
            value = number
        } else if let index = Self.names.firstIndex(of: argument.lowercased()) {
            value = index + 1
        } else {
            return nil
        }
    }
}

/// Help text written in the source as wrapped paragraphs, for the parser to wrap once, at the width of
/// the terminal: lines of a paragraph are joined; blank lines and indented lines (examples) stay.
enum Help {
    /// Read as UTF-8 bytes: every command's help is made when the parser builds the command tree,
    /// at each start of the process, and splitting into `Character`s took a millisecond of it.
    static func paragraphs(_ text: String) -> String {
        let space = UInt8(ascii: " ")
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        var lastLineStart: Int?
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let joinable = !line.isEmpty && line.first != space
            if joinable, let start = lastLineStart, start < result.count, result[start] != space,
                result.last != UInt8(ascii: ":")
            {
                result.append(space)
            } else {
                if lastLineStart != nil { result.append(UInt8(ascii: "\n")) }
                lastLineStart = result.count
            }
            result.append(contentsOf: line)
        }
        return String(decoding: result, as: UTF8.self)
    }
}
