/// Name-based UUIDs (RFC 9562 version 5, SHA-1): two devices that create the same named thing offline
/// (a tag "verbs") mint the same id, so sync merges them instead of duplicating. Foundation-free, so
/// the browser's replica mints the ids a store mints.
public enum NameBasedID {
    /// Cardbox's namespace for name-based ids (6f1d3c2e-8a47-5b1e-9c3d-2a7e4f0b8c91), as bytes.
    public static let namespace: [UInt8] = [
        0x6f, 0x1d, 0x3c, 0x2e, 0x8a, 0x47, 0x5b, 0x1e, 0x9c, 0x3d, 0x2a, 0x7e, 0x4f, 0x0b, 0x8c, 0x91,
    ]

    /// The version 5 UUID of `name` in a namespace (Cardbox's unless given), as its 16 bytes.
    public static func uuidV5(namespace: [UInt8] = namespace, name: String) -> [UInt8] {
        var hash = Array(SHA1.hash(namespace + Array(name.utf8)).prefix(16))
        hash[6] = (hash[6] & 0x0F) | 0x50  // version 5
        hash[8] = (hash[8] & 0x3F) | 0x80  // RFC 4122 variant
        return hash
    }

    /// The id of an account's tag, in lowercase text: the same on every device of the account,
    /// whatever the spelling's case (`key` is the name's `TagNames.key`).
    public static func tagID(account: String, key: String) -> String {
        text(uuidV5(name: "tag:\(account.lowercased()):\(key)"))
    }

    /// 16 bytes as a UUID's lowercase text (8-4-4-4-12 hex digits).
    static func text(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]]
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// SHA-1 (FIPS 180-4), for name-based UUIDs alone: not for anything that needs a secure hash.
enum SHA1 {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            padded.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        var words = [UInt32](repeating: 0, count: 80)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let at = block + index * 4
                words[index] =
                    UInt32(padded[at]) << 24 | UInt32(padded[at + 1]) << 16 | UInt32(padded[at + 2]) << 8
                    | UInt32(padded[at + 3])
            }
            for index in 16..<80 {
                words[index] = rotated(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], 1)
            }
            var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
            for index in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch index {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let next = rotated(a, 5) &+ f &+ e &+ k &+ words[index]
                (e, d, c, b, a) = (d, c, rotated(b, 30), a, next)
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
        }
        var digest: [UInt8] = []
        for word in state {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    private static func rotated(_ value: UInt32, _ count: UInt32) -> UInt32 { value << count | value >> (32 - count) }
}
