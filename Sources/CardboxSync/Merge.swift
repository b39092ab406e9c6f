import CardboxCore
import Foundation

// The merge rules every holder of sync state applies (`ReplicaRow.merged(with:)`,
// `ReplicaTombstone.merged(with:)`, `RecordMerge`) are in CardboxReplica.

// MARK: One row as JSON

extension RowChange {
    /// Reads `recordJSON`; `field` names the stored place in errors.
    public init(recordJSON text: String, field: String) throws {
        self = try RowChange(recordText: text) ?? Self.recordFromTree(text, field: field)
        fillLaterFields()
    }

    /// Reads `recordJSON` as a JSON tree (what a text the straight reader declines is read with, to
    /// name its problem); `field` names the stored place in errors.
    package static func recordFromTree(_ text: String, field: String) throws -> RowChange {
        func malformed(_ what: String) -> CardboxError { .storage("\(field) has \(what)") }
        func clock(_ value: JSONValue?) throws -> WriteClock {
            guard case .array(let pair)? = value, pair.count == 2, case .int(let raw) = pair[0],
                case .string(let replica) = pair[1]
            else { throw malformed("a malformed clock") }
            return WriteClock(HLCTimestamp(rawValue: UInt64(bitPattern: raw)), replica)
        }
        guard case .object(let members) = try JSONValue.parse(text, field: field),
            case .string(let entityName)? = members["entity"], let entity = SyncedEntity(rawValue: entityName),
            case .string(let id)? = members["id"], case .object(let fieldValues)? = members["fields"]
        else { throw malformed("a malformed row") }
        var fields: [String: FieldChange] = [:]
        for (name, value) in fieldValues {
            guard case .array(let pair) = value, pair.count == 2 else { throw malformed("a malformed field '\(name)'") }
            fields[name] = FieldChange(value: pair[0], clock: try clock(pair[1]))
        }
        return RowChange(entity: entity, id: id, created: try clock(members["created"]), fields: fields)
    }

    /// Gives a row written before one of `SyncRegistry.laterFields` came that field, as null, at the
    /// earliest clock: any value written to it since wins (on a tie of clocks the greater value would).
    mutating func fillLaterFields() {
        for name in SyncRegistry.laterFields[entity] ?? [] where fields[name] == nil {
            fields[name] = FieldChange(value: .null, clock: WriteClock(.zero, created.replicaId))
        }
    }
}
