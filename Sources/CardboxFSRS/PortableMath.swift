/// `exp`, `log` and `pow` in plain Swift, so a device and a browser compute the same bits.
///
/// Why not the platform's: JavaScript's `Math.exp`, `Math.log` and `Math.pow` (V8's, in Node 20 and
/// Chromium) and glibc's differ in the last bit for about one argument in ten, and FSRS feeds every
/// result into the next review. These use only IEEE 754's basic operations,
/// which every platform rounds alike: fdlibm's algorithms (Sun Microsystems, 1993), within one unit
/// in the last place for `exp` and `log`; `pow(x, y)` is `exp(y · log x)` for the positive `x`
/// FSRS takes, within a few units for the exponents it uses.
public enum PortableMath {
    private static let ln2High = 6.93147180369123816490e-01
    private static let ln2Low = 1.90821492927058770002e-10
    private static let inverseLn2 = 1.44269504088896338700e+00

    /// e raised to `x`.
    public static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.782712893383973096 { return .infinity }
        if x < -745.13321910194110842 { return 0 }
        // x = k·ln2 + r, |r| ≤ ln2/2, with ln2 split so k·ln2High is exact.
        let k = (x * inverseLn2 + (x < 0 ? -0.5 : 0.5)).rounded(.towardZero)
        let high = x - k * ln2High
        let low = k * ln2Low
        let r = high - low
        let rr = r * r
        let c =
            r - rr
            * (1.66666666666666019037e-01
                + rr
                * (-2.77777777770155933842e-03
                    + rr
                    * (6.61375632143793436117e-05 + rr * (-1.65339022054652515390e-06 + rr * 4.13813679705723846039e-08))))
        let y = 1 - ((low - (r * c) / (2 - c)) - high)
        return scaled(y, by: Int(k))
    }

    /// The natural logarithm of `x`.
    public static func log(_ x: Double) -> Double {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x == .infinity { return x }
        // x = 2^k · m with √2/2 < m ≤ √2, and f = m − 1 (exact).
        var k = Double(Int(x.exponent))
        var m = x.significand
        if m > 1.41421356237309504880 {
            m *= 0.5
            k += 1
        }
        let f = m - 1
        let s = f / (2 + f)
        let z = s * s
        let w = z * z
        let t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01))
        let t2 =
            z
            * (6.666666666666735130e-01
                + w * (2.857142874366239149e-01 + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)))
        let halfSquare = 0.5 * f * f
        return k * ln2High - ((halfSquare - (s * (halfSquare + t2 + t1) + k * ln2Low)) - f)
    }

    /// `x` raised to `y`, for `x` ≥ 0 (FSRS raises stabilities, difficulties and retentions).
    public static func pow(_ x: Double, _ y: Double) -> Double {
        if y == 0 || x == 1 { return 1 }
        if x == 0 { return y > 0 ? 0 : .infinity }
        return exp(y * log(x))
    }

    /// `y` · 2^`k`, in two steps where 2^`k` alone is outside the range of a double.
    private static func scaled(_ y: Double, by k: Int) -> Double {
        if k > 1000 { return y * Double(sign: .plus, exponent: 1000, significand: 1) * power2(k - 1000) }
        if k < -1000 { return y * Double(sign: .plus, exponent: -1000, significand: 1) * power2(k + 1000) }
        return y * power2(k)
    }

    private static func power2(_ k: Int) -> Double { Double(sign: .plus, exponent: k, significand: 1) }
}
