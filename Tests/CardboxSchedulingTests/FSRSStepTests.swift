import CardboxCore
import Foundation
import Testing

@testable import CardboxFSRS
@testable import CardboxScheduling

/// Arguments drawn the same way every run.
private func arguments(_ count: Int, _ range: ClosedRange<Double>, seed: UInt64) -> [Double] {
    var random = SeededRandom(seed: seed)
    return (0..<count).map { _ in Double.random(in: range, using: &random) }
}

/// How many units in the last place `value` is from `reference`.
private func ulps(_ value: Double, _ reference: Double) -> Int64 {
    abs(Int64(bitPattern: value.bitPattern) - Int64(bitPattern: reference.bitPattern))
}

@Suite("The FSRS step that imports nothing: its own math, its own fuzz draw")
struct FSRSStepTests {
    @Test("exp and log are within one unit in the last place of glibc's, exact where they must be")
    func expAndLog() {
        for x in arguments(50_000, -30...30, seed: 1) { #expect(ulps(PortableMath.exp(x), Foundation.exp(x)) <= 1) }
        for x in arguments(50_000, 0.000_1...40_000, seed: 2) {
            #expect(ulps(PortableMath.log(x), Foundation.log(x)) <= 1)
        }
        #expect(PortableMath.exp(0) == 1 && PortableMath.log(1) == 0 && PortableMath.pow(3, 0) == 1)
        #expect(PortableMath.exp(1_000) == .infinity && PortableMath.exp(-1_000) == 0)
        #expect(PortableMath.log(0) == -.infinity && PortableMath.log(-1).isNaN && PortableMath.pow(0, 2) == 0)
    }

    @Test("pow is within a few units in the last place of glibc's over FSRS's arguments")
    func power() {
        let bases = arguments(20_000, 0.001...400, seed: 3)
        let exponents = arguments(20_000, -8...8, seed: 4)
        for (x, y) in zip(bases, exponents) {
            let reference = Foundation.pow(x, y)
            #expect(abs(PortableMath.pow(x, y) - reference) <= 1e-13 * reference, "\(x)^\(y)")
        }
    }

    @Test("a fuzz draw is the standard library's Int.random(in:using:) over the same generator")
    func fuzzDraw() {
        var seeds = SeededRandom(seed: 5)
        for _ in 0..<20_000 {
            let seed = seeds.next()
            let lower = Int.random(in: 2...3_000, using: &seeds)
            let upper = lower + Int.random(in: 0...400, using: &seeds)
            var generator = SeededRandom(seed: seed)
            #expect(FuzzPick(seed: seed).pick(lower, upper) == Int.random(in: lower...upper, using: &generator))
        }
    }

    @Test("a card's fuzz seed is FNV-1a over its id's bytes and its review count's")
    func fuzzSeed() {
        for reps in [0, 1, 7, 1_000] {
            let card = CardID(UUID())
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            let bytes =
                withUnsafeBytes(of: card.uuid.uuid) { Array($0) }
                + withUnsafeBytes(of: Int64(reps).littleEndian) { Array($0) }
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            #expect(FuzzPick(cardId: card, reps: reps).seed == hash)
        }
    }

    @Test("the 128-bit product in 32-bit halves is the standard library's")
    func product() {
        var random = SeededRandom(seed: 6)
        for _ in 0..<20_000 {
            let (a, b) = (random.next(), random.next() >> UInt64.random(in: 0...63, using: &random))
            let expected = a.multipliedFullWidth(by: b)
            let got = FuzzPick.multipliedFullWidth(a, b)
            #expect(got.high == expected.high && got.low == expected.low)
        }
    }
}
