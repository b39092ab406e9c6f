/// Where a fuzzed interval lands: a day drawn from the card's id and review count, so a rating
/// button's preview is what the answer does, and a device and a browser draw the same day.
public struct FuzzPick: Sendable {
    public let seed: UInt64

    public init(seed: UInt64) { self.seed = seed }

    /// FNV-1a over the id's 16 bytes (`idHigh` holds the first 8, most significant first) and the
    /// review count's 8 bytes, least significant first.
    public init(idHigh: UInt64, idLow: UInt64, reps: Int64) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ word: UInt64, bigEndian: Bool) {
            for index in 0..<8 {
                let shift = UInt64(bigEndian ? 56 - 8 * index : 8 * index)
                hash ^= (word >> shift) & 0xff
                hash &*= 0x100_0000_01b3
            }
        }
        add(idHigh, bigEndian: true)
        add(idLow, bigEndian: true)
        add(UInt64(bitPattern: reps), bigEndian: false)
        seed = hash
    }

    /// A day from `lower` through `upper`, as the standard library's `Int.random(in:using:)` draws
    /// one from a `Xoshiro256StarStar` with this seed (Lemire's bounded draw), written out over
    /// 64-bit words so a 32-bit platform draws the same.
    public func pick(_ lower: Int, _ upper: Int) -> Int {
        var generator = Xoshiro256StarStar(seed: seed)
        let span = UInt64(upper - lower) &+ 1
        var product = Self.multipliedFullWidth(generator.next(), span)
        if product.low < span {
            let threshold = (0 &- span) % span
            while product.low < threshold { product = Self.multipliedFullWidth(generator.next(), span) }
        }
        return lower + Int(product.high)
    }

    /// The 128-bit product of two words, in 32-bit halves (no 128-bit arithmetic to link in WebAssembly).
    static func multipliedFullWidth(_ a: UInt64, _ b: UInt64) -> (high: UInt64, low: UInt64) {
        let (aHigh, aLow) = (a >> 32, a & 0xffff_ffff)
        let (bHigh, bLow) = (b >> 32, b & 0xffff_ffff)
        let lowLow = aLow &* bLow
        let highLow = aHigh &* bLow
        let lowHigh = aLow &* bHigh
        let highHigh = aHigh &* bHigh
        let middle = (lowLow >> 32) &+ (highLow & 0xffff_ffff) &+ (lowHigh & 0xffff_ffff)
        let high = highHigh &+ (highLow >> 32) &+ (lowHigh >> 32) &+ (middle >> 32)
        return (high, (middle << 32) | (lowLow & 0xffff_ffff))
    }
}

/// xoshiro256** (Blackman and Vigna), seeded through SplitMix64: small, fast, and the same
/// sequence everywhere.
public struct Xoshiro256StarStar: Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var splitMix = seed
        func next() -> UInt64 {
            splitMix &+= 0x9E37_79B9_7F4A_7C15
            var z = splitMix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (next(), next(), next(), next())
    }

    public mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 { (value << count) | (value >> (64 - count)) }
}
