import CardboxCore
import CardboxImaging
import Foundation
import GRDB

/// Stored images' thumbnails and dimensions (the `imageThumbnail` table).
enum StoredImages {
    /// Keeps an ingested image's bytes once per content, with its thumbnail.
    static func save(_ image: IngestedImage, sha256: String, now: Int64, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO image (sha256, mimeType, byteCount, data, createdAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (sha256) DO NOTHING
                """, arguments: [sha256, image.format.mimeType, image.data.count, image.data, now])
        try saveThumbnail(image, sha256: sha256, db)
    }

    static func saveThumbnail(_ image: IngestedImage, sha256: String, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO imageThumbnail
                  (sha256, width, height, mimeType, thumbnailWidth, thumbnailHeight, data)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (sha256) DO NOTHING
                """,
            arguments: [
                sha256, image.width, image.height, image.thumbnail.mimeType, image.thumbnail.width,
                image.thumbnail.height, image.thumbnail.data,
            ])
    }
}

/// A stored image's thumbnail, with the full image's dimensions.
public struct ImageThumbnail: Sendable, Equatable {
    public var sha256: String
    public var width: Int
    public var height: Int
    public var thumbnail: Thumbnail
}

extension CardboxStore {
    /// The thumbnail of a stored image, made (and kept) now when the image came without one.
    public func imageThumbnail(sha256: String) throws -> ImageThumbnail {
        if let stored = try read({ context in try Self.thumbnail(sha256, context) }) { return stored }
        let image = try imageData(sha256: sha256)
        let ingested = try environment.decodeImage(image.data, "image \(sha256)", true)
        try translatingErrors {
            try writer.write { db in
                try StoredImages.saveThumbnail(ingested, sha256: sha256, db)
            }
        }
        return ImageThumbnail(
            sha256: sha256, width: ingested.width, height: ingested.height, thumbnail: ingested.thumbnail)
    }

    private static func thumbnail(_ sha256: String, _ context: StoreContext) throws -> ImageThumbnail? {
        try Row.fetchOne(
            context.db,
            sql: """
                SELECT width, height, mimeType, thumbnailWidth, thumbnailHeight, data FROM imageThumbnail
                WHERE sha256 = ?
                """, arguments: [sha256]
        ).map { row in
            ImageThumbnail(
                sha256: sha256, width: row["width"], height: row["height"],
                thumbnail: Thumbnail(
                    data: row["data"], mimeType: row["mimeType"], width: row["thumbnailWidth"],
                    height: row["thumbnailHeight"]))
        }
    }
}
