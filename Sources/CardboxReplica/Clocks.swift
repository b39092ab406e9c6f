/// A hybrid logical clock timestamp (Kulkarni et al., 2014): 48 bits of wall-clock milliseconds and a
/// 16-bit counter, packed so that integer order is causal order.
public struct HLCTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
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

/// Who wrote a value, and when: the order of last-writer-wins. Total: equal timestamps are told
/// apart by the replica id, so every replica picks the same winner.
public struct WriteClock: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let timestamp: HLCTimestamp
    public let replicaId: String

    public init(_ timestamp: HLCTimestamp, _ replicaId: String) {
        self.timestamp = timestamp
        self.replicaId = replicaId
    }

    public static func < (lhs: WriteClock, rhs: WriteClock) -> Bool {
        (lhs.timestamp, lhs.replicaId) < (rhs.timestamp, rhs.replicaId)
    }

    public var description: String { "\(timestamp)@\(replicaId)" }
}

/// The clock of one replica. `tick` stamps a local change; `receive` merges a timestamp seen from another
/// replica, so every later local change sorts after everything this replica has seen. Times are
/// milliseconds since 1970, read by the caller (`Date` natively, `Date.now()` in the browser).
public struct HybridLogicalClock: Sendable, Equatable {
    /// Remote timestamps further ahead of our wall clock than this are refused: a device with a badly
    /// wrong clock would otherwise drag every replica's clock into the future.
    public static let maximumDrift: UInt64 = 5 * 60 * 1000

    /// A remote timestamp refused by `receive`: how many whole seconds it is ahead of the wall clock.
    public struct TooFarAhead: Error, Equatable {
        public let seconds: UInt64

        public init(seconds: UInt64) { self.seconds = seconds }
    }

    public private(set) var last: HLCTimestamp

    public init(last: HLCTimestamp = .zero) { self.last = last }

    public mutating func tick(milliseconds wall: UInt64) -> HLCTimestamp {
        if wall > last.milliseconds {
            last = HLCTimestamp(milliseconds: wall, counter: 0)
        } else {
            last = Self.next(after: last)
        }
        return last
    }

    public mutating func receive(_ remote: HLCTimestamp, milliseconds wall: UInt64) throws(TooFarAhead)
        -> HLCTimestamp
    {
        if remote.milliseconds > wall + Self.maximumDrift {
            throw TooFarAhead(seconds: (remote.milliseconds - wall) / 1000)
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
}
