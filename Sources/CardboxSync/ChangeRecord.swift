import CardboxCore
import Foundation

/// What one transaction did to one row: the fields it wrote with their new values, stamped with the
/// transaction's hybrid-logical-clock time and the replica that wrote them. Sync pushes these; undo
/// and the activity log read them.
public struct ChangeRecord: Sendable, Equatable, Codable {
    public enum Operation: String, Sendable, Codable {
        case insert
        case update
        /// A tombstone: the row is gone. Its `fields` are empty.
        case delete
    }

    public var entity: String
    public var rowId: String
    public var operation: Operation
    public var fields: [String: JSONValue]
    public var timestamp: HLCTimestamp
    public var replicaId: String

    public init(
        entity: String, rowId: String, operation: Operation, fields: [String: JSONValue], timestamp: HLCTimestamp,
        replicaId: String
    ) {
        self.entity = entity
        self.rowId = rowId
        self.operation = operation
        self.fields = fields
        self.timestamp = timestamp
        self.replicaId = replicaId
    }
}
