import CardboxCore
import CardboxScheduling
import CardboxStore
import Foundation

/// ListAll's export format, version 1.0 (seed 002): `version`, `exportDate`, `userData`, and `lists`
/// with `items` with `images` (base64 image data), ISO 8601 dates.
public enum ListAllFormat {
    public static let version = "1.0"

    struct Document: Codable {
        var version: String?
        var exportDate: String?
        var userData: UserData?
        var lists: [List]?
    }

    struct UserData: Codable {
        var showCrossedOutItems: Bool?
        var exportPreferences: JSONValue?
    }

    struct List: Codable {
        var id: String?
        var name: String?
        var orderNumber: Int?
        var createdAt: String?
        var modifiedAt: String?
        var items: [Item]?
    }

    struct Item: Codable {
        var id: String?
        var title: String?
        var description: String?
        var quantity: Int?
        var orderNumber: Int?
        var isCrossedOut: Bool?
        var createdAt: String?
        var modifiedAt: String?
        var images: [Image]?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(title, forKey: .title)
            try container.encode(description, forKey: .description)
            try container.encode(quantity, forKey: .quantity)
            try container.encode(orderNumber, forKey: .orderNumber)
            try container.encode(isCrossedOut, forKey: .isCrossedOut)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(modifiedAt, forKey: .modifiedAt)
            try container.encode(images, forKey: .images)
        }
    }

    struct Image: Codable {
        var id: String?
        var imageData: String?
        var orderNumber: Int?
    }

    // MARK: Writing

    /// The export of `lists` (each with its items and their images' bytes) and the user's settings.
    public static func export(
        _ lists: [(list: ItemList, images: [ItemID: [Data]])], settings: UserSettings, exportDate: Date
    ) throws -> Data {
        let formatter = ISO8601DateFormatter()
        let document = Document(
            version: version, exportDate: formatter.string(from: exportDate),
            userData: UserData(
                showCrossedOutItems: settings.showCrossedOutItems, exportPreferences: settings.exportPreferences),
            lists: lists.map { list, images in
                List(
                    id: list.id.uuid.uuidString, name: list.name, orderNumber: list.orderNumber,
                    createdAt: formatter.string(from: list.createdAt),
                    modifiedAt: formatter.string(from: list.modifiedAt),
                    items: (list.items ?? []).map { item in
                        Item(
                            id: item.id.uuid.uuidString, title: item.title, description: item.description,
                            quantity: item.quantity.map(Int.init), orderNumber: item.orderNumber,
                            isCrossedOut: item.isCrossedOut, createdAt: formatter.string(from: item.createdAt),
                            modifiedAt: formatter.string(from: item.modifiedAt),
                            images: zip(item.images ?? [], images[item.id] ?? []).map { image, data in
                                Image(
                                    id: image.id.uuid.uuidString, imageData: data.base64EncodedString(),
                                    orderNumber: image.orderNumber)
                            })
                    })
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    // MARK: Reading

    /// Whether `data` looks like a ListAll export (for detecting an import's format).
    /// Whether a JSON document has a ListAll export's top level (`version` and `lists`), told from a
    /// depth-guarded byte scan; the document is parsed once, by `read`.
    public static func matches(_ data: Data) -> Bool {
        guard let keys = try? InputGuard.topLevelKeys(data, file: "") else { return false }
        return keys.isSuperset(of: ["version", "lists"])
    }

    /// Reads and checks a ListAll export: every rule of the data model, ids unique within the file,
    /// images real JPEG/PNG/HEIC within the limits. Errors name the file, the record and the field.
    public static func read(_ data: Data, file: String) throws -> (lists: [ListImport], settings: UserSettings?) {
        let document = try InputGuard.decode(Document.self, from: data, file: file)
        let fail = { (path: String, reason: String) in CardboxError.invalid(field: "\(file): \(path)", reason: reason) }
        guard let version = document.version else { throw fail("version", "is required") }
        guard version == Self.version else { throw fail("version", "'\(version)' is not supported (this reads 1.0)") }
        guard let lists = document.lists else { throw fail("lists", "is required") }
        var settings: UserSettings?
        if let userData = document.userData {
            var read = UserSettings()
            read.showCrossedOutItems = userData.showCrossedOutItems ?? read.showCrossedOutItems
            if let preferences = userData.exportPreferences {
                guard case .object = preferences else {
                    throw fail("userData.exportPreferences", "must be a JSON object")
                }
                read.exportPreferences = preferences
            }
            settings = read
        }
        var seenIds: [UUID: String] = [:]
        func uniqueID(_ text: String?, _ path: String) throws -> UUID {
            guard let text else { throw fail("\(path).id", "is required") }
            guard let id = UUID(uuidString: text) else { throw fail("\(path).id", "'\(text)' is not a UUID") }
            if let first = seenIds[id] { throw fail("\(path).id", "repeats the id of \(first)") }
            seenIds[id] = path
            return id
        }
        func date(_ text: String?, _ path: String) throws -> Date {
            guard let text else { return Date() }
            guard let date = ISOTime.parse(text) else { throw fail(path, "'\(text)' is not an ISO 8601 date") }
            return date
        }
        func rule<T>(_ path: String, _ check: () throws -> T) throws -> T {
            do {
                return try check()
            } catch CardboxError.invalid(_, let reason) {
                throw fail(path, reason)
            }
        }
        let imported = try lists.enumerated().map { listIndex, list -> (order: Int, value: ListImport) in
            let path = "lists[\(listIndex)]"
            let id = try uniqueID(list.id, path)
            guard let name = list.name else { throw fail("\(path).name", "is required") }
            let items = try (list.items ?? []).enumerated().map { itemIndex, item -> (order: Int, value: ItemImport) in
                let itemPath = "\(path).items[\(itemIndex)]"
                let itemID = try uniqueID(item.id, itemPath)
                guard let title = item.title else { throw fail("\(itemPath).title", "is required") }
                let images = item.images ?? []
                guard images.count <= Limits.imagesPerItem else {
                    throw fail(
                        "\(itemPath).images",
                        "has \(images.count) images; an item holds at most \(Limits.imagesPerItem)")
                }
                let ordered = images.enumerated().sorted {
                    ($0.element.orderNumber ?? $0.offset, $0.offset) < ($1.element.orderNumber ?? $1.offset, $1.offset)
                }
                let imageData = try ordered.map { imageIndex, image -> (id: UUID?, data: Data) in
                    let imagePath = "\(itemPath).images[\(imageIndex)].imageData"
                    guard let text = image.imageData else { throw fail(imagePath, "is required") }
                    guard let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                        throw fail(imagePath, "is not base64 data")
                    }
                    _ = try rule(imagePath) { try ImageFormat.validate(bytes) }
                    let id = try image.id.map { text -> UUID in
                        guard let id = UUID(uuidString: text) else {
                            throw fail("\(itemPath).images[\(imageIndex)].id", "'\(text)' is not a UUID")
                        }
                        return id
                    }
                    return (id, bytes)
                }
                return (
                    item.orderNumber ?? itemIndex,
                    ItemImport(
                        id: itemID, title: try rule("\(itemPath).title") { try CardboxCore.Item.validateTitle(title) },
                        description: try rule("\(itemPath).description") {
                            try CardboxCore.Item.validateDescription(item.description ?? "")
                        },
                        quantity: try rule("\(itemPath).quantity") { try Validate.quantity(item.quantity) },
                        isCrossedOut: item.isCrossedOut ?? false,
                        createdAt: try date(item.createdAt, "\(itemPath).createdAt"),
                        modifiedAt: try date(item.modifiedAt, "\(itemPath).modifiedAt"), images: imageData)
                )
            }
            return (
                list.orderNumber ?? listIndex,
                ListImport(
                    id: id, name: try rule("\(path).name") { try ItemList.validateName(name) },
                    createdAt: try date(list.createdAt, "\(path).createdAt"),
                    modifiedAt: try date(list.modifiedAt, "\(path).modifiedAt"),
                    items: Self.ordered(items))
            )
        }
        return (Self.ordered(imported), settings)
    }

    /// Records sorted by their order numbers; equal or missing numbers keep the file's order
    /// (seed 002: "preserve order numbers or reassign if conflicts").
    static func ordered<T>(_ records: [(order: Int, value: T)]) -> [T] {
        records.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }.map(
            \.element.value)
    }
}
