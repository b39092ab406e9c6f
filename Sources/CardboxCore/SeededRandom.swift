import CardboxFSRS

/// xoshiro256** (Blackman and Vigna): a fast generator for ids and position jitter, where values must
/// be unpredictable enough not to collide, not secret. Seeded from the system once, because the system
/// generator costs a system call per value on Linux.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var generator: Xoshiro256StarStar

    public init(seed: UInt64) { generator = Xoshiro256StarStar(seed: seed) }

    /// Seeded from the system generator.
    public init() {
        var system = SystemRandomNumberGenerator()
        self.init(seed: system.next())
    }

    public mutating func next() -> UInt64 { generator.next() }
}
