import CardboxCore
import CardboxImaging
import CardboxSync
import Crypto
import Foundation
import GRDB

/// Image bytes travel beside change sets, not in them: records name images by SHA-256, and a device
/// uploads the bytes the server lacks and fetches the ones its records name but it lacks.
extension CardboxStore {
    /// Every image this store holds, by SHA-256.
    public func imageHashes() throws -> [String] {
        try read { context in try Self.imageHashes(context) }
    }

    static func imageHashes(_ context: StoreContext) throws -> [String] {
        try String.fetchAll(
            context.db.cachedStatement(sql: "SELECT sha256 FROM image ORDER BY sha256"),
            arguments: [])
    }

    /// Whether this store holds the bytes of image `sha256`.
    public func holdsImage(_ sha256: String) throws -> Bool {
        try read { context in
            try context.count(
                "SELECT COUNT(*) FROM image WHERE sha256 = ?", [sha256])
                > 0
        }
    }

    /// Images that cards, suggestions or item images name but whose bytes this store lacks (they
    /// arrived by sync before their bytes).
    public func missingImageHashes() throws -> [String] {
        try read { context in try Self.missingImageHashes(context) }
    }

    static func missingImageHashes(_ context: StoreContext) throws -> [String] {
        // Asked at every sync: prepared once.
        try String.fetchAll(
            context.db.cachedStatement(
                sql: """
                    SELECT DISTINCT imageHash FROM (
                        SELECT imageHash FROM card WHERE imageHash IS NOT NULL
                        UNION SELECT imageHash FROM suggestion WHERE imageHash IS NOT NULL
                        UNION SELECT imageHash FROM itemImage)
                    WHERE imageHash NOT IN (SELECT sha256 FROM image)
                    ORDER BY imageHash
                    """))
    }

    /// Keeps image bytes fetched from the server: checked by seed 002's rules, decoded, and checked
    /// against the hash they were asked for; kept as they are (the hash names them), with a thumbnail.
    public func storeFetchedImage(_ data: Data, sha256: String) throws {
        let hash = sha256Hex(data)
        guard hash == sha256 else {
            throw CardboxError.invalid(field: "image \(sha256)", reason: "the bytes' SHA-256 is \(hash)")
        }
        let image = try environment.decodeImage(data, "image \(sha256)", true)
        try translatingErrors {
            try writer.write { db in
                try StoredImages.save(
                    image, sha256: hash, now: environment.now().storageMillis, db)
            }
        }
    }
}
