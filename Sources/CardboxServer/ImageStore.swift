import CardboxCore
import CardboxImaging
import CardboxSync
import Crypto
import Foundation

/// Image bytes per account, by SHA-256: uploaded once, fetched on demand.
public protocol ImageStore: Sendable {
    /// Keeps the bytes (already checked); storing the same image twice changes nothing.
    func putImage(_ image: CheckedImage, account: UUID) async throws
    func image(_ sha256: String, account: UUID) async throws -> CheckedImage?
    /// Which of `hashes` the account has no bytes for.
    func missingImages(_ hashes: [String], account: UUID) async throws -> [String]
}

/// Image bytes that passed seed 002's rules (JPEG, PNG or HEIC by content, at most 5 MB) and
/// whose SHA-256 is the one they were sent under.
public struct CheckedImage: Sendable, Equatable {
    public let sha256: String
    public let mimeType: String
    public let data: Data

    /// Checks the type, the size and the hash, then decodes the whole image (a damaged, truncated
    /// or oversized one is refused; its bytes are kept as sent, since the hash names them).
    public init(_ data: Data, sha256 claimed: String) throws {
        let format = try ImageFormat.validate(data)
        let hash = sha256Hex(data)
        guard hash == claimed.lowercased() else {
            throw CardboxError.invalid(field: "image", reason: "its SHA-256 is \(hash), not \(claimed)")
        }
        _ = try ImageIngest.ingest(data, keepBytes: true)
        self.init(sha256: hash, mimeType: format.mimeType, data: data)
    }

    /// Bytes as stored (checked when they were put).
    package init(sha256: String, mimeType: String, data: Data) {
        self.sha256 = sha256
        self.mimeType = mimeType
        self.data = data
    }

    /// A SHA-256 as the API takes it: 64 lowercase hex digits.
    public static func checkHash(_ text: String) throws -> String {
        guard text.count == 64, text.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw CardboxError.invalid(field: "sha256", reason: "'\(text.prefix(80))' is not 64 lowercase hex digits")
        }
        return text
    }
}
