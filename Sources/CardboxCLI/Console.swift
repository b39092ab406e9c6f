import CardboxCore
import Foundation

/// Printing for people and for scripts.
enum Console {
    static func error(_ message: String) {
        Terminal.current.writeError(Data("error: \(message)\n".utf8))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func printJSON(_ value: some Encodable) throws {
        Terminal.current.print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Prints `value` as JSON with --json, else the text `describe` makes of it.
    static func emit<T: Encodable>(_ value: T, json: Bool, _ describe: (T) -> String) throws {
        if json { try printJSON(value) } else { Terminal.current.print(describe(value)) }
    }

    /// A short id for people: the id's last 8 hex digits (its random part; the first digits of a
    /// time-ordered id are its creation time). Any unique prefix or suffix of an id is accepted back.
    static func short(_ id: UUID) -> String { String(id.uuidString.lowercased().suffix(8)) }

    /// Left-aligned columns, two spaces apart.
    static func table(_ rows: [[String]], header: [String]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
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

    /// A due time typed by a person: "now", "new" (no due time: a new card), an ISO 8601 time
    /// ("2025-03-01T09:00:00Z") or a date ("2025-03-01", midnight UTC).
    static func dueDate(_ text: String) throws -> Date? {
        switch text.lowercased() {
        case "now": return Date()
        case "new": return nil
        default:
            if let time = ISO8601DateFormatter().date(from: text) { return time }
            let dateOnly = ISO8601DateFormatter()
            dateOnly.formatOptions = [.withFullDate]
            if let date = dateOnly.date(from: text) { return date }
            throw CardboxError.invalid(
                field: "due", reason: "'\(text)' is not a time (2025-03-01T09:00:00Z), a date (2025-03-01), now or new")
        }
    }

    static func image(_ path: String?) throws -> Data? {
        try path.map { try readFile($0, field: "image", limit: Limits.imageBytes) }
    }
}
