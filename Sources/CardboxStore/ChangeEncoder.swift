import CardboxCore
import GRDB

/// Turns the values a statement writes into a change record's `fields` JSON. Built once per table
/// and column list (once per batch), so each row only appends precomputed key bytes and its values.
struct ChangeEncoder {
    /// For each written column, the bytes `"column":`, or nil when the column is not recorded.
    private let keys: [[UInt8]?]
    /// Where parent and position are, when the row is ordered: they are recorded as one `placement`.
    private let placement: (parentKey: [UInt8]?, parent: Int?, position: Int)?

    /// Columns derived from others (lookup keys): not part of the history.
    static let derivedColumns: Set<String> = ["nameKey", "frontKey"]

    init(entity: Entity, columns: [String]) {
        var placement: (parentKey: [UInt8]?, parent: Int?, position: Int)?
        // A move is one write of (parent, position): a single field, so concurrent moves of the same
        // row on two devices resolve to one place, never half of each.
        if case .some(let parentColumn) = entity.orderParent, let position = columns.firstIndex(of: "position") {
            placement = (
                parentColumn.map { Self.key($0, leadingComma: false) },
                parentColumn.flatMap { columns.firstIndex(of: $0) },
                position
            )
        }
        self.placement = placement
        var keys: [[UInt8]?] = []
        var first = true
        for (index, column) in columns.enumerated() {
            let isPlacement = placement.map { index == $0.position || index == $0.parent } ?? false
            if Self.derivedColumns.contains(column) || isPlacement {
                keys.append(nil)
                continue
            }
            keys.append(Self.key(column, leadingComma: !first))
            first = false
        }
        self.keys = keys
        self.hasPlainFields = !first
    }

    private let hasPlainFields: Bool

    func encode(_ values: [DatabaseValue]) -> String {
        var json = JSONWriter(capacity: 48 + 24 * values.count)
        json.byte(UInt8(ascii: "{"))
        for (key, value) in zip(keys, values) {
            guard let key else { continue }
            json.append(key)
            Self.write(value, to: &json)
        }
        if let placement {
            if hasPlainFields { json.byte(UInt8(ascii: ",")) }
            json.raw("\"placement\":{")
            if let parentKey = placement.parentKey {
                json.append(parentKey)
                Self.write(placement.parent.map { values[$0] } ?? .null, to: &json)
                json.byte(UInt8(ascii: ","))
            }
            json.raw("\"position\":")
            Self.write(values[placement.position], to: &json)
            json.byte(UInt8(ascii: "}"))
        }
        json.byte(UInt8(ascii: "}"))
        return json.text
    }

    private static func key(_ column: String, leadingComma: Bool) -> [UInt8] {
        var json = JSONWriter()
        if leadingComma { json.byte(UInt8(ascii: ",")) }
        json.string(column)
        json.byte(UInt8(ascii: ":"))
        return json.bytes
    }

    private static func write(_ value: DatabaseValue, to json: inout JSONWriter) {
        switch value.storage {
        case .null: json.raw("null")
        case .int64(let number): json.integer(number)
        case .double(let number): json.double(number)
        case .string(let text): json.string(text)
        case .blob(let data): json.string(data.base64EncodedString())
        }
    }
}
