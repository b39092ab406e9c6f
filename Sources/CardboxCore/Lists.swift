import Foundation

/// A list of items (seed 002's `List` entity).
public struct ItemList: Codable, Sendable, Equatable, Identifiable {
    public var id: ListID
    public var name: String
    /// Position among the user's lists, 0…n−1 (derived from the list's position key).
    public var orderNumber: Int
    public var isArchived: Bool
    public var createdAt: Date
    public var modifiedAt: Date
    /// Filled by `list show`; nil in listings.
    public var items: [Item]?

    public init(
        id: ListID, name: String, orderNumber: Int, isArchived: Bool = false, createdAt: Date, modifiedAt: Date,
        items: [Item]? = nil
    ) {
        self.id = id
        self.name = name
        self.orderNumber = orderNumber
        self.isArchived = isArchived
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.items = items
    }

    /// Seed 002: "Name must be 1-100 characters".
    public static func validateName(_ name: String) throws -> String {
        try Validate.text(name, field: "name", length: Limits.listName)
    }
}

/// An item of a list (seed 002's `Item` entity). `description` is the export format's name for
/// `itemDescription`.
public struct Item: Codable, Sendable, Equatable, Identifiable {
    public var id: ItemID
    public var listId: ListID
    public var title: String
    public var description: String
    public var quantity: Int32?
    public var orderNumber: Int
    public var isCrossedOut: Bool
    public var createdAt: Date
    public var modifiedAt: Date
    public var images: [ItemImage]?

    public init(
        id: ItemID, listId: ListID, title: String, description: String = "", quantity: Int32? = nil, orderNumber: Int,
        isCrossedOut: Bool = false, createdAt: Date, modifiedAt: Date, images: [ItemImage]? = nil
    ) {
        self.id = id
        self.listId = listId
        self.title = title
        self.description = description
        self.quantity = quantity
        self.orderNumber = orderNumber
        self.isCrossedOut = isCrossedOut
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.images = images
    }

    /// Every field, an empty quantity as `null`; `images` only when they were loaded.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(listId, forKey: .listId)
        try container.encode(title, forKey: .title)
        try container.encode(description, forKey: .description)
        try container.encode(quantity, forKey: .quantity)
        try container.encode(orderNumber, forKey: .orderNumber)
        try container.encode(isCrossedOut, forKey: .isCrossedOut)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(modifiedAt, forKey: .modifiedAt)
        try container.encodeIfPresent(images, forKey: .images)
    }

    /// Seed 002: "Title must be 1-200 characters".
    public static func validateTitle(_ title: String) throws -> String {
        try Validate.text(title, field: "title", length: Limits.itemTitle)
    }

    /// Seed 002: "Description can be up to 50,000 characters".
    public static func validateDescription(_ description: String) throws -> String {
        try Validate.longText(description, field: "description", maximum: Limits.itemDescriptionMaximum)
    }
}

/// An image of an item (seed 002's `ItemImage`). The bytes live in the content-addressed image store.
public struct ItemImage: Codable, Sendable, Equatable, Identifiable {
    public var id: ItemImageID
    public var itemId: ItemID
    public var orderNumber: Int
    public var mimeType: String
    public var byteCount: Int
    public var sha256: String
    public var createdAt: Date

    public init(
        id: ItemImageID, itemId: ItemID, orderNumber: Int, mimeType: String, byteCount: Int, sha256: String,
        createdAt: Date
    ) {
        self.id = id
        self.itemId = itemId
        self.orderNumber = orderNumber
        self.mimeType = mimeType
        self.byteCount = byteCount
        self.sha256 = sha256
        self.createdAt = createdAt
    }
}

/// The user's settings (seed 002's `UserData`).
public struct UserSettings: Codable, Sendable, Equatable {
    /// Whether lists show crossed-out items by default (seed 002: hidden by default).
    public var showCrossedOutItems: Bool
    /// Export settings, a JSON object.
    public var exportPreferences: JSONValue
    /// Rejected suggestions older than this many days are cleaned up automatically (seed 000).
    public var rejectedSuggestionRetentionDays: Int
    /// The hour (local time) at which a new study day starts (Anki's default: 4 a.m.).
    public var dayStartHour: Int = 4
    /// The person's time zone (an IANA name, "Europe/Madrid"), where their study days begin and end
    /// on the server's copy of the account; nil: the server's own. A device uses the zone it is in.
    public var timeZone: String?

    public init(
        showCrossedOutItems: Bool = false, exportPreferences: JSONValue = .object([:]),
        rejectedSuggestionRetentionDays: Int = 90
    ) {
        self.showCrossedOutItems = showCrossedOutItems
        self.exportPreferences = exportPreferences
        self.rejectedSuggestionRetentionDays = rejectedSuggestionRetentionDays
    }

    public static let keys = [
        "showCrossedOutItems", "exportPreferences", "rejectedSuggestionRetentionDays", "dayStartHour", "timeZone",
    ]

    /// Sets one setting from text, as typed on the command line; the error names the key.
    public mutating func set(_ key: String, to text: String) throws {
        switch key {
        case "showCrossedOutItems":
            guard let show = SettingFlag.read(text) else {
                throw CardboxError.invalid(field: key, reason: "must be true or false, got '\(text)'")
            }
            showCrossedOutItems = show
        case "exportPreferences":
            let value = try JSONValue.parse(text, field: key)
            guard case .object = value else {
                throw CardboxError.invalid(field: key, reason: "must be a JSON object, e.g. {\"format\":\"json\"}")
            }
            exportPreferences = value
        case "rejectedSuggestionRetentionDays":
            guard let days = Int(text), Self.retentionDaysRange.contains(days) else {
                throw CardboxError.invalid(
                    field: key, reason: "must be a whole number of days from 1 to 36500, got '\(text)'")
            }
            rejectedSuggestionRetentionDays = days
        case "dayStartHour":
            guard let hour = Int(text), Self.dayStartHours.contains(hour) else {
                throw CardboxError.invalid(field: key, reason: "must be an hour from 0 to 23, got '\(text)'")
            }
            dayStartHour = hour
        case "timeZone":
            guard Self.isTimeZone(text) else {
                throw CardboxError.invalid(
                    field: key, reason: "must be a time zone's name, e.g. Europe/Madrid, got '\(text.prefix(64))'")
            }
            timeZone = text
        default:
            throw CardboxError.invalid(
                field: "setting", reason: "unknown setting '\(key)' (known: \(Self.keys.joined(separator: ", ")))")
        }
    }
}

extension UserSettings {
    /// The longest time a rejected suggestion is kept, in days: a hundred years.
    public static let retentionDaysRange = 1...36_500
    public static let dayStartHours = 0...23

    /// Whether `name` names a time zone (an IANA name of at most 64 bytes).
    static func isTimeZone(_ name: String) -> Bool { name.utf8.count <= 64 && TimeZone(identifier: name) != nil }

    /// Takes one setting as a store keeps it (its key, its value's JSON) into these settings.
    /// Returns why the value is not one this setting may hold (the settings are then unchanged),
    /// or nil; a key this version does not know is kept by the store and ignored here.
    @discardableResult
    public mutating func takeStored(_ key: String, _ value: JSONValue) -> String? {
        switch (key, value) {
        case ("showCrossedOutItems", .bool(let flag)): showCrossedOutItems = flag
        case ("exportPreferences", .object): exportPreferences = value
        case ("rejectedSuggestionRetentionDays", .int(let days))
        where Self.retentionDaysRange.contains(Int(clamping: days)):
            rejectedSuggestionRetentionDays = Int(days)
        case ("dayStartHour", .int(let hour)) where Self.dayStartHours.contains(Int(clamping: hour)):
            dayStartHour = Int(hour)
        case ("timeZone", .string(let zone)) where Self.isTimeZone(zone): timeZone = zone
        case ("timeZone", .null): timeZone = nil
        case ("showCrossedOutItems", _): return "must be true or false"
        case ("exportPreferences", _): return "must be a JSON object"
        case ("rejectedSuggestionRetentionDays", _): return "must be a whole number of days from 1 to 36500"
        case ("dayStartHour", _): return "must be an hour from 0 to 23"
        case ("timeZone", _): return "must be a time zone's name, e.g. Europe/Madrid, or null"
        default: break
        }
        return nil
    }
}

/// What a person (or an import) gives to make an item; validated by `validated()`.
public struct ItemDraft: Sendable, Equatable {
    public var title: String
    public var description: String
    public var quantity: Int32?

    public init(title: String, description: String = "", quantity: Int32? = nil) {
        self.title = title
        self.description = description
        self.quantity = quantity
    }

    public func validated() throws -> ItemDraft {
        ItemDraft(
            title: try Item.validateTitle(title), description: try Item.validateDescription(description),
            quantity: quantity)
    }
}
