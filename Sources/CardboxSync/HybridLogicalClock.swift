import CardboxCore
import Foundation

/// A hybrid logical clock timestamp (Kulkarni et al., 2014): 48 bits of wall-clock milliseconds and a
/// 16-bit counter, packed so that integer order is causal order.
public struct HLCTimestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public init(milliseconds: UInt64, counter: UInt16) {
        rawValue = (milliseconds << 16) | UInt64(counter)
    }

    public var milliseconds: UInt64 { rawValue >> 16 }
    public var counter: UInt16 { UInt16(truncatingIfNeeded: rawValue) }

    public static func < (lhs: HLCTimestamp, rhs: HLCTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }

    public static let zero = HLCTimestamp(rawValue: 0)

    /// Stored as a signed 64-bit integer (SQL's BIGINT); 48 bits of milliseconds keep the sign bit clear.
    public var storageValue: Int64 { Int64(bitPattern: rawValue) }

    public var description: String { "\(milliseconds).\(counter)" }
}

/// The clock of one replica. `tick` stamps a local change; `receive` merges a timestamp seen from another
/// replica, so every later local change sorts after everything this replica has seen.
public struct HybridLogicalClock: Sendable, Equatable {
    /// Remote timestamps further ahead of our wall clock than this are refused: a device with a badly
    /// wrong clock would otherwise drag every replica's clock into the future.
    public static let maximumDrift: UInt64 = 5 * 60 * 1000

    public private(set) var last: HLCTimestamp

    public init(last: HLCTimestamp = .zero) { self.last = last }

    public mutating func tick(now: Date) -> HLCTimestamp {
        let wall = Self.milliseconds(now)
        if wall > last.milliseconds {
            last = HLCTimestamp(milliseconds: wall, counter: 0)
        } else {
            last = Self.next(after: last)
        }
        return last
    }

    public mutating func receive(_ remote: HLCTimestamp, now: Date) throws -> HLCTimestamp {
        let wall = Self.milliseconds(now)
        if remote.milliseconds > wall + Self.maximumDrift {
            let ahead = (remote.milliseconds - wall) / 1000
            throw CardboxError.invalid(
                field: "timestamp",
                reason: "change is stamped \(ahead) s in the future; check the sending device's clock")
        }
        let newest = max(last, remote)
        if wall > newest.milliseconds {
            last = HLCTimestamp(milliseconds: wall, counter: 0)
        } else {
            last = Self.next(after: newest)
        }
        return last
    }

    /// The next timestamp in the same millisecond; a full counter borrows the next millisecond.
    private static func next(after timestamp: HLCTimestamp) -> HLCTimestamp {
        if timestamp.counter == UInt16.max {
            return HLCTimestamp(milliseconds: timestamp.milliseconds + 1, counter: 0)
        }
        return HLCTimestamp(milliseconds: timestamp.milliseconds, counter: timestamp.counter + 1)
    }

    static func milliseconds(_ date: Date) -> UInt64 {
        UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
