import CardboxSync
import Foundation

/// An id's two stored forms: the text every reader sees (lowercase 8-4-4-4-12 hex digits) and the
/// 16 bytes a table that keeps ids as bytes stores (`SyncedEntity.keepsIdAsBytes`).
enum StoredID {
    /// The bytes of an id in its stored form; nil for any other text (upper case included, as a
    /// lookup by `id = ?` on text found no row for it either).
    static func bytes(_ text: String) -> Data? {
        guard UUID.isStoredForm(text), let uuid = UUID(uuidString: text) else { return nil }
        return withUnsafeBytes(of: uuid.uuid) { Data($0) }
    }
}
