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
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
            bytes[6] = 0x70 | UInt8(counter >> 8)
            bytes[7] = UInt8(truncatingIfNeeded: counter)
            for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: tail >> (8 * UInt64(index - 8))) }
            bytes[8] = 0x80 | (bytes[8] & 0x3F)
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        }
    }
}
