import Foundation

/// Makes time-ordered UUIDs (RFC 9562 version 7): 48 bits of Unix milliseconds, a 12-bit counter
/// that keeps ids made in the same millisecond in order, then random bits. Rows created in one
/// transaction share a timestamp, so ordering by (createdAt, id) is creation order.
public final class UUIDv7Generator: @unchecked Sendable {
    private let lock = NSLock()
    private var lastMilliseconds: UInt64 = 0
    private var counter: UInt16 = 0
    private var random: any RandomNumberGenerator

    public init(random: any RandomNumberGenerator = SeededRandom()) {
        self.random = random
    }

    public func next(now: Date = Date()) -> UUID {
        lock.withLock {
            var milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
            if milliseconds <= lastMilliseconds {
                milliseconds = lastMilliseconds
                counter += 1
                if counter > 0x0FFF {  // counter spent: borrow the next millisecond
                    milliseconds += 1
                    counter = 0
                }
            } else {
                counter = 0
            }
            lastMilliseconds = milliseconds
            let tail = random.next()
            // Built as a tuple, without an array to fill: an import makes an id per row.
            let time = { (shift: UInt64) in UInt8(truncatingIfNeeded: milliseconds >> shift) }
            let tailByte = { (shift: UInt64) in UInt8(truncatingIfNeeded: tail >> shift) }
            return UUID(
                uuid: (
                    time(40), time(32), time(24), time(16), time(8), time(0), 0x70 | UInt8(counter >> 8),
                    UInt8(truncatingIfNeeded: counter), 0x80 | (tailByte(0) & 0x3F), tailByte(8), tailByte(16),
                    tailByte(24), tailByte(32), tailByte(40), tailByte(48), tailByte(56)
                ))
        }
    }
}
