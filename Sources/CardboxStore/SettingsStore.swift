import CardboxCore
import Foundation
import GRDB

extension CardboxStore {
    public func settings() throws -> UserSettings {
        try read { context in try context.settings() }
    }

    /// Sets one setting from text (`showCrossedOutItems true`); unknown keys and bad values are refused.
    public func setSetting(_ key: String, to text: String) throws -> UserSettings {
        try setSettings([(key, text)])
    }

    /// Sets several settings in one transaction: all of them, or none when one is refused.
    public func setSettings(_ values: [(key: String, text: String)]) throws -> UserSettings {
        try write { tx in
            var settings = try tx.context.settings()
            for (key, text) in values { try settings.set(key, to: text) }
            let stored = try Self.storedSettings(settings)
            for (key, _) in values { try tx.writeSetting(key, stored[key]!) }
            return settings
        }
    }

    /// How many times each usage event happened (seed 001's analytics, kept locally).
    public func usageEventCounts() throws -> [UsageEventCount] {
        try read { context in
            try Row.fetchAll(
                context.db.cachedStatement(
                    sql: """
                        SELECT name, COUNT(*) AS count, MAX(occurredAt) AS lastOccurredAt FROM usageEvent
                        GROUP BY name ORDER BY name
                        """), arguments: []
            ).compactMap { row in
                guard let name = UsageEventName(rawValue: row["name"]) else { return nil }
                return UsageEventCount(
                    name: name, count: row["count"], lastOccurredAt: Date(storageMillis: row["lastOccurredAt"]))
            }
        }
    }

    /// The most recent usage events, newest first.
    public func usageEvents(limit: Int = 50) throws -> [UsageEvent] {
        try read { context in
            try Row.fetchAll(
                context.db.cachedStatement(
                    sql: """
                        SELECT name, occurredAt, cardLanguage, hasTags, tagCount FROM usageEvent
                        ORDER BY id DESC LIMIT ?
                        """), arguments: [limit]
            ).compactMap { row in
                guard let name = UsageEventName(rawValue: row["name"]) else { return nil }
                return UsageEvent(
                    name: name, occurredAt: Date(storageMillis: row["occurredAt"]), cardLanguage: row["cardLanguage"],
                    hasTags: row["hasTags"], tagCount: row["tagCount"])
            }
        }
    }

    /// Each setting as the JSON text stored in its row.
    static func storedSettings(_ settings: UserSettings) throws -> [String: String] {
        [
            "showCrossedOutItems": JSONValue.bool(settings.showCrossedOutItems).jsonText,
            "exportPreferences": settings.exportPreferences.jsonText,
            "rejectedSuggestionRetentionDays": JSONValue.int(Int64(settings.rejectedSuggestionRetentionDays)).jsonText,
            "dayStartHour": JSONValue.int(Int64(settings.dayStartHour)).jsonText,
            "timeZone": (settings.timeZone.map(JSONValue.string) ?? .null).jsonText,
        ]
    }
}

extension WriteContext {
    /// Stores one setting's JSON text; a row that holds it already is left as it is (nothing to sync).
    func writeSetting(_ key: String, _ value: String) throws {
        let existing = try String.fetchOne(
            context.db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key])
        if let existing {
            guard existing != value else { return }
            try update(.setting, id: key, [(.value, value)])
        } else {
            try insert(.setting, id: key, [(.key, key), (.value, value)])
        }
    }
}

extension StoreContext {
    func settings() throws -> UserSettings {
        var settings = UserSettings()
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT key, value FROM setting"), arguments: [])
        for row in rows.map(TableRow<Columns.Setting>.init) {
            let key: String = row[.key]
            // A value out of its range (an older store's, another device's) leaves the default.
            settings.takeStored(key, try JSONValue.parse(row[.value], field: "setting \(key)"))
        }
        return settings
    }
}
