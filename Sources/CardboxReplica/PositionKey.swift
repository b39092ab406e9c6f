/// Order inside a list, column or board as fractional-index keys: base-62 strings that sort as plain
/// byte strings, with a key between any two keys. Moving an element rewrites only its own key, so two
/// devices reordering offline never renumber each other's rows. Ties (two devices minting the same key)
/// are broken by row id wherever keys are sorted.
///
/// A key is an integer part, whose first character encodes its length ('a'…'z' positive, 'A'…'Z'
/// negative), followed by a fraction without trailing zeros. Appending at the end increments the
/// integer, so keys stay short (three characters for ten thousand appends).
public enum PositionKey {
    static let digits: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    static let zero = digits[0]
    static let smallestInteger: [UInt8] = Array("A".utf8) + Array(repeating: digits[0], count: 26)
    /// The key of the first element of an empty list.
    public static let first = "a0"

    private static let digitValues: [Int] = {
        var table = [Int](repeating: -1, count: 256)
        for (value, digit) in digits.enumerated() { table[Int(digit)] = value }
        return table
    }()

    /// A key strictly between `before` and `after` (nil = the start or the end of the list).
    /// `random` adds a short random fraction so that two offline devices inserting at the same place
    /// rarely mint the same key.
    public static func between(
        _ before: String?, _ after: String?, using random: inout some RandomNumberGenerator
    ) throws(CardboxError) -> String {
        let key = try between(before, after)
        let suffixLength = 2
        var jittered = Array(key.utf8)
        for index in 0..<suffixLength {
            let lowest = index == suffixLength - 1 ? 1 : 0  // no trailing zero
            // Drawn as a 64-bit number: `Int.random(in:)` draws by the platform's word, so the browser's
            // 32-bit WebAssembly would draw other keys than a device from the same generator.
            let draw = random.next(upperBound: UInt64(digits.count - lowest))
            jittered.append(digits[lowest + Int(draw)])
        }
        if let after, !jittered.lexicographicallyPrecedes(Array(after.utf8)) { return key }
        return String(decoding: jittered, as: UTF8.self)
    }

    /// The deterministic key halfway between `before` and `after`.
    public static func between(_ before: String?, _ after: String?) throws(CardboxError) -> String {
        let a = before.map { Array($0.utf8) }
        let b = after.map { Array($0.utf8) }
        if let a { try validate(a) }
        if let b { try validate(b) }
        if let a, let b, !a.lexicographicallyPrecedes(b) {
            throw CardboxError.invalid(field: "position", reason: "key '\(before!)' does not sort before '\(after!)'")
        }
        return String(decoding: try keyBetween(a, b), as: UTF8.self)
    }

    /// `count` increasing keys from the start, for laying out a list anew.
    public static func sequence(count: Int) -> [String] {
        var keys: [String] = []
        keys.reserveCapacity(count)
        var previous: [UInt8]? = nil
        for _ in 0..<count {
            let next = (try? keyBetween(previous, nil)) ?? Array(first.utf8)
            keys.append(String(decoding: next, as: UTF8.self))
            previous = next
        }
        return keys
    }

    private static func keyBetween(_ a: [UInt8]?, _ b: [UInt8]?) throws(CardboxError) -> [UInt8] {
        switch (a, b) {
        case (nil, nil):
            return Array(first.utf8)
        case (nil, let b?):
            let integer = try integerPart(b)
            if integer == smallestInteger { return integer + midpoint([], Array(b[integer.count...])) }
            if integer.count < b.count { return integer }
            guard let decremented = decrement(integer) else { throw exhausted }
            return decremented
        case (let a?, nil):
            let integer = try integerPart(a)
            return increment(integer) ?? integer + midpoint(Array(a[integer.count...]), nil)
        case (let a?, let b?):
            let integerA = try integerPart(a)
            let integerB = try integerPart(b)
            if integerA == integerB {
                return integerA + midpoint(Array(a[integerA.count...]), Array(b[integerB.count...]))
            }
            guard let incremented = increment(integerA) else { throw exhausted }
            if incremented.lexicographicallyPrecedes(b) { return incremented }
            return integerA + midpoint(Array(a[integerA.count...]), nil)
        }
    }

    /// The fraction halfway between two fractions (`b` nil means 1). Neither ends with a zero digit.
    private static func midpoint(_ a: [UInt8], _ b: [UInt8]?) -> [UInt8] {
        if let b {
            var common = 0
            while common < b.count && (common < a.count ? a[common] : zero) == b[common] { common += 1 }
            if common > 0 {
                let restA = common < a.count ? Array(a[common...]) : []
                return Array(b[..<common]) + midpoint(restA, Array(b[common...]))
            }
        }
        let digitA = a.first.map { digitValues[Int($0)] } ?? 0
        let digitB = b.map { digitValues[Int($0[0])] } ?? digits.count
        if digitB - digitA > 1 {
            return [digits[(digitA + digitB + 1) / 2]]
        }
        if let b, b.count > 1 { return [b[0]] }
        return [digits[digitA]] + midpoint(a.isEmpty ? [] : Array(a.dropFirst()), nil)
    }

    private static func integerLength(_ head: UInt8) throws(CardboxError) -> Int {
        switch head {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(head - UInt8(ascii: "a")) + 2
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(UInt8(ascii: "Z") - head) + 2
        default: throw CardboxError.invalid(field: "position", reason: "invalid position key head")
        }
    }

    private static func integerPart(_ key: [UInt8]) throws(CardboxError) -> [UInt8] {
        guard let head = key.first else {
            throw CardboxError.invalid(field: "position", reason: "empty position key")
        }
        let length = try integerLength(head)
        guard length <= key.count else {
            throw CardboxError.invalid(field: "position", reason: "position key is too short")
        }
        return Array(key[..<length])
    }

    private static func validate(_ key: [UInt8]) throws(CardboxError) {
        guard key != smallestInteger else {
            throw CardboxError.invalid(field: "position", reason: "position key is the smallest possible")
        }
        let integer = try integerPart(key)
        guard key.allSatisfy({ digitValues[Int($0)] >= 0 }) else {
            throw CardboxError.invalid(field: "position", reason: "position key has a character outside base 62")
        }
        if key.count > integer.count && key.last == zero {
            throw CardboxError.invalid(field: "position", reason: "position key fraction ends with zero")
        }
    }

    private static func increment(_ integer: [UInt8]) -> [UInt8]? {
        var head = integer[0]
        var body = Array(integer.dropFirst())
        var carry = true
        var index = body.count - 1
        while carry && index >= 0 {
            let value = digitValues[Int(body[index])] + 1
            if value == digits.count {
                body[index] = zero
            } else {
                body[index] = digits[value]
                carry = false
            }
            index -= 1
        }
        guard carry else { return [head] + body }
        if head == UInt8(ascii: "Z") { return Array("a".utf8) + [zero] }
        if head == UInt8(ascii: "z") { return nil }
        head += 1
        if head > UInt8(ascii: "a") { body.append(zero) } else { body.removeLast() }
        return [head] + body
    }

    private static func decrement(_ integer: [UInt8]) -> [UInt8]? {
        var head = integer[0]
        var body = Array(integer.dropFirst())
        var borrow = true
        var index = body.count - 1
        while borrow && index >= 0 {
            let value = digitValues[Int(body[index])] - 1
            if value == -1 {
                body[index] = digits[digits.count - 1]
            } else {
                body[index] = digits[value]
                borrow = false
            }
            index -= 1
        }
        guard borrow else { return [head] + body }
        if head == UInt8(ascii: "a") { return Array("Z".utf8) + [digits[digits.count - 1]] }
        if head == UInt8(ascii: "A") { return nil }
        head -= 1
        if head < UInt8(ascii: "Z") { body.append(digits[digits.count - 1]) } else { body.removeLast() }
        return [head] + body
    }

    private static var exhausted: CardboxError {
        CardboxError.invalid(field: "position", reason: "no more position keys on this side of the list")
    }
}
