/// The numbers of the data model, in one place. Seed 002 gives the ListAll ones; the others are ours
/// (the seeds are silent) and follow the same spirit.
public enum Limits {
    /// Seed 002: list name 1–100 characters.
    public static let listName = 1...100
    /// Seed 002: item title 1–200 characters.
    public static let itemTitle = 1...200
    /// Seed 002: item description up to 50,000 characters.
    public static let itemDescriptionMaximum = 50_000
    /// Seed 002: at most 10 images per item.
    public static let imagesPerItem = 10
    /// Seed 002: at most 5 MB per image (5 × 1024 × 1024 bytes).
    public static let imageBytes = 5 * 1024 * 1024
    /// Seed 001: the free plan's card limit (configurable per account).
    public static let freeCardLimit = 25
    /// Deck names and board titles: like list names.
    public static let deckName = 1...100
    public static let boardTitle = 1...200
    public static let cardTitle = 1...200
    public static let tagName = 1...50
    public static let cardType = 1...50
    public static let cardFrontMaximum = 10_000
    public static let cardBackMaximum = 50_000
}

/// Checks shared by every rule: trimming, lengths, ranges. Each failure names the field.
public enum Validate {
    /// Whether `text` is an id as Cardbox writes it: lowercase 8-4-4-4-12 hex digits (a UUID).
    public static func isStoredId(_ text: String) -> Bool {
        guard text.utf8.count == 36 else { return false }
        for (offset, byte) in text.utf8.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
        }
        return true
    }

    /// How many Unicode scalars a text may hold per character of its limit. A character can be
    /// several (a letter and its accents, an emoji and its modifiers: Devanagari and Vietnamese
    /// often take two or three), but one character followed by a megabyte of combining marks is
    /// refused. The API's document states the limits in scalars (JSON Schema's `maxLength`).
    public static let scalarsPerCharacter = 4

    /// Trims white space and checks the length in characters (grapheme clusters, as a person counts).
    public static func text(_ value: String, field: String, length: ClosedRange<Int>) throws(CardboxError) -> String {
        try scalars(value, field: field, maximum: length.upperBound)
        let trimmed = value.trimmedWhitespace
        let count = characterCount(trimmed)
        if count == 0 && length.lowerBound > 0 {
            throw CardboxError.invalid(field: field, reason: "cannot be empty")
        }
        if !length.contains(count) {
            throw CardboxError.invalid(
                field: field,
                reason: "must be \(length.lowerBound) to \(length.upperBound) characters, got \(count)")
        }
        return trimmed
    }

    /// Optional long text (descriptions, notes): kept as written, only its length is checked.
    public static func longText(_ value: String, field: String, maximum: Int) throws(CardboxError) -> String {
        try scalars(value, field: field, maximum: maximum)
        let count = characterCount(value)
        if count > maximum {
            throw CardboxError.invalid(field: field, reason: "must be at most \(maximum) characters, got \(count)")
        }
        return value
    }

    /// The number of characters, as `count` gives it, told from the bytes for ASCII text without a
    /// carriage return (one character a byte; CR LF is one character): most of what an import
    /// validates, where finding character boundaries was a third of validating a row.
    public static func characterCount(_ text: String) -> Int {
        let isPlain = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "\r") }
        }
        return isPlain == true ? text.utf8.count : text.count
    }

    /// Refuses a text of more Unicode scalars than `scalarsPerCharacter` times `maximum` characters.
    private static func scalars(_ value: String, field: String, maximum: Int) throws(CardboxError) {
        let bound = maximum * scalarsPerCharacter
        guard value.utf8.count > bound else { return }  // a scalar takes a byte at least
        let count = value.unicodeScalars.count
        guard count <= bound else {
            throw CardboxError.invalid(
                field: field,
                reason: "must be at most \(maximum) characters, and at most \(bound) Unicode scalars, got \(count)")
        }
    }

    /// Seed 002: "Quantity must be a valid integer (Int32) or nil".
    public static func quantity(_ value: Int?) throws(CardboxError) -> Int32? {
        guard let value else { return nil }
        guard let quantity = Int32(exactly: value) else {
            throw CardboxError.invalid(
                field: "quantity", reason: "must be a 32-bit integer (\(Int32.min) to \(Int32.max)), got \(value)")
        }
        return quantity
    }

    /// Parses a quantity typed by a person ("3", "-1", "" for none).
    public static func quantity(text: String) throws(CardboxError) -> Int32? {
        let trimmed = text.trimmedWhitespace
        if trimmed.isEmpty { return nil }
        guard let value = Int(trimmed) else {
            throw CardboxError.invalid(field: "quantity", reason: "must be a whole number, got '\(text)'")
        }
        return try quantity(value)
    }

    public static func nonNegative(_ value: Int, field: String) throws(CardboxError) -> Int {
        guard value >= 0 else { throw CardboxError.invalid(field: field, reason: "must be 0 or more, got \(value)") }
        return value
    }
}

extension String {
    /// Whether it holds a control character (NUL, a line break…): not in a name or a key.
    /// Read from the UTF-8 bytes: the general category Cc is a fixed set (U+0000–U+001F,
    /// U+007F–U+009F, stable by Unicode's policy), and looking each scalar's category up in the
    /// Unicode tables was most of validating a change set's replica ids.
    public var containsControlCharacters: Bool {
        var afterC2 = false
        for byte in utf8 {
            if byte < 0x20 || byte == 0x7F || (afterC2 && byte <= 0x9F) { return true }
            afterC2 = byte == 0xC2
        }
        return false
    }

    /// The string with its control characters left out.
    public var withoutControlCharacters: String {
        guard containsControlCharacters else { return self }
        return String(String.UnicodeScalarView(unicodeScalars.filter { !$0.isControlCharacter }))
    }

    /// The string without leading and trailing white space and newlines. Pure Swift: Foundation's
    /// `trimmingCharacters` bridges to NSString on Linux, which showed in batch-insert profiles.
    public var trimmedWhitespace: String {
        guard let first = unicodeScalars.first, let last = unicodeScalars.last else { return self }
        if !first.isWhiteSpace && !last.isWhiteSpace { return self }
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.isWhiteSpace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.isWhiteSpace })!
        return String(scalars[start...end])
    }
}

extension Unicode.Scalar {
    /// Unicode's White_Space property, answered without the property tables for ASCII (where it
    /// holds U+0009–U+000D and the space): every trimmed field of an import asks it twice.
    public var isWhiteSpace: Bool {
        isASCII ? value == 0x20 || (0x09...0x0D).contains(value) : properties.isWhitespace
    }

    /// Whether its general category is Cc (control): U+0000–U+001F and U+007F–U+009F.
    public var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}

/// The text rules every card and suggestion shares, on every replica.
public enum CardText {
    /// The type of every card that is not a cloze card, unless a person chose another.
    public static let defaultType = "basic"
    /// The types Cardbox knows: a card made or given a type gets one of these. "reversed" is the
    /// back-to-front card of an Anki note; "cloze" is made from a text's deletions.
    public static let types = ["basic", "reversed", "vocabulary", "phrase", "cloze"]

    /// A new card's type, one of `types` in any case.
    public static func cardType(_ type: String) throws(CardboxError) -> String {
        let type = try storedCardType(type)
        guard types.contains(type) else {
            throw CardboxError.invalid(
                field: "cardType", reason: "'\(type)' is not a card type; the types are \(Wording.either(types))")
        }
        return type
    }

    /// A type as a card may already hold it: a short identifier in lowercase. Another device or an
    /// older store may have given a type Cardbox does not know; the card keeps it until a person
    /// changes it (`cardType` checks a new one).
    public static func storedCardType(_ type: String) throws(CardboxError) -> String {
        try Validate.text(type, field: "cardType", length: Limits.cardType).lowercased()
    }

    /// The front: required, trimmed, at most 10,000 characters.
    public static func front(_ text: String) throws(CardboxError) -> String {
        try Validate.text(text, field: "front", length: 1...Limits.cardFrontMaximum)
    }

    /// The back: may be empty (an incomplete card), at most 50,000 characters.
    public static func back(_ text: String) throws(CardboxError) -> String {
        try Validate.longText(text, field: "back", maximum: Limits.cardBackMaximum)
    }

    /// A card's notes: at most 50,000 characters.
    public static func notes(_ text: String) throws(CardboxError) -> String {
        try Validate.longText(text, field: "notes", maximum: Limits.itemDescriptionMaximum)
    }
}

extension Limits {
    /// Seed 001's card limit: `adding` cards to an account holding `cardCount` is refused, whole,
    /// when it would pass `limit` (with the seed's message).
    public static func checkCardLimit(cardCount: Int, limit: Int, adding: Int) throws(CardboxError) {
        guard adding > 0, cardCount + adding > limit else { return }
        throw CardboxError.cardLimitExceeded(
            currentCount: cardCount, limit: limit, remainingCards: max(0, limit - cardCount), adding: adding)
    }
}

/// A yes-or-no setting as its text is stored and typed (`showCrossedOutItems`): one reading for the
/// store, the command line and the browser's replica.
public enum SettingFlag {
    /// true for "true", "yes", "on" or "1", false for "false", "no", "off" or "0", in any case; nil
    /// for any other text.
    public static func read(_ text: String) -> Bool? {
        // Lowered by hand: these words are ASCII, and the browser's build has no Unicode tables.
        let lowered = String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        switch lowered {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: return nil
        }
    }
}
