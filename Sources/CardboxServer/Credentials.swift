import CardboxCore
import CardboxSync
import Crypto
import Foundation
import HummingbirdBcrypt
import Synchronization

/// A device's token: `cbx1.` and, in base64url, the account id, the device id and 32 random bytes
/// (256 bits). The ids let the server find the device without a lookup across accounts; the
/// random part is the secret, and the server keeps only its SHA-256.
public struct DeviceToken: Sendable, Equatable {
    public var account: UUID
    public var device: UUID
    var secret: [UInt8]

    private static let prefix = "cbx1."

    /// A new token for a device, with a secret from the system's random source.
    public static func mint(account: UUID, device: UUID) -> DeviceToken {
        let key = SymmetricKey(size: .bits256)
        return DeviceToken(account: account, device: device, secret: key.withUnsafeBytes { Array($0) })
    }

    /// Reads a token as a device sends it; nil when it is not one.
    public init?(_ text: String) {
        guard text.hasPrefix(Self.prefix), let bytes = Base64URL.decode(String(text.dropFirst(Self.prefix.count))),
            bytes.count == 64
        else { return nil }
        account = UUID(bytes: bytes[0..<16])
        device = UUID(bytes: bytes[16..<32])
        secret = Array(bytes[32..<64])
    }

    init(account: UUID, device: UUID, secret: [UInt8]) {
        self.account = account
        self.device = device
        self.secret = secret
    }

    public var text: String { Self.prefix + Base64URL.encode(account.bytes + device.bytes + secret) }

    /// What the server stores: the secret's SHA-256, in hex.
    public var secretHash: String { Self.hash(secret) }

    static func hash(_ secret: [UInt8]) -> String {
        sha256Hex(secret)
    }

    /// Whether `storedHash` is this token's, compared in constant time.
    func matches(_ storedHash: String) -> Bool { constantTimeEqual(secretHash, storedHash) }
}

/// Whether two secrets are equal, in a time that does not depend on where they first differ.
public func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let (ours, theirs) = (Array(a.utf8), Array(b.utf8))
    guard ours.count == theirs.count else { return false }
    return zip(ours, theirs).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
}

/// Passwords: hashed with bcrypt; checked the same way whether or not the account exists, so the
/// time an answer takes does not say which names have accounts.
public struct PasswordHasher: Sendable {
    /// bcrypt's cost: 12 by default (about a quarter of a second here), lower only where speed
    /// matters more than resistance to guessing (tests).
    public var cost: UInt8
    /// The hash an unknown name's password is checked against: made once, on the first such check,
    /// so that check costs one bcrypt run, as a known name's does.
    private let standIn = StandInHash()

    public init(cost: UInt8 = 12) { self.cost = cost }

    public func hash(_ password: String) throws -> String {
        try Self.check(password)
        return Bcrypt.hash(Self.bcryptInput(password), cost: cost)
    }

    public func verify(_ password: String, hash: String?) -> Bool {
        guard let hash else {
            // Spend the same time as a real check.
            _ = Bcrypt.verify(Self.bcryptInput(password), hash: standIn.hash(cost: cost))
            return false
        }
        return Bcrypt.verify(Self.bcryptInput(password), hash: hash)
    }

    /// bcrypt reads at most 72 bytes and stops at a NUL byte: a longer password, or one holding
    /// NUL, is hashed as its SHA-256 in base64 (44 bytes), so every character counts.
    static func bcryptInput(_ password: String) -> String {
        guard password.utf8.count > 72 || password.utf8.contains(0) else { return password }
        return Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }

    /// 8 to 1,024 characters (Unicode scalars, as JSON Schema counts them).
    public static func check(_ password: String) throws {
        let length = password.unicodeScalars.count
        guard length >= 8 else {
            throw CardboxError.invalid(field: "password", reason: "must be at least 8 characters")
        }
        guard length <= 1_024 else {
            throw CardboxError.invalid(field: "password", reason: "must be at most 1024 characters")
        }
    }
}

/// A bcrypt hash of a random password, made on first use and kept (per cost).
private final class StandInHash: Sendable {
    private let hashes = Mutex<[UInt8: String]>([:])

    func hash(cost: UInt8) -> String {
        if let made = hashes.withLock({ $0[cost] }) { return made }
        let made = Bcrypt.hash(UUID().uuidString, cost: cost)
        return hashes.withLock { hashes in
            if let first = hashes[cost] { return first }
            hashes[cost] = made
            return made
        }
    }
}

extension UUID {
    init(bytes: ArraySlice<UInt8>) {
        let b = Array(bytes)
        self.init(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    var bytes: [UInt8] { withUnsafeBytes(of: uuid) { Array($0) } }
}

/// Base64 with the URL's alphabet and no padding (RFC 4648 §5), so a token needs no escaping.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Every request decodes its token: read byte by byte (Character properties and Foundation's
    /// replacing were most of a request's authentication).
    static func decode(_ text: String) -> [UInt8]? {
        var base64: [UInt8] = []
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.append(byte)
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        base64 += Array(repeating: UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: Data(base64)).map(Array.init)
    }
}
