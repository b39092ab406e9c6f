import CardboxConvergence
import CardboxCore
import CardboxStore
import CardboxSync
import Foundation
import Testing

/// Adding and editing cards on the browser's replica (`ReplicaRecords`' `CardWrites`), natively and
/// in the WebAssembly module under Node, against the store's: the same writes, at the same times,
/// with the same ids, leave the same records (clocks included) and refuse the same things with the
/// same messages, the plan's card limit among them.
@Suite("Cards: the browser's replica adds and edits as the store does")
struct CardWritesParityTests {
    enum Write: Sendable {
        case add(front: String, back: String = "", notes: String = "", tags: [String] = [])
        /// Edits card `card` (by the order the cards were made).
        case edit(card: Int, front: String? = nil, back: String? = nil, notes: String? = nil)
        case editUnknown
        /// Edits the text of the tagged cloze card made before the replica was (its first card).
        case editTagged(front: String)
        /// Card `card`'s editor sent: any of its fields, tags, favorite mark, picture removed.
        case editAll(card: Int, ReplicaRecords.CardEdit)
        /// Archives, restores, deletes or toggles the favorite mark of card `card`.
        case move(card: Int, ReplicaRecords.CardMove)
    }

    static let writes: [Write] = [
        .editTagged(front: "{{c1::rojo}} y {{c2::azul}} y {{c3::verde}}"),
        .add(front: "hola", back: "hello", notes: "a greeting"), .add(front: "  adiós  ", back: "bye"),
        .add(front: "  "), .add(front: "{{c1::Paris}} is in {{c2::France}}", back: "geography"),
        .edit(card: 0, back: "hi", notes: ""), .edit(card: 1, front: "adiós"),
        .edit(card: 2, front: "{{c1::Paris}} is in {{c2::France}}, {{c3::Europe}}"),
        .edit(card: 3, back: "geography, still"), .edit(card: 2, front: "{{c1::Paris}} is somewhere"),
        .edit(card: 0, front: ""), .editUnknown,
        .add(front: "{{c1::a}} {{c2::b}} {{c3::c}}"), .add(front: "perro", back: "dog"),
        .add(front: "gato", back: "cat"), .add(front: "{{c1::x}}", back: String(repeating: "y", count: 50_001)),
    ]

    /// Tags found or made by name, and the editor's every field.
    static let editorWrites: [Write] = [
        .add(front: "casa", back: "house", tags: ["Home", " home ", "places"]),
        .add(front: "{{c1::mesa}} y {{c2::silla}}", tags: ["furniture"]),
        .add(front: "x", tags: [String(repeating: "t", count: 51)]),
        .editAll(
            card: 0,
            .init(
                front: "casa", back: "home", notes: "", cardType: "Vocabulary", frontLanguage: "FR",
                backLanguage: "en", isFavorite: true, tags: ["places", "new   tag"])),
        .editAll(card: 0, .init(tags: [])), .editAll(card: 0, .init(isFavorite: false, removeImage: true)),
        .editAll(card: 1, .init(front: "{{c1::mesa}} y {{c2::silla}} y {{c3::cama}}", tags: ["furniture", "HOME"])),
        .editAll(card: 0, .init(cardType: "cloze")), .editAll(card: 1, .init(cardType: "basic")),
        .editAll(card: 0, .init(frontLanguage: "xx")), .editAll(card: 2, .init(cardType: "banana")),
        .editAll(card: 0, .init(notes: String(repeating: "n", count: 50_001), frontLanguage: "es")),
        .editAll(card: 2, .init(back: "furniture", isFavorite: true, tags: ["home"])),
        .move(card: 0, .archive), .move(card: 0, .archive), .move(card: 0, .favorite), .move(card: 0, .restore),
        .move(card: 1, .delete), .move(card: 1, .delete), .move(card: 2, .favorite), .move(card: 2, .favorite),
        .move(card: 3, .archive),
    ]

    struct Outcome {
        var store: String
        var replica: String
        var refusals: [String?]
        var replicaRefusals: [String?]
        var browserRequest: [String: Any]
    }

    static func run(_ writes: [Write]) throws -> Outcome {
        let setting = ListWritesParityTests.Setting(seed: 1)
        let store = try CardboxStore.inMemory(environment: setting.environment())
        let deck = try store.createDeck(name: "Words", frontLanguage: "es", backLanguage: "en")
        // A tagged cloze text's two cards, made before the replica: a deletion an edit adds makes a
        // card with the text's tags. The limit leaves the writes below the same room as before.
        let tagged = try store.addWrittenCards(
            to: deck.id, CardDraft(front: "{{c1::rojo}} y {{c2::azul}}", back: "colores", tags: ["colors", "basic"]))
        _ = try store.setPlan(.free, freeCardLimit: 11)
        var (replica, startTexts) = try ListWritesParityTests.replica(of: store, at: setting.milliseconds)
        let deckId = deck.id.uuid.uuidString.lowercased()
        let account = store.accountId.uuidString.lowercased()
        var outcome = Outcome(store: "", replica: "", refusals: [], replicaRefusals: [], browserRequest: [:])
        var browserWrites: [[String: Any]] = []
        var cards: [String] = []
        let receivedAt = setting.milliseconds
        func cardIds() throws -> Set<String> {
            Set(try store.cards(in: deck.id).map { $0.id.uuid.uuidString.lowercased() })
        }
        for write in writes {
            setting.milliseconds += 1_000
            let now = Int64(setting.milliseconds)
            var (refusal, replicaRefusal): (String?, String?) = (nil, nil)
            let before = try cardIds()
            switch write {
            case .add(let front, let back, let notes, let tags):
                do {
                    _ = try store.addWrittenCards(
                        to: deck.id, CardDraft(front: front, back: back, notes: notes, tags: tags))
                } catch { refusal = error.localizedDescription }
                // The new cards' ids in the order the store made them (by deletion number: these
                // ids are random); fresh ones when it made none.
                let made = try store.cards(in: deck.id).sorted { ($0.clozeNumber ?? 0) < ($1.clozeNumber ?? 0) }
                    .map { $0.id.uuid.uuidString.lowercased() }.filter { !before.contains($0) }
                let ids = made.isEmpty ? (0..<4).map { _ in UUID().uuidString.lowercased() } : made
                do throws(CardboxError) {
                    let used = try replica.addWrittenCards(
                        deck: deckId, front: front, back: back, notes: notes, tags: tags, account: account, ids: ids,
                        at: now)
                    cards += used
                } catch { replicaRefusal = error.message }
                browserWrites.append([
                    "kind": "addCards",
                    "request": [
                        "deck": deckId, "front": front, "back": back, "notes": notes, "ids": ids,
                        "tags": tags.joined(separator: ","), "account": account,
                    ],
                    "now": now,
                ])
            case .move(let index, let move):
                let id = cards[index]
                do {
                    let card = try #require(CardID(id))
                    switch move {
                    case .archive, .restore: _ = try store.setArchived(card, move == .archive)
                    case .delete: try store.deleteCard(card)
                    case .favorite: _ = try store.setFavorite(card)
                    }
                } catch { refusal = error.localizedDescription }
                do throws(CardboxError) {
                    try replica.moveCard(card: id, deck: deckId, move, at: now)
                } catch { replicaRefusal = error.message }
                browserWrites.append([
                    "kind": "moveCard", "request": ["card": id, "deck": deckId, "move": move.rawValue], "now": now,
                ])
            case .editAll(let index, let edit):
                let id = cards[index]
                do {
                    _ = try store.editCard(
                        try #require(CardID(id)),
                        CardChanges(
                            front: edit.front, back: edit.back, cardType: edit.cardType, notes: edit.notes,
                            tags: edit.tags, removeImage: edit.removeImage, frontLanguage: edit.frontLanguage,
                            backLanguage: edit.backLanguage, isFavorite: edit.isFavorite))
                } catch { refusal = error.localizedDescription }
                let made = try cardIds().subtracting(before).sorted()
                do throws(CardboxError) {
                    try replica.editCard(card: id, edit, account: account, ids: made, at: now)
                } catch { replicaRefusal = error.message }
                cards += made
                var request: [String: Any] = ["card": id, "ids": made, "account": account]
                let texts = [
                    ("front", edit.front), ("back", edit.back), ("notes", edit.notes), ("cardType", edit.cardType),
                    ("frontLanguage", edit.frontLanguage), ("backLanguage", edit.backLanguage),
                    ("tags", edit.tags?.joined(separator: ", ")),
                ]
                for case (let name, let value?) in texts { request[name] = value }
                if let favorite = edit.isFavorite { request["isFavorite"] = favorite }
                if edit.removeImage { request["removeImage"] = true }
                browserWrites.append(["kind": "editCard", "request": request, "now": now])
            case .edit(let index, let front, let back, let notes):
                let id = cards[index]
                do {
                    _ = try store.editCard(
                        try #require(CardID(id)), CardChanges(front: front, back: back, notes: notes))
                } catch { refusal = error.localizedDescription }
                let made = try cardIds().subtracting(before).sorted()
                do throws(CardboxError) {
                    try replica.editCard(
                        card: id, .init(front: front, back: back, notes: notes), ids: made, at: now)
                } catch { replicaRefusal = error.message }
                cards += made
                var request: [String: Any] = ["card": id, "ids": made]
                if let front { request["front"] = front }
                if let back { request["back"] = back }
                if let notes { request["notes"] = notes }
                browserWrites.append(["kind": "editCard", "request": request, "now": now])
            case .editTagged(let front):
                let id = try #require(tagged.first { $0.clozeNumber == 1 }).id.uuid.uuidString.lowercased()
                do { _ = try store.editCard(try #require(CardID(id)), CardChanges(front: front)) } catch {
                    refusal = error.localizedDescription
                }
                let made = try cardIds().subtracting(before).sorted()
                do throws(CardboxError) {
                    try replica.editCard(card: id, .init(front: front), ids: made, at: now)
                } catch { replicaRefusal = error.message }
                browserWrites.append([
                    "kind": "editCard", "request": ["card": id, "front": front, "ids": made], "now": now,
                ])
            case .editUnknown:
                let id = "00000000-0000-4000-8000-000000000000"
                do { _ = try store.editCard(try #require(CardID(id)), CardChanges(back: "x")) } catch {
                    refusal = error.localizedDescription
                }
                do throws(CardboxError) {
                    try replica.editCard(card: id, .init(back: "x"), at: now)
                } catch { replicaRefusal = error.message }
                browserWrites.append(["kind": "editCard", "request": ["card": id, "back": "x"], "now": now])
            }
            outcome.refusals.append(refusal)
            outcome.replicaRefusals.append(replicaRefusal)
        }
        outcome.store = try store.canonicalDump()
        outcome.replica = replica.canonicalDump()
        outcome.browserRequest = [
            "replicaId": store.replicaId, "accountId": store.accountId.uuidString.lowercased(),
            "receivedAt": receivedAt, "changes": startTexts, "writes": browserWrites,
        ]
        return outcome
    }

    @Test("adds (cloze too), edits (a cloze text's siblings, a new deletion's card), the card limit, refusals")
    func sameRecords() throws {
        let outcome = try Self.run(Self.writes)
        #expect(outcome.replica == outcome.store)
        #expect(outcome.replicaRefusals == outcome.refusals)
        // An empty front twice, a dropped deletion, an unknown card, the card limit twice (a cloze
        // text's three cards reach it), a back too long (checked before the limit).
        #expect(outcome.refusals.compactMap { $0 }.count == 7)
        let limit = outcome.refusals.filter {
            $0?.hasPrefix("Card limit exceeded. You have 11 cards out of 11") == true
        }
        #expect(limit.count == 2)
        // The card the tagged text's new deletion made has the text's tags, as the store gives them.
        let links = outcome.store.split(separator: "\n").filter { $0.contains("\"entity\":\"cardTag\"") }
        #expect(links.count == 6)
        // Dropping two deletions names the first, whatever order the cards were stored in.
        let dropped = "front: no longer has the deletion c2, which card "
        #expect(outcome.refusals.contains { $0?.hasPrefix(dropped) == true })
        #expect(outcome.store.contains("\"{{c1::Paris}} is in {{c2::France}}, {{c3::Europe}}\""))
        #expect(outcome.store.contains("\"geography, still\"") && !outcome.store.contains("\"geography\""))
    }

    @Test("tags by name (one tag to every spelling), the editor's every field, archive, restore, favorite, delete")
    func editorRecords() throws {
        let outcome = try Self.run(Self.editorWrites)
        #expect(outcome.replica == outcome.store)
        #expect(outcome.replicaRefusals == outcome.refusals)
        // A tag too long, a card becoming a cloze card and back, a language that is none, a type
        // Cardbox does not know, notes too long, a card deleted twice.
        #expect(outcome.refusals.compactMap { $0 }.count == 7)
        #expect(outcome.refusals.contains { $0?.contains("'banana' is not a card type") == true })
        // The tagged text's two cards, casa, the three of mesa's text but the one deleted; one archived.
        let cards = outcome.store.split(separator: "\n").filter { $0.contains("\"entity\":\"card\"") }
        #expect(cards.count == 5 && cards.filter { $0.contains("\"isArchived\":true") }.count == 1)
        let tags = outcome.store.split(separator: "\n").filter { $0.contains("\"entity\":\"tag\"") }
        // colors and basic (the tagged text's), Home, places, furniture, "new tag".
        #expect(tags.count == 6)
        #expect(outcome.store.contains("\"new tag\"") && outcome.store.contains("\"vocabulary\""))
    }

    @Test("the WebAssembly module under Node: the same records and refusals")
    func sameRecordsInTheBrowser() throws {
        let (browser, folder) = try ReplicaWasmTests.node()
        defer { try? FileManager.default.removeItem(at: folder) }
        for writes in [Self.writes, Self.editorWrites] {
            let outcome = try Self.run(writes)
            let answer = try browser.send(outcome.browserRequest)
            #expect(answer["dump"] == .string(outcome.store))
            guard case .array(let refusals)? = answer["refusals"] else {
                Issue.record("no refusals in \(answer)")
                return
            }
            #expect(refusals == outcome.replicaRefusals.map { $0.map(JSONValue.string) ?? .null })
        }
    }
}
