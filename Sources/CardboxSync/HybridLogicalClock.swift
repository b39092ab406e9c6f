import CardboxCore
import Foundation

// The clock's rules are in CardboxReplica (no Foundation: the browser's WebAssembly build runs
// them too); here, the same clock read from a `Date`, with Cardbox's errors.

/// Encoded as `{"rawValue": …}`, as the conformance Swift wrote for it when the type was declared here.
extension HLCTimestamp: Codable {
    private enum CodingKeys: String, CodingKey { case rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.container(keyedBy: CodingKeys.self).decode(UInt64.self, forKey: .rawValue))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rawValue, forKey: .rawValue)
    }
}

extension HybridLogicalClock {
    public mutating func tick(now: Date) -> HLCTimestamp { tick(milliseconds: Self.milliseconds(now)) }

    public mutating func receive(_ remote: HLCTimestamp, now: Date) throws -> HLCTimestamp {
        do {
            return try receive(remote, milliseconds: Self.milliseconds(now))
        } catch {
            throw CardboxError.invalid(
                field: "timestamp",
                reason: "change is stamped \(error.seconds) s in the future; check the sending device's clock")
        }
    }

    static func milliseconds(_ date: Date) -> UInt64 {
        UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
