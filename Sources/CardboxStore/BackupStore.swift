import CardboxCore
import CardboxImaging
import CardboxSync
import Foundation
import GRDB

/// Everything an account holds, table by table: what a backup file carries.
public struct StoreSnapshot: Sendable, Equatable {
    /// Rows per table, each row its columns and values; ids and times are kept as stored.
    public var tables: [String: [[String: JSONValue]]]
    /// The plan and the free card limit.
    public var account: [String: JSONValue]
    /// The last migration the store had run when the snapshot was taken.
    public var schema: String

    public init(tables: [String: [[String: JSONValue]]], account: [String: JSONValue], schema: String) {
        self.tables = tables
        self.account = account
        self.schema = schema
    }
}

extension CardboxStore {
    /// Tables in the order a restore inserts them (parents before children). History (`changeLog`)
    /// and store metadata are not part of a backup: they belong to the store, not to the data.
    public static let backupTables = [
        "setting", "deck", "tag", "card", "cardTag", "suggestion", "rejectedSuggestion", "reviewLog", "image",
        "itemList", "item", "itemImage", "board", "boardColumn", "boardCard", "usageEvent",
    ]

    public static var schemaVersion: String { Schema.migrator.migrations.last ?? "" }

    /// Everything the account holds; `progress` hears after each table (tables done, tables in all).
    public func snapshot(progress: ((_ done: Int, _ total: Int) -> Void)? = nil) throws -> StoreSnapshot {
        try read { context in
            var tables: [String: [[String: JSONValue]]] = [:]
            for (index, table) in Self.backupTables.enumerated() {
                defer { progress?(index + 1, Self.backupTables.count) }
                let order = table == "usageEvent" ? "id" : (table == "image" ? "sha256" : Self.orderColumn(table))
                let storedOnly = Entity(rawValue: table).map(Self.storedOnlyColumns) ?? []
                tables[table] = try Row.fetchAll(
                    context.db, sql: "SELECT \(Self.backupColumns(table)) FROM \(table) t ORDER BY \(order)"
                ).map { row in
                    var values = Self.values(row)
                    for column in storedOnly { values[column] = nil }
                    if table == "usageEvent" { values["id"] = nil }  // a local counter, renumbered on restore
                    return values
                }
            }
            let account = try Row.fetchOne(
                context.db, sql: "SELECT plan, freeCardLimit FROM account WHERE id = ?", arguments: [context.account])
            return StoreSnapshot(
                tables: tables, account: account.map(Self.values) ?? [:], schema: Self.schemaVersion)
        }
    }

    /// Restores a snapshot into this store, which must hold no data yet: all of it, in one transaction.
    public func restore(_ snapshot: StoreSnapshot) throws -> ImportReport {
        guard Schema.migrator.migrations.contains(snapshot.schema) else {
            throw CardboxError.invalid(
                field: "backup",
                reason: "was made by a newer Cardbox (schema '\(snapshot.schema)'); update to restore it")
        }
        let images = (snapshot.tables["image"] ?? []).compactMap { row -> (Data, String)? in
            guard case .blob(let data) = Self.databaseValue(row["data"] ?? .null).storage else { return nil }
            return (data, "image \(row["sha256"]?.text ?? "")")
        }
        return try write(decodingImages: images, keepBytes: true) { tx in
            for table in ["deck", "card", "itemList", "board"]
            where try tx.context.count("SELECT COUNT(*) FROM \(table)", []) > 0 {
                throw CardboxError.invalid(
                    field: "restore", reason: "this store already holds data; restore into a new store (--store PATH)")
            }
            for key in try String.fetchAll(
                tx.db, sql: "SELECT key FROM setting")
            {
                try tx.delete(.setting, id: key)
            }
            var report = ImportReport()
            if !snapshot.account.isEmpty {
                // Only what a backup writes of the account: its id and creation time belong to this store.
                let columns = try ColumnCheck.columns(of: "account", in: tx.db).filter {
                    Columns.Account(rawValue: $0.key) != nil
                }
                try ColumnCheck.check(snapshot.account, table: "account", index: 0, columns: columns)
                let fields: Assignments<Columns.Account> = snapshot.account.sorted { $0.key < $1.key }.compactMap {
                    key, value in Columns.Account(rawValue: key).map { ($0, Self.databaseValue(value)) }
                }
                try tx.update(.account, id: tx.account, fields)
            }
            let upgrades = Self.rowUpgrades(after: snapshot.schema)
            for table in Self.backupTables {
                let columns = try ColumnCheck.columns(of: table, in: tx.db).filter { !SyncColumns.all.contains($0.key) }
                for (index, stored) in (snapshot.tables[table] ?? []).enumerated() {
                    var row = stored
                    for upgrade in upgrades { upgrade(table, &row) }
                    try ColumnCheck.check(row, table: table, index: index, columns: columns)
                    try Self.insert(row, into: table, tx: tx)
                    report.count(Self.recordWord(table), \.created)
                }
            }
            return report
        }
    }

    /// Inserts a row of wire values (a backup's, a merge's copy) as this device's write; its id is
    /// read from its identity columns.
    static func insert(_ row: [String: JSONValue], into table: String, tx: WriteContext) throws {
        // Synced rows are written as the restore's own writes, so a later sync sends them.
        if let entity = Entity(rawValue: table) {
            let rowId = RecordID.make(entity.identityColumns.map { row[$0].flatMap(\.text) ?? "" })
            let columns = row.keys.sorted().filter { $0 != "accountId" && $0 != "id" }
            return try tx.insertRow(entity, id: rowId, columns: columns, columns.map { databaseValue(row[$0]!) })
        }
        if table == "image" { try checkRestoredImage(row, tx: tx) }
        let columns = row.keys.sorted().filter { $0 != "accountId" && !(table == "usageEvent" && $0 == "id") }
        let values = columns.map { databaseValue(row[$0]!) }
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        try tx.db.cachedStatement(sql: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(marks))")
            .execute(arguments: StatementArguments(values))
    }

    /// A backup's image is decoded like any image entering the store, and must be what its row says.
    private static func checkRestoredImage(_ row: [String: JSONValue], tx: WriteContext) throws {
        guard let sha256 = row["sha256"]?.text, case .blob(let data) = databaseValue(row["data"] ?? .null).storage
        else { return }  // the row's own check names what is missing
        let image = try tx.decodedImage(data)
        guard sha256Hex(data) == sha256 else {
            throw CardboxError.invalid(field: "image \(sha256)", reason: "its bytes' SHA-256 is \(sha256Hex(data))")
        }
        try StoredImages.saveThumbnail(image, sha256: sha256, tx.db)
    }

    /// What the migrations after `schema` did to existing rows, applied to a backup's rows written
    /// before them: a restore must give the same store as restoring into the old schema and migrating.
    static func rowUpgrades(after schema: String) -> [(String, inout [String: JSONValue]) -> Void] {
        let migrations = Schema.migrator.migrations
        guard let made = migrations.firstIndex(of: schema) else { return [] }
        let later = Set(migrations[(made + 1)...])
        var upgrades: [(String, inout [String: JSONValue]) -> Void] = []
        if later.contains(Schema.studyMigration) {
            // v2: cards given a due time before it are review cards without a memory yet.
            upgrades.append { table, row in
                guard table == "card", row["state"] == nil, let due = row["dueAt"], due != .null else { return }
                row["state"] = .string("review")
            }
        }
        return upgrades
    }

    /// What a person calls a table's records in a report ("4 board cards", not "4 boardCards").
    static func recordWord(_ table: String) -> String {
        switch table {
        case "image": "stored image"
        case "itemImage": "item image"
        case "reviewLog": "review"
        case "usageEvent": "usage event"
        default: Entity(rawValue: table)?.kind ?? table
        }
    }

    /// A backup holds ids, as the wire does: a key reference is read as its parent's id.
    private static func backupColumns(_ table: String) -> String {
        Entity(rawValue: table)?.allColumns(table: "t") ?? "t.*"
    }

    /// Columns of the table that are this store's own numbering or encoding, not data: its integer
    /// key, the keys its key references hold, and the bytes of an id kept as bytes (`id` has it).
    static func storedOnlyColumns(_ entity: Entity) -> [String] {
        (entity.hasIntegerKey ? ["key"] : []) + (entity.keepsIdAsBytes ? ["uid"] : [])
            + entity.keyReferences.keys.map(entity.storedColumn)
    }

    private static func orderColumn(_ table: String) -> String {
        switch table {
        case "setting": "key"
        case "cardTag": "cardId, tagId"
        default: Entity(rawValue: table)?.storedColumn("id") ?? "id"  // bytes sort as their text
        }
    }

    static func values(_ row: Row) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        // Sync clocks belong to the store, not to the data: a restore stamps rows anew.
        for (column, value) in row where column != "accountId" && !SyncColumns.all.contains(column) {
            switch value.storage {
            case .null: values[column] = .null
            case .int64(let number): values[column] = .int(number)
            case .double(let number): values[column] = .double(number)
            case .string(let text): values[column] = .string(text)
            case .blob(let data): values[column] = .object(["base64": .string(data.base64EncodedString())])
            }
        }
        return values
    }

    static func databaseValue(_ value: JSONValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .bool(let flag): flag.storage.databaseValue
        case .int(let number): number.databaseValue
        case .double(let number): number.databaseValue
        case .string(let text): text.databaseValue
        case .object(let object):
            if case .string(let base64)? = object["base64"], let data = Data(base64Encoded: base64) {
                data.databaseValue
            } else {
                value.jsonText.databaseValue
            }
        case .array: value.jsonText.databaseValue
        }
    }
}

extension JSONValue {
    var text: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
