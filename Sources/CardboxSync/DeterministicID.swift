import CardboxCore
import Crypto
import Foundation

/// Name-based UUIDs (RFC 9562 version 5, SHA-1): two devices that create the same named thing offline
/// (a tag "verbs") mint the same id, so sync merges them instead of duplicating.
public enum DeterministicID {
    /// Cardbox's namespace for name-based ids.
    public static let namespace = UUID(uuidString: "6f1d3c2e-8a47-5b1e-9c3d-2a7e4f0b8c91")!

    public static func uuidV5(namespace: UUID = namespace, name: String) -> UUID {
        let hash = NameBasedID.uuidV5(namespace: withUnsafeBytes(of: namespace.uuid) { Array($0) }, name: name)
        return UUID(
            uuid: (
                hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7],
                hash[8], hash[9], hash[10], hash[11], hash[12], hash[13], hash[14], hash[15]
            ))
    }

    /// The id of an account's tag: the same on every device of the account, whatever the spelling's case.
    public static func tagID(accountId: UUID, normalizedName: String) -> UUID {
        UUID(uuidString: NameBasedID.tagID(account: accountId.uuidString, key: normalizedName))!
    }
}

/// A SHA-256 in lowercase hex: how images are named everywhere, and how token secrets are stored.
public func sha256Hex<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
    hexDigits(SHA256.hash(data: bytes))
}

/// A digest in lowercase hex. Written digit by digit: `String(format:)` per byte cost more than the
/// hash, and every request hashes its token.
public func hexDigits(_ digest: SHA256.Digest) -> String {
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    return String(unsafeUninitializedCapacity: SHA256.byteCount * 2) { buffer in
        var index = 0
        for byte in digest {
            buffer[index] = digits[Int(byte >> 4)]
            buffer[index + 1] = digits[Int(byte & 0x0F)]
            index += 2
        }
        return index
    }
}
