import CardboxCore
import Foundation

/// The merge rules every holder of sync state applies the same way (a device's store, the server's
/// sync state), so each reaches the state the set of changes it has seen decides, whatever their order.
extension RowChange {
    /// Field by field, the value with the greater clock (HLC, then replica id); the row's creation
    /// clock is the greater of the two. Equal clocks mean the same write, except in a damaged or
    /// forged change set: then the greater value (as JSON text) wins, so replicas still agree.
    public func merged(with incoming: RowChange) -> RowChange {
        var merged = self
        merged.created = max(created, incoming.created)
        for (name, theirs) in incoming.fields {
            guard let ours = fields[name] else {
                merged.fields[name] = theirs
                continue
            }
            if theirs.clock > ours.clock || (theirs.clock == ours.clock && theirs.value.jsonText > ours.value.jsonText)
            {
                merged.fields[name] = theirs
            }
        }
        return merged
    }
}

extension Tombstone {
    /// Of two deletes of one record, the later (HLC, then replica id): a record deleted twice is
    /// deleted with the same clock everywhere.
    public func merged(with other: Tombstone) -> Tombstone { other.clock > clock ? other : self }
}

// MARK: One row as JSON

extension RowChange {
    /// One row with its clocks, as stored by whoever keeps rows aside (a device's held rows, the
    /// server's sync state): `{"entity", "id", "created": [timestamp, replica], "fields": {name:
    /// [value, [timestamp, replica]]}}`.
    public var recordJSON: String {
        func clock(_ clock: WriteClock) -> JSONValue {
            .array([.int(clock.timestamp.storageValue), .string(clock.replicaId)])
        }
        return JSONValue.object([
            "entity": .string(entity.rawValue), "id": .string(id), "created": clock(created),
            "fields": .object(fields.mapValues { .array([$0.value, clock($0.clock)]) }),
        ]).jsonText
    }

    /// Reads `recordJSON`; `field` names the stored place in errors.
    public init(recordJSON text: String, field: String) throws {
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
        self.init(entity: entity, id: id, created: try clock(members["created"]), fields: fields)
        fillLaterFields()
    }

    /// Gives a row written before one of `SyncRegistry.laterFields` came that field, as null, at the
    /// earliest clock: any value written to it since wins (on a tie of clocks the greater value would).
    mutating func fillLaterFields() {
        for name in SyncRegistry.laterFields[entity] ?? [] where fields[name] == nil {
            fields[name] = FieldChange(value: .null, clock: WriteClock(.zero, created.replicaId))
        }
    }
}
