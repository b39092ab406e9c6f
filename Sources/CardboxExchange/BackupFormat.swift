import CardboxCore
import CardboxStore
import Foundation

/// Cardbox's full backup: one versioned JSON file with everything an account holds (decks, cards with
/// their review history, suggestions and rejected ones, tags, settings, lists, boards, images), ids
/// and times exactly as stored.
public enum BackupFormat {
    public static let name = "cardbox-backup"
    public static let version = 1

    struct File: Codable {
        var format: String?
        var version: Int?
        var createdAt: String?
        var schema: String?
        var account: [String: JSONValue]?
        var tables: [String: [[String: JSONValue]]]?
    }

    public static func write(_ snapshot: StoreSnapshot, createdAt: Date) throws -> Data {
        let file = File(
            format: name, version: version, createdAt: ISO8601DateFormatter().string(from: createdAt),
            schema: snapshot.schema, account: snapshot.account, tables: snapshot.tables)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(file)
    }

    public static func matches(_ data: Data) -> Bool {
        // The format name is near the start of every backup this writes; read only the head to tell.
        String(decoding: data.prefix(4096), as: UTF8.self).contains("\"format\":\"\(name)\"")
    }

    public static func read(_ data: Data, file: String) throws -> StoreSnapshot {
        let backup = try InputGuard.decode(File.self, from: data, file: file)
        guard backup.format == name else {
            throw CardboxError.invalid(field: "\(file): format", reason: "is not a Cardbox backup")
        }
        guard backup.version == version else {
            throw CardboxError.invalid(
                field: "\(file): version",
                reason: "\(backup.version.map(String.init) ?? "none") is not supported (this reads \(version))")
        }
        guard let schema = backup.schema, let tables = backup.tables else {
            throw CardboxError.invalid(field: "\(file): tables", reason: "is required")
        }
        if let unknown = tables.keys.first(where: { !CardboxStore.backupTables.contains($0) }) {
            throw CardboxError.invalid(
                field: "\(file): tables.\(unknown)", reason: "is not a table of a Cardbox backup")
        }
        return StoreSnapshot(tables: tables, account: backup.account ?? [:], schema: schema)
    }
}
