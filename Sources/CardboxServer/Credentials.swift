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

/// Failed sign-ins, counted three ways. A name is normalized as the account lookup does, so
/// " alice" and "ALICE" are one name.
/// - A name from one address: after `allowed` failures in a row, each further attempt from there
///   must wait, twice as long each time (1 s, 2 s, … up to 15 min). A success clears it. A lock is
///   per (name, address) so that failing someone's name from one address never keeps them out:
///   the right password from an address that has not failed goes through.
/// - A name from everywhere: past `nameCap` failures in `clientWindow`, every attempt for it is
///   delayed by `nameDelay` before its password is checked. It slows guesses spread over many
///   addresses and never refuses.
/// - An address: at most `allowedPerClient` failures in `clientWindow`, whatever names they tried
///   (guessing across many accounts); a success does not clear it, or one's own account would reset it.
/// Kept in the server process: each server throttles on its own.
public actor SignInThrottle {
    private struct Attempts: Hashable {
        let name: String
        let client: String?
    }

    private var failures: [Attempts: (count: Int, lockedUntil: Date)] = [:]
    private var nameFailures: [String: (count: Int, windowStart: Date)] = [:]
    private var clientFailures: [String: (count: Int, windowStart: Date)] = [:]
    private let allowed: Int
    private let allowedPerClient: Int
    private let nameCap: Int
    private let nameDelay: TimeInterval
    private let clientWindow: TimeInterval

    public init(
        allowed: Int = 5, allowedPerClient: Int = 30, nameCap: Int = 20, nameDelay: TimeInterval = 1,
        clientWindow: TimeInterval = 900
    ) {
        (self.allowed, self.allowedPerClient, self.clientWindow) = (allowed, allowedPerClient, clientWindow)
        (self.nameCap, self.nameDelay) = (nameCap, nameDelay)
    }

    /// Throws when `name` (already normalized) from `client`, or `client`, must wait, saying how
    /// long; otherwise answers how long the attempt is to be delayed (0 unless the name is past its cap).
    public func check(_ name: String, client: String?, now: Date) throws -> TimeInterval {
        if let entry = failures[Attempts(name: name, client: client)], entry.lockedUntil > now {
            throw SignInThrottled(retryAfter: Int(entry.lockedUntil.timeIntervalSince(now).rounded(.up)))
        }
        if let client, let entry = clientFailures[client], entry.count >= allowedPerClient {
            let end = entry.windowStart.addingTimeInterval(clientWindow)
            if end > now {
                throw SignInThrottled(retryAfter: Int(end.timeIntervalSince(now).rounded(.up)), client: true)
            }
        }
        guard let entry = nameFailures[name], entry.windowStart.addingTimeInterval(clientWindow) > now else { return 0 }
        return entry.count >= nameCap ? nameDelay : 0
    }

    public func failed(_ name: String, client: String?, now: Date) {
        let attempts = Attempts(name: name, client: client)
        let count = (failures[attempts]?.count ?? 0) + 1
        let wait = count < allowed ? 0 : min(900, pow(2, Double(count - allowed)))
        failures[attempts] = (count, now.addingTimeInterval(wait))
        if failures.count > 100_000 { failures = failures.filter { $0.value.lockedUntil > now } }
        Self.count(name, in: &nameFailures, window: clientWindow, now: now)
        if let client { Self.count(client, in: &clientFailures, window: clientWindow, now: now) }
    }

    /// One more failure for `key` within its window (a new window when the last one ended); past
    /// 100,000 keys, the ended windows are forgotten.
    private static func count(
        _ key: String, in counts: inout [String: (count: Int, windowStart: Date)], window: TimeInterval, now: Date
    ) {
        if let entry = counts[key], entry.windowStart.addingTimeInterval(window) > now {
            counts[key] = (entry.count + 1, entry.windowStart)
        } else {
            counts[key] = (1, now)
        }
        if counts.count > 100_000 { counts = counts.filter { $0.value.windowStart.addingTimeInterval(window) > now } }
    }

    public func succeeded(_ name: String, client: String?) { failures[Attempts(name: name, client: client)] = nil }
}

/// Too many failed sign-ins for one name: the answer says when to try again.
public struct SignInThrottled: Error, LocalizedError, Equatable {
    public var retryAfter: Int
    /// Whether the address the attempts came from is throttled, rather than the account's name.
    public var client: Bool

    public init(retryAfter: Int, client: Bool = false) {
        self.retryAfter = retryAfter
        self.client = client
    }

    public var errorDescription: String? {
        "too many failed sign-ins \(client ? "from this address" : "for this account"); try again in \(retryAfter) s"
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
