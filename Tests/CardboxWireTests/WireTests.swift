import CardboxCore
import CardboxSync
import CardboxWire
import Foundation
import Testing

@Suite("The sync API's bodies")
struct WireTests {
    @Test("a body that is not what the route takes is refused naming the member and what it must be")
    func refusalsNameTheMember() throws {
        let cases: [(String, String)] = [
            (#"{"user": "ana", "password": "correct horse"}"#, "device: is required"),
            (#"{"user": "ana", "password": 7, "device": "phone"}"#, "password: must be a string"),
            (#"{"user": "ana", "password": null, "device": "phone"}"#, "password: must be a string, not null"),
            (#"["ana"]"#, "body: must be an object"),
            ("ana", "body: is not JSON"),
        ]
        for (text, message) in cases {
            do {
                _ = try WireCoding.decode(SignInRequest.self, from: Data(text.utf8))
                Issue.record("\(text) was read")
            } catch let error as CardboxError {
                #expect(error.errorDescription == message, "\(text)")
            }
        }
        let hashes = #"{"sha256": ["ab", 3]}"#
        #expect(throws: CardboxError.invalid(field: "sha256[1]", reason: "must be a string")) {
            try WireCoding.decode(MissingImagesRequest.self, from: Data(hashes.utf8))
        }
    }

    @Test("an /api/v1 body refuses a member it does not know, at any depth; a quantity may be left, cleared or set")
    func closedBodies() throws {
        #expect(throws: CardboxError.invalid(field: "note", reason: "is not a field of this request")) {
            try WireCoding.decode(CardEditRequest.self, from: Data(#"{"notes": "a", "note": "b"}"#.utf8))
        }
        let answers = #"{"answers": [{"id": "a", "card": "b", "rating": 3, "answeredAt": "t", "durationMS": 5}]}"#
        #expect(throws: CardboxError.invalid(field: "answers[0].durationMS", reason: "is not a field of this request"))
        {
            try WireCoding.decode(GivenAnswersRequest.self, from: Data(answers.utf8))
        }
        #expect(throws: CardboxError.invalid(field: "answers[0].rating", reason: "must be a whole number")) {
            let answer = #"{"id": "a", "card": "b", "rating": "3", "answeredAt": "t"}"#
            return try WireCoding.decode(GivenAnswersRequest.self, from: Data(#"{"answers": [\#(answer)]}"#.utf8))
        }
        // Foundation's own words are not passed on: a fraction where a whole number goes.
        #expect(
            throws: CardboxError.invalid(field: "body", reason: "holds a number where a whole number in range goes")
        ) {
            try WireCoding.decode(AnswerRequest.self, from: Data(#"{"card": "c", "rating": 3.5}"#.utf8))
        }
        // A generic caller gets the closed check too.
        func generic<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
            try WireCoding.decode(type, from: Data(text.utf8))
        }
        #expect(throws: CardboxError.invalid(field: "nme", reason: "is not a field of this request")) {
            try generic(NameRequest.self, #"{"name": "a", "nme": "b"}"#)
        }
        // Left out, a member means "unchanged"; null is refused, but where the document allows it.
        #expect(throws: CardboxError.invalid(field: "tags", reason: "must not be null: give a value or leave it out")) {
            try WireCoding.decode(NewCardRequest.self, from: Data(#"{"front": "a", "tags": null}"#.utf8))
        }
        #expect(
            try WireCoding.decode(NewItemRequest.self, from: Data(#"{"title": "a", "quantity": null}"#.utf8)).quantity
                == nil)
        func quantity(_ text: String) throws -> Int?? {
            try WireCoding.decode(ItemEditRequest.self, from: Data(text.utf8)).quantity
        }
        #expect(try quantity("{}") == .none)
        #expect(try quantity(#"{"quantity": null}"#) == .some(.none))
        #expect(try quantity(#"{"quantity": 4}"#) == .some(.some(4)))
    }

    @Test("ids are written in lowercase, dates as ISO 8601, keys sorted; a receipt always names previousCursor")
    func writtenForm() throws {
        let id = UUID(uuidString: "01A25056-1BA8-7000-84D7-C912DB1B864D")!
        let account = WireAccount(id: id, name: "ana", plan: .free, createdAt: Date(timeIntervalSince1970: 0))
        #expect(
            try WireCoding.text(AccountReply(account: account))
                == #"{"account":{"createdAt":"1970-01-01T00:00:00Z","id":"01a25056-1ba8-7000-84d7-c912db1b864d","name":"ana","plan":"free"}}"#
        )
        #expect(
            try WireCoding.text(PushReceipt(cursor: 4, wasRetry: true))
                == #"{"cursor":4,"previousCursor":null,"retry":true}"#)
        let receipt = PushReceipt(cursor: 9, wasRetry: false, previousCursor: 7)
        #expect(try WireCoding.decode(PushReceipt.self, from: Data(try WireCoding.text(receipt).utf8)) == receipt)
        let session = SessionReply(
            token: "t", account: account,
            device: WireDevice(id: id, name: "phone", createdAt: Date(timeIntervalSince1970: 60)))
        #expect(try WireCoding.decode(SessionReply.self, from: Data(try WireCoding.text(session).utf8)) == session)
    }

    @Test("/api/v1's answers read back as written; a settings answer names a time zone left to the server as null")
    func apiAnswersReadBack() throws {
        func roundTrip<Reply: Codable & Equatable>(_ reply: Reply) throws -> Bool {
            try WireCoding.decode(Reply.self, from: Data(try WireCoding.text(reply).utf8)) == reply
        }
        let time = Date(timeIntervalSince1970: 86_400)
        let deck = Deck(
            id: DeckID(UUID()), name: "Spanish", frontLanguage: "es", backLanguage: "en", createdAt: time,
            modifiedAt: time)
        let list = ItemList(id: ListID(UUID()), name: "Groceries", orderNumber: 0, createdAt: time, modifiedAt: time)
        let counts = DeckCounts(currentCards: 3, dueCards: 1)
        #expect(try roundTrip(PresetDeckReply(deck: deck, cards: 40)))
        #expect(try roundTrip(FlowReply(moved: 2, counts: counts)))
        #expect(try roundTrip(CardsReply(cards: [], total: 0)))
        #expect(try roundTrip(ListShownReply(list: list, showCrossedOutItems: true)))
        let settings = SettingsReply(showCrossedOutItems: false, timeZone: nil)
        #expect(try roundTrip(settings))
        #expect(try WireCoding.text(settings) == #"{"showCrossedOutItems":false,"timeZone":null}"#)
    }

    @Test("a pull answer reads back as written, an exchange's with its push; a malformed one names what is wrong")
    func pullReply() throws {
        let changes = ChangeSet(accountId: UUID(), replicaId: "phone")
        let page = PullPage(changes: changes, cursor: 12, hasMore: true, plan: .premium)
        for reply in [PullReply(page: page), PullReply(page: page, pushed: PushReceipt(cursor: 11, wasRetry: false))] {
            #expect(try PullReply(text: reply.text) == reply)
        }
        #expect(PullReply(page: page).text.hasSuffix(#","cursor":12,"hasMore":true,"plan":"premium"}"#))
        #expect(throws: PullReply.Malformed(member: "hasMore")) {
            try PullReply(text: #"{"changes": \#(changes.jsonText), "cursor": 1}"#)
        }
        // A newer server's change set says why this Cardbox cannot read it.
        let newer = changes.jsonText.replacingOccurrences(of: #""registry":1"#, with: #""registry":99"#)
        #expect(newer != changes.jsonText)
        #expect(throws: CardboxError.self) {
            try PullReply(text: #"{"changes": \#(newer), "cursor": 1, "hasMore": false}"#)
        }
        do {
            _ = try PullReply(text: #"{"changes": \#(newer), "cursor": 1, "hasMore": false}"#)
        } catch {
            #expect("\(error.localizedDescription)".contains("99 is not known to this Cardbox"))
        }
    }
}
