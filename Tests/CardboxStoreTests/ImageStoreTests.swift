import CardboxCore
import CardboxImaging
import CardboxSync
import Foundation
import Testing

@testable import CardboxStore

@Suite("Images entering the store: decoded, shrunk when large, kept with a thumbnail")
struct StoredImageTests {
    func listItem(_ store: CardboxStore) throws -> ItemID {
        let list = try store.createList(name: "L")
        return try store.addItem(to: list.id, title: "receipt").id
    }

    @Test("a card's image is stored with its thumbnail, and both go when nothing names the image")
    func thumbnailLifecycle() throws {
        let store = try TestStore.make()
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let photo = try ImageIngest.sample(width: 800, height: 600, format: .jpeg)
        let card = try store.addCard(to: deck.id, CardDraft(front: "gato", back: "cat"), image: photo)
        let hash = try #require(card.imageHash)
        let thumbnail = try store.imageThumbnail(sha256: hash)
        #expect(thumbnail.width == 800 && thumbnail.height == 600)
        #expect(thumbnail.thumbnail.width == 256 && thumbnail.thumbnail.height == 192)
        #expect(ImageFormat.detect(thumbnail.thumbnail.data) == .jpeg)
        #expect(try store.rowCount("imageThumbnail") == 1)
        _ = try store.editCard(card.id, CardChanges(removeImage: true))
        #expect(try store.rowCount("image") == 0)
        #expect(try store.rowCount("imageThumbnail") == 0)
    }

    @Test("a photo larger than 2048 px is stored shrunk; its SHA-256 is the stored bytes'")
    func shrinksLargePhotos() throws {
        let store = try TestStore.make()
        let item = try listItem(store)
        let photo = try ImageIngest.sample(width: 4032, height: 3024, format: .jpeg)
        let image = try store.addItemImage(to: item, data: photo)
        let stored = try store.imageData(sha256: image.sha256)
        #expect(stored.data != photo && stored.mimeType == "image/jpeg")
        #expect(try ImageIngest.ingest(stored.data).width == 2048)
        #expect(sha256Hex(stored.data) == image.sha256)
    }

    @Test("a damaged or truncated image is refused and changes nothing")
    func refused() throws {
        let store = try TestStore.make()
        let item = try listItem(store)
        let photo = try ImageIngest.sample(width: 300, height: 200, format: .jpeg)
        let changes = try store.changeCount()
        #expect(throws: CardboxError.self) { _ = try store.addItemImage(to: item, data: photo.prefix(photo.count / 2)) }
        #expect(try store.rowCount("image") == 0)
        #expect(try store.rowCount("itemImage") == 0)
        #expect(try store.changeCount() == changes)
    }

    @Test("an image fetched by sync keeps its bytes, and a thumbnail is made for it")
    func fetched() throws {
        let store = try TestStore.make()
        let photo = try ImageIngest.sample(width: 3000, height: 2000, format: .jpeg)
        try store.storeFetchedImage(photo, sha256: sha256Hex(photo))
        #expect(try store.imageData(sha256: sha256Hex(photo)).data == photo)
        #expect(try store.imageThumbnail(sha256: sha256Hex(photo)).width == 3000)
        let cut = photo.prefix(photo.count - 500)
        #expect(throws: CardboxError.self) { try store.storeFetchedImage(cut, sha256: sha256Hex(cut)) }
    }

    @Test("an image without a thumbnail (an older store's) gets one when first asked")
    func lazyThumbnail() throws {
        let store = try TestStore.make()
        let item = try listItem(store)
        let image = try store.addItemImage(to: item, data: TestStore.png(3))
        try store.write { tx in try tx.db.execute(sql: "DELETE FROM imageThumbnail") }
        #expect(try store.rowCount("imageThumbnail") == 0)
        #expect(try store.imageThumbnail(sha256: image.sha256).width == 8)
        #expect(try store.rowCount("imageThumbnail") == 1)
    }

    @Test("a backup's images are checked on restore and get thumbnails")
    func restore() throws {
        let store = try TestStore.make()
        let item = try listItem(store)
        _ = try store.addItemImage(to: item, data: TestStore.png(4))
        var snapshot = try store.snapshot()
        let restored = try TestStore.make()
        _ = try restored.restore(snapshot)
        #expect(try restored.rowCount("imageThumbnail") == 1)
        let broken = try TestStore.make()
        var row = try #require(snapshot.tables["image"]?.first)
        row["data"] = .object(["base64": .string(Data("not an image".utf8).base64EncodedString())])
        snapshot.tables["image"] = [row]
        #expect(throws: CardboxError.self) { _ = try broken.restore(snapshot) }
        #expect(try broken.rowCount("item") == 0)
    }
}
