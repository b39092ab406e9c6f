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

/// Reads a store from another thread while an image decodes, and notes whether the read got
/// through: it cannot while the decoding holds the store's writer (then the read waits for the
/// decoding, which waits for the read, until the probe gives up after 30 s: time enough for a read
/// on the busiest machine).
final class WriterProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var store: CardboxStore?
    private var outcomes: [Bool] = []

    func watch(_ store: CardboxStore) { lock.withLock { self.store = store } }

    var readsThatGotThrough: [Bool] { lock.withLock { outcomes } }

    func probe() {
        guard let store = lock.withLock({ self.store }) else { return }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? store.lists()
            done.signal()
        }
        let gotThrough = done.wait(timeout: .now() + 30) == .success
        lock.withLock { outcomes.append(gotThrough) }
    }
}

@Suite("Images are decoded before a write takes the store's writer")
struct ImagesDecodedBeforeWritingTests {
    @Test("every way an image enters the store decodes it first: the store stays open to others meanwhile")
    func decodedOutsideTheWrite() throws {
        let probe = WriterProbe()
        var environment = TestStore.environment(TestClock())
        environment.decodeImage = { data, field, keepBytes in
            probe.probe()
            return try ImageIngest.ingest(data, field: field, keepBytes: keepBytes)
        }
        let store = try CardboxStore.inMemory(environment: environment)
        probe.watch(store)
        _ = try store.setPlan(.premium)
        let deck = try store.createDeck(name: "D", frontLanguage: "es", backLanguage: "en")
        let card = try store.addCard(to: deck.id, CardDraft(front: "gato", back: "cat"), image: TestStore.png(1))
        _ = try store.editCard(card.id, CardChanges(image: TestStore.png(2)))
        _ = try store.addWrittenCards(
            to: deck.id, CardDraft(front: "{{c1::perro}} ladra", back: ""), image: TestStore.png(3))
        let suggestion = try store.addSuggestion(to: deck.id, SuggestionDraft(front: "pez", back: "fish"))
        _ = try store.markSuggestionReady(suggestion.id, image: TestStore.png(4))
        _ = try store.addSuggestion(to: deck.id, SuggestionDraft(front: "ave", back: "bird"), image: TestStore.png(5))
        let list = try store.createList(name: "L")
        _ = try store.addItemImage(to: try store.addItem(to: list.id, title: "receipt").id, data: TestStore.png(6))
        var imported = CardImport(deck: "D", draft: CardDraft(front: "oso", back: "bear"), source: "line 1")
        imported.image = TestStore.png(7)
        _ = try store.importCards([imported], newDeckLanguages: nil, onDuplicate: .skip)
        let item = ItemImport(
            id: UUID(), title: "photo", description: "", quantity: nil, isCrossedOut: false, createdAt: Date(),
            modifiedAt: Date(), images: [(nil, TestStore.png(8))])
        _ = try store.importLists(
            [ListImport(id: UUID(), name: "Imported", createdAt: Date(), modifiedAt: Date(), items: [item])],
            settings: nil, onDuplicate: .skip)
        #expect(probe.readsThatGotThrough.count == 8)
        let restored = try CardboxStore.inMemory(environment: environment)
        probe.watch(restored)
        _ = try restored.restore(try store.snapshot())
        let reads = probe.readsThatGotThrough
        // Eight images added, one of them replaced since; then each image the restore brings.
        #expect(try store.rowCount("image") == 7 && reads.count == 8 + 7)
        #expect(reads.allSatisfy { $0 }, "reads held up by a decoding: \(reads)")
    }
}
