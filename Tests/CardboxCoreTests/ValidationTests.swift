import Foundation
import Testing

@testable import CardboxCore

@Suite("Seed 002 validation rules")
struct ValidationTests {
    @Test("list name must be 1–100 characters")
    func listName() throws {
        #expect(throws: CardboxError.invalid(field: "name", reason: "cannot be empty")) {
            try ItemList.validateName("   ")
        }
        #expect(try ItemList.validateName(String(repeating: "a", count: 100)).count == 100)
        #expect(throws: CardboxError.invalid(field: "name", reason: "must be 1 to 100 characters, got 101")) {
            try ItemList.validateName(String(repeating: "a", count: 101))
        }
        #expect(try ItemList.validateName("  Groceries ") == "Groceries")
    }

    @Test("item title must be 1–200 characters, counted as a person counts")
    func itemTitle() throws {
        #expect(try Item.validateTitle(String(repeating: "é", count: 200)).count == 200)
        #expect(throws: CardboxError.self) { try Item.validateTitle(String(repeating: "b", count: 201)) }
        #expect(throws: CardboxError.self) { try Item.validateTitle("") }
        // Twelve flags are 12 characters, though 24 scalars.
        #expect(try Item.validateTitle(String(repeating: "🇪🇸", count: 12)).count == 12)
    }

    @Test("item description may hold up to 50,000 characters")
    func itemDescription() throws {
        #expect(try Item.validateDescription(String(repeating: "x", count: 50_000)).count == 50_000)
        #expect(
            throws: CardboxError.invalid(field: "description", reason: "must be at most 50000 characters, got 50001")
        ) {
            try Item.validateDescription(String(repeating: "x", count: 50_001))
        }
        #expect(try Item.validateDescription("") == "")
    }

    @Test("a character may be several Unicode scalars, but not without bound")
    func scalarsPerCharacter() throws {
        // 200 characters of a letter with two accents each (three scalars): a title, as a person counts.
        let accented = String(repeating: "e\u{301}\u{302}", count: 200)
        #expect(try Validate.text(accented, field: "title", length: Limits.itemTitle).count == 200)
        // One character carrying a thousand skin-tone modifiers is one character, and refused.
        let piled = "a" + String(repeating: "\u{1F3FB}", count: 1_000)
        #expect(piled.count == 1)
        #expect(
            throws: CardboxError.invalid(
                field: "title", reason: "must be at most 200 characters, and at most 800 Unicode scalars, got 1001")
        ) { try Validate.text(piled, field: "title", length: Limits.itemTitle) }
        #expect(throws: CardboxError.self) {
            try Validate.longText(
                piled + String(repeating: "\u{1F3FB}", count: 200_000), field: "back", maximum: Limits.cardBackMaximum)
        }
    }

    @Test("quantity is a 32-bit integer or nothing")
    func quantity() throws {
        #expect(try Validate.quantity(nil) == nil)
        #expect(try Validate.quantity(Int(Int32.max)) == Int32.max)
        #expect(try Validate.quantity(Int(Int32.min)) == Int32.min)
        #expect(throws: CardboxError.self) { try Validate.quantity(Int(Int32.max) + 1) }
        #expect(try Validate.quantity(text: " 3 ") == 3)
        #expect(try Validate.quantity(text: "") == nil)
        #expect(throws: CardboxError.invalid(field: "quantity", reason: "must be a whole number, got 'two'")) {
            try Validate.quantity(text: "two")
        }
    }

    @Test("decks need an ISO 639-1 language pair")
    func languages() throws {
        #expect(try Language.validate("ES", field: "frontLanguage") == "es")
        #expect(throws: CardboxError.self) { try Language.validate("xx", field: "frontLanguage") }
        #expect(throws: CardboxError.self) { try Language.validate("spa", field: "frontLanguage") }
        #expect(Language.name(of: "es") == "Spanish")
    }

    @Test("deck queue size is 0 or more; 0 turns automatic suggestions off")
    func queuedSuggestions() throws {
        let now = Date()
        var deck = Deck(
            id: DeckID(UUID()), name: "D", frontLanguage: "es", backLanguage: "en", createdAt: now, modifiedAt: now)
        #expect(deck.queuedSuggestions == 0)
        #expect(!deck.generatesSuggestionsAutomatically)
        deck.queuedSuggestions = 1
        #expect(deck.generatesSuggestionsAutomatically)
        #expect(throws: CardboxError.self) { try Deck.validateQueuedSuggestions(-1) }
    }

    @Test("settings are set from text, with errors naming the key")
    func settings() throws {
        var settings = UserSettings()
        #expect(settings.showCrossedOutItems == false)
        try settings.set("showCrossedOutItems", to: "true")
        #expect(settings.showCrossedOutItems)
        try settings.set("exportPreferences", to: #"{"format":"json"}"#)
        #expect(settings.exportPreferences == .object(["format": .string("json")]))
        #expect(throws: CardboxError.self) { try settings.set("exportPreferences", to: "[1]") }
        #expect(throws: CardboxError.self) { try settings.set("showCrossedOutItems", to: "maybe") }
        #expect(throws: CardboxError.self) { try settings.set("colour", to: "red") }
    }

    @Test("JSON text escapes quotes, control characters and sorts keys")
    func jsonText() throws {
        let value = JSONValue.object(["b": .string("a\"b\n\u{1}"), "a": .array([.int(1), .bool(true), .null])])
        #expect(value.jsonText == #"{"a":[1,true,null],"b":"a\"b\n\u0001"}"#)
        #expect(try JSONValue.parse(value.jsonText, field: "x") == value)
    }
}

@Suite("Seed 002 image rules")
struct ImageFormatTests {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46])
    static let heic = Data([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))

    @Test("formats are recognised by content")
    func detection() {
        #expect(ImageFormat.detect(Self.png) == .png)
        #expect(ImageFormat.detect(Self.jpeg) == .jpeg)
        #expect(ImageFormat.detect(Self.heic) == .heic)
        #expect(ImageFormat.detect(Data("GIF89a......".utf8)) == nil)
        let mp4 = Data([0, 0, 0, 20] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isom".utf8))
        #expect(ImageFormat.detect(mp4) == nil)
    }

    @Test("images are at most 5 MB")
    func size() throws {
        var atLimit = Self.png
        atLimit.append(Data(count: Limits.imageBytes - atLimit.count))
        #expect(try ImageFormat.validate(atLimit) == .png)
        atLimit.append(0)
        #expect(throws: CardboxError.self) { try ImageFormat.validate(atLimit) }
        #expect(throws: CardboxError.invalid(field: "image", reason: "is empty")) { try ImageFormat.validate(Data()) }
        #expect(throws: CardboxError.invalid(field: "image", reason: "is not a JPEG, PNG or HEIC image")) {
            try ImageFormat.validate(Data("hello".utf8))
        }
    }
}

@Suite("Hand-written fast paths")
struct FastPathTests {
    @Test("JSONWriter escapes like JSONSerialization reads back")
    func jsonWriter() throws {
        let samples = ["plain", "quote \" and \\ backslash", "tab\tnew\nline\r", "\u{0}\u{1f}", "ñandú 🇪🇸", ""]
        for sample in samples {
            var writer = JSONWriter()
            writer.string(sample)
            let decoded = try JSONSerialization.jsonObject(with: Data(writer.bytes), options: .fragmentsAllowed)
            #expect(decoded as? String == sample)
        }
        // A bridged (non-contiguous) string takes the slow path and gives the same text.
        let bridged = NSString(string: "a\"b").description
        var writer = JSONWriter()
        writer.string(bridged)
        #expect(writer.text == #""a\"b""#)
    }

    @Test("characters are counted as Swift counts them, from the bytes where the text is plain ASCII")
    func characterCounts() throws {
        let samples = [
            "", "abc", "a\r\nb", "a\rb", "\r\n\r\n", "tab\there", "é", "e\u{301}", "🇪🇸 flag", "ñandú", "x\n",
            NSString(string: "bridged a\r\nb").description,
        ]
        for sample in samples { #expect(Validate.characterCount(sample) == sample.count, "\(sample.debugDescription)") }
        // A text of CR LF pairs is refused by its characters, not its bytes.
        let pairs = String(repeating: "\r\n", count: 150)
        #expect(try Validate.longText(pairs, field: "notes", maximum: 150) == pairs)
        #expect(throws: CardboxError.self) { try Validate.longText(pairs + "x", field: "notes", maximum: 150) }
    }

    @Test("trimming matches Foundation's, without bridging")
    func trimming() {
        for sample in ["  a b  ", "\n\tx\u{3000}", "", "   ", "é", " 🇪🇸 "] {
            #expect(sample.trimmedWhitespace == sample.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test("control characters are exactly the Unicode general category Cc")
    func controlCharacters() {
        var mismatches: [String] = []
        for scalar in UInt32(0)...0x10FFFF {
            guard let value = Unicode.Scalar(scalar) else { continue }
            let control = value.properties.generalCategory == .control
            if value.isControlCharacter != control || "a\(Character(value))b".containsControlCharacters != control {
                mismatches.append("U+" + String(scalar, radix: 16))
            }
        }
        #expect(mismatches == [])
        #expect("tab\there, bell\u{7}, next line\u{85}".withoutControlCharacters == "tabhere, bell, next line")
        #expect("Ç and ÿ and \u{A0}".containsControlCharacters == false)
    }

    @Test("white space read from bytes is Unicode's White_Space, and tags fold as splitting on it does")
    func whiteSpace() throws {
        var mismatches: [String] = []
        for scalar in UInt32(0)...0x10FFFF {
            guard let value = Unicode.Scalar(scalar), value.isWhiteSpace != value.properties.isWhitespace else {
                continue
            }
            mismatches.append("U+" + String(scalar, radix: 16))
        }
        #expect(mismatches == [])
        // Every string of up to four of these pieces, folded the fast way or the slow one.
        let pieces = ["a", "B", " ", "  ", "\t", "\r\n", "\u{A0}", "é", "\u{3000}", "-"]
        var names = [""]
        for _ in 0..<4 { names += names.flatMap { name in pieces.map { name + $0 } } }
        for name in Set(names) {
            let slow = name.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(TagName.normalize(name) == slow.lowercased(), "\(name.debugDescription)")
            #expect(name.trimmedWhitespace == name.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}

@Suite("Wording")
struct WordingTests {
    @Test("one of something is singular; none and many are plural, irregular plurals as given")
    func counted() {
        #expect(Wording.counted(1, "card") == "1 card")
        #expect(Wording.counted(0, "card") == "0 cards" && Wording.counted(2, "due card") == "2 due cards")
        #expect(Wording.counted(3, "match", plural: "matches") == "3 matches")
    }
}
