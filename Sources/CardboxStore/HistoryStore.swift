import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// One entry of the history shown to people: what one transaction changed, when and on which device.
public struct HistoryEntry: Codable, Sendable, Equatable {
    public struct Change: Codable, Sendable, Equatable {
        public var entity: String
        public var id: String
        /// insert, update or delete.
        public var operation: String
        /// The fields an update wrote.
        public var fields: [String]
    }

    public var at: Date
    /// The device (replica) that wrote it.
    public var replicaId: String
    /// True when this device wrote it; false when it was applied from another device's change set.
    public var isThisDevice: Bool
    /// The first changed rows, in order.
    public var changes: [Change]
    /// How many rows each entity had inserted, updated or deleted ("card insert": 10000).
    public var counts: [String: Int]
    /// How many rows the transaction changed in all.
    public var total: Int { counts.values.reduce(0, +) }
}

extension CardboxStore {
    /// The most recent changes, newest first (seed 004's persistent history).
    public func history(limit: Int = 20) throws -> [HistoryEntry] {
        try read { context in
            try Row.fetchAll(
                context.db.cachedStatement(
                    sql: """
                        SELECT b.hlc, b.origin, b.summary, r.id AS replicaId FROM changeBatch b
                        JOIN replica r ON r.key = b.replica ORDER BY b.id DESC LIMIT ?
                        """), arguments: [limit]
            ).map { row in
                let timestamp = HLCTimestamp(rawValue: UInt64(bitPattern: row["hlc"]))
                guard case .object(let summary) = try JSONValue.parse(row["summary"], field: "changeBatch.summary"),
                    case .array(let changes)? = summary["changes"], case .object(let counts)? = summary["counts"]
                else { throw CardboxError.storage("a history entry is malformed") }
                return HistoryEntry(
                    at: Date(timeIntervalSince1970: Double(timestamp.milliseconds) / 1000), replicaId: row["replicaId"],
                    isThisDevice: row["origin"] == "local", changes: changes.compactMap(Self.historyChange),
                    counts: counts.compactMapValues { value in
                        if case .int(let count) = value { return Int(count) }
                        return nil
                    })
            }
        }
    }

    private static func historyChange(_ value: JSONValue) -> HistoryEntry.Change? {
        guard case .object(let change) = value, case .string(let entity)? = change["entity"],
            case .string(let id)? = change["id"], case .string(let operation)? = change["operation"],
            case .array(let fields)? = change["fields"]
        else { return nil }
        return HistoryEntry.Change(
            entity: entity, id: id, operation: operation,
            fields: fields.compactMap {
                if case .string(let name) = $0 { return name }
                return nil
            })
    }
}
