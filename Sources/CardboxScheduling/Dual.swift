import Foundation

/// 24 partial derivatives (21 used), as three 8-lane vectors: Swift vectorizes `SIMD8<Double>`
/// arithmetic, while `SIMD32<Double>` ran about 70 times slower here.
struct Gradient {
    var low: SIMD8<Double>
    var middle: SIMD8<Double>
    var high: SIMD8<Double>

    static let zero = Gradient(low: .zero, middle: .zero, high: .zero)

    subscript(index: Int) -> Double {
        get { index < 8 ? low[index] : index < 16 ? middle[index - 8] : high[index - 16] }
        set {
            if index < 8 {
                low[index] = newValue
            } else if index < 16 {
                middle[index - 8] = newValue
            } else {
                high[index - 16] = newValue
            }
        }
    }

    static func + (a: Gradient, b: Gradient) -> Gradient {
        Gradient(low: a.low + b.low, middle: a.middle + b.middle, high: a.high + b.high)
    }
    static func - (a: Gradient, b: Gradient) -> Gradient {
        Gradient(low: a.low - b.low, middle: a.middle - b.middle, high: a.high - b.high)
    }
    static func * (a: Gradient, b: Gradient) -> Gradient {
        Gradient(low: a.low * b.low, middle: a.middle * b.middle, high: a.high * b.high)
    }
    static func * (a: Gradient, b: Double) -> Gradient {
        Gradient(low: a.low * b, middle: a.middle * b, high: a.high * b)
    }
    static func / (a: Gradient, b: Double) -> Gradient {
        Gradient(low: a.low / b, middle: a.middle / b, high: a.high / b)
    }
    static prefix func - (a: Gradient) -> Gradient { Gradient(low: -a.low, middle: -a.middle, high: -a.high) }
}

/// A number with its derivatives with respect to the 21 FSRS parameters (forward-mode automatic
/// differentiation): one pass over a card's history gives the loss and its whole gradient.
struct Dual {
    var value: Double
    /// ∂value/∂w_i in lane i.
    var gradient: Gradient

    init(_ value: Double, gradient: Gradient) {
        self.value = value
        self.gradient = gradient
    }

    init(_ value: Double) { self.init(value, gradient: .zero) }

    /// The parameter w_index itself.
    static func parameter(_ value: Double, index: Int) -> Dual {
        var gradient = Gradient.zero
        gradient[index] = 1
        return Dual(value, gradient: gradient)
    }

    static func + (a: Dual, b: Dual) -> Dual { Dual(a.value + b.value, gradient: a.gradient + b.gradient) }
    static func - (a: Dual, b: Dual) -> Dual { Dual(a.value - b.value, gradient: a.gradient - b.gradient) }
    static func * (a: Dual, b: Dual) -> Dual {
        Dual(a.value * b.value, gradient: a.gradient * b.value + b.gradient * a.value)
    }
    static func / (a: Dual, b: Dual) -> Dual {
        Dual(a.value / b.value, gradient: (a.gradient * b.value - b.gradient * a.value) / (b.value * b.value))
    }
    static func + (a: Dual, b: Double) -> Dual { Dual(a.value + b, gradient: a.gradient) }
    static func + (a: Double, b: Dual) -> Dual { b + a }
    static func - (a: Dual, b: Double) -> Dual { Dual(a.value - b, gradient: a.gradient) }
    static func - (a: Double, b: Dual) -> Dual { Dual(a - b.value, gradient: -b.gradient) }
    static func * (a: Dual, b: Double) -> Dual { Dual(a.value * b, gradient: a.gradient * b) }
    static func * (a: Double, b: Dual) -> Dual { b * a }
    static func / (a: Dual, b: Double) -> Dual { Dual(a.value / b, gradient: a.gradient / b) }
    static prefix func - (a: Dual) -> Dual { Dual(-a.value, gradient: -a.gradient) }

    static func exp(_ a: Dual) -> Dual {
        let e = Foundation.exp(a.value)
        return Dual(e, gradient: a.gradient * e)
    }

    static func log(_ a: Dual) -> Dual { Dual(Foundation.log(a.value), gradient: a.gradient / a.value) }

    /// a^b for a > 0: d(a^b) = a^b (b' ln a + b a'/a).
    static func pow(_ a: Dual, _ b: Dual) -> Dual {
        let p = Foundation.pow(a.value, b.value)
        return Dual(p, gradient: (b.gradient * Foundation.log(a.value) + a.gradient * (b.value / a.value)) * p)
    }

    static func pow(_ a: Dual, _ b: Double) -> Dual {
        let p = Foundation.pow(a.value, b)
        return Dual(p, gradient: a.gradient * (b * Foundation.pow(a.value, b - 1)))
    }

    static func pow(_ a: Double, _ b: Dual) -> Dual {
        let p = Foundation.pow(a, b.value)
        return Dual(p, gradient: b.gradient * (p * Foundation.log(a)))
    }

    /// Clamping passes the derivative through inside the range and stops it at the edges.
    func clamped(_ lower: Double, _ upper: Double = .infinity) -> Dual {
        if value < lower { return Dual(lower) }
        if value > upper { return Dual(upper) }
        return self
    }

    static func min(_ a: Dual, _ b: Dual) -> Dual { a.value <= b.value ? a : b }
    static func max(_ a: Dual, _ b: Double) -> Dual { a.value >= b ? a : Dual(b) }
}

/// What the FSRS model computes with: plain numbers (`Double`) to evaluate parameters, dual numbers
/// (`Dual`) to train them. One model serves both, specialized for each, so an evaluation pays for no
/// derivatives it throws away.
protocol ModelNumber {
    init(_ value: Double)
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
    static func / (a: Self, b: Self) -> Self
    static func + (a: Self, b: Double) -> Self
    static func + (a: Double, b: Self) -> Self
    static func - (a: Self, b: Double) -> Self
    static func - (a: Double, b: Self) -> Self
    static func * (a: Self, b: Double) -> Self
    static func * (a: Double, b: Self) -> Self
    static func / (a: Self, b: Double) -> Self
    static prefix func - (a: Self) -> Self
    static func exp(_ a: Self) -> Self
    static func log(_ a: Self) -> Self
    static func pow(_ a: Self, _ b: Self) -> Self
    static func pow(_ a: Double, _ b: Self) -> Self
    static func min(_ a: Self, _ b: Self) -> Self
    static func max(_ a: Self, _ b: Double) -> Self
    func clamped(_ lower: Double, _ upper: Double) -> Self
}

extension Dual: ModelNumber {}

extension Double: ModelNumber {
    static func exp(_ a: Double) -> Double { Foundation.exp(a) }
    static func log(_ a: Double) -> Double { Foundation.log(a) }
    static func pow(_ a: Double, _ b: Double) -> Double { Foundation.pow(a, b) }
    static func min(_ a: Double, _ b: Double) -> Double { a <= b ? a : b }
    static func max(_ a: Double, _ b: Double) -> Double { a >= b ? a : b }
    /// As `Dual.clamped`: the bounds win, in that order.
    func clamped(_ lower: Double, _ upper: Double = .infinity) -> Double {
        if self < lower { return lower }
        if self > upper { return upper }
        return self
    }
}
