import CardboxCore
import CardboxSync
import Foundation
import GRDB

/// What to do with an imported record whose id the store already has.
public enum DuplicatePolicy: String, Sendable, CaseIterable, Codable {
    /// Leave the existing record as it is (the default: an import never overwrites by surprise).
    case skip
    /// Replace the existing record (for a list: with its items and their images).
    case replace
    /// Import the record as a new copy with a new id.
    case copy
}

/// A list to import, validated field by field by the caller's format reader.
public struct ListImport: Sendable {
    public var id: UUID
    public var name: String
    public var createdAt: Date
    public var modifiedAt: Date
    public var items: [ItemImport]

    public init(id: UUID, name: String, createdAt: Date, modifiedAt: Date, items: [ItemImport]) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.items = items
    }
}

public struct ItemImport: Sendable {
    public var id: UUID
    public var title: String
    public var description: String
    public var quantity: Int32?
    public var isCrossedOut: Bool
    public var createdAt: Date
    public var modifiedAt: Date
    /// Images in order (id when the file gives one), each already checked (JPEG/PNG/HEIC, ≤ 5 MB).
    public var images: [(id: UUID?, data: Data)]

    public init(
        id: UUID, title: String, description: String, quantity: Int32?, isCrossedOut: Bool, createdAt: Date,
        modifiedAt: Date, images: [(id: UUID?, data: Data)]
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.quantity = quantity
        self.isCrossedOut = isCrossedOut
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.images = images
    }
}

/// What an import did, per kind of record.
public struct ImportReport: Codable, Sendable, Equatable {
    public var created: [String: Int] = [:]
    public var replaced: [String: Int] = [:]
    public var skipped: [String: Int] = [:]
    /// What the format could not carry over, said plainly (e.g. "3 cloze notes").
    public var notImported: [String] = []
    /// Where the fields of the file went, when that is not obvious (an Anki note type's extra fields).
    public var fieldMapping: [String] = []

    public init() {}

    mutating func count(_ kind: String, _ outcome: KeyPath<ImportReport, [String: Int]>) {
        switch outcome {
        case \ImportReport.created: created[kind, default: 0] += 1
        case \ImportReport.replaced: replaced[kind, default: 0] += 1
        default: skipped[kind, default: 0] += 1
        }
    }
}

extension CardboxStore {
    /// The settings a ListAll file carries (seed 002's `UserData`).
    static let listAllSettings = ["showCrossedOutItems", "exportPreferences"]

    /// Imports lists with their items and images in one transaction: all of them or, on any error,
    /// none. New lists go after the user's lists, in the order given; items keep the order given.
    public func importLists(_ lists: [ListImport], settings: UserSettings?, onDuplicate policy: DuplicatePolicy)
        throws -> ImportReport
    {
        let images = lists.flatMap { list in list.items.flatMap { item in item.images.map { ($0.data, "image") } } }
        return try write(decodingImages: images) { tx in
            var report = ImportReport()
            for list in lists {
                try tx.importList(list, policy: policy, report: &report)
            }
            if let settings {
                // Only what a ListAll file's userData holds: the store's other settings (the study
                // day's start, how long rejected suggestions are kept) are not the file's to change.
                let stored = try Self.storedSettings(settings)
                for key in Self.listAllSettings { try tx.writeSetting(key, stored[key]!) }
            }
            return report
        }
    }

    /// Every list with its items (crossed-out ones included) and each image's bytes, for export.
    public func listsForExport(_ reference: ListID?) throws -> [(list: ItemList, images: [ItemID: [Data]])] {
        let lists =
            try reference.map { [try list($0, includeCrossedOut: true)] }
            ?? self.lists().map {
                try list($0.id, includeCrossedOut: true)
            }
        return try lists.map { list in
            var images: [ItemID: [Data]] = [:]
            for item in list.items ?? [] {
                images[item.id] = try (item.images ?? []).map { try imageData(sha256: $0.sha256).data }
            }
            return (list, images)
        }
    }
}

extension WriteContext {
    fileprivate func exists(_ entity: Entity, _ id: String) throws -> Bool {
        try context.count("SELECT COUNT(*) FROM \(entity.rawValue) WHERE \(entity.binding("id"))", [id]) > 0
    }

    fileprivate func importList(_ list: ListImport, policy: DuplicatePolicy, report: inout ImportReport) throws {
        var id = list.id.storage
        var replacedItems: Set<String> = []
        if try exists(.itemList, id) {
            switch policy {
            case .skip:
                report.count("list", \.skipped)
                for _ in list.items { report.count("item", \.skipped) }
                return
            case .replace:
                replacedItems = Set(
                    try String.fetchAll(
                        db.cachedStatement(sql: "SELECT id FROM item WHERE listId = ?"),
                        arguments: [id]))
                try deleteListRows(id)
                report.count("list", \.replaced)
            case .copy:
                id = newID()
                report.count("list", \.created)
            }
        } else {
            report.count("list", \.created)
        }
        try insert(
            .itemList, id: id,
            [
                (.name, list.name), (.position, try position(.itemList, parentId: nil, at: nil)), (.isArchived, 0),
                (.createdAt, list.createdAt.storageMillis), (.modifiedAt, list.modifiedAt.storageMillis),
            ])
        var previous: String? = nil
        for item in list.items {
            var itemId = item.id.storage
            if try exists(.item, itemId) {
                switch policy {
                case .skip:
                    report.count("item", \.skipped)
                    continue
                case .replace:
                    try deleteItemRows(itemId)
                    report.count("item", \.replaced)
                case .copy:
                    itemId = newID()
                    report.count("item", \.created)
                }
            } else {
                report.count("item", replacedItems.contains(itemId) ? \.replaced : \.created)
            }
            let key = try PositionKey.between(previous, nil)
            previous = key
            try insert(
                .item, id: itemId,
                [
                    (.listId, id), (.title, item.title), (.description, item.description),
                    (.quantity, item.quantity),
                    (.position, key), (.isCrossedOut, item.isCrossedOut.storage),
                    (.createdAt, item.createdAt.storageMillis), (.modifiedAt, item.modifiedAt.storageMillis),
                ])
            var imageKey: String? = nil
            for image in item.images {
                let (hash, _) = try storeImage(image.data)
                let next = try PositionKey.between(imageKey, nil)
                imageKey = next
                var imageId = image.id?.storage ?? newID()
                if try policy == .copy || exists(.itemImage, imageId) { imageId = newID() }
                try insert(
                    .itemImage, id: imageId,
                    [(.itemId, itemId), (.imageHash, hash), (.position, next), (.createdAt, nowMillis)])
                report.count("image", \.created)
            }
        }
    }

    /// Deletes a list with its items and images, then the image bytes nothing uses any more.
    func deleteListRows(_ id: String) throws {
        let hashes = try String.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT itemImage.imageHash FROM itemImage JOIN item ON item.id = itemImage.itemId
                    WHERE item.listId = ?
                    """), arguments: [id])
        try delete(.itemList, id: id)
        try collectImages(hashes)
    }

    /// Deletes an item with its images, then the image bytes nothing uses any more.
    func deleteItemRows(_ id: String) throws {
        let hashes = try String.fetchAll(
            db.cachedStatement(sql: "SELECT imageHash FROM itemImage WHERE itemId = ?"),
            arguments: [id])
        try delete(.item, id: id)
        try collectImages(hashes)
    }
}
