import CardboxCore
import CardboxExchange
import CardboxImaging
import CardboxStore
import Foundation
import Testing

let png = try! ImageIngest.sample(width: 10, height: 8, seed: 3, format: .png)

@Suite("ListAll JSON v1.0 (seed 002)")
struct ListAllFormatTests {
    func sample() throws -> CardboxStore {
        let store = try CardboxStore.inMemory()
        _ = try store.createList(name: "Groceries")
        _ = try store.createList(name: "Hardware")
        let milk = try store.addItem(
            to: try store.resolve("Groceries"), title: "Milk", description: "2% organic", quantity: 2)
        _ = try store.addItem(to: try store.resolve("Groceries"), title: "Eggs")
        _ = try store.crossItem(milk.id)
        _ = try store.addItemImage(to: milk.id, data: png)
        _ = try store.addItem(to: try store.resolve("Hardware"), title: "Nails", quantity: 100)
        _ = try store.setSetting("showCrossedOutItems", to: "true")
        return store
    }

    func export(_ store: CardboxStore) throws -> [String: Any] {
        let data = try ListAllFormat.export(
            try store.listsForExport(nil), settings: try store.settings(), exportDate: Date())
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["exportDate"] = nil
        return object
    }

    func importing(_ data: Data, into store: CardboxStore, _ policy: DuplicatePolicy = .skip) throws -> ImportReport {
        let (lists, settings) = try ListAllFormat.read(data, file: "lists.json")
        return try store.importLists(lists, settings: settings, onDuplicate: policy)
    }

    @Test("export → import into an empty store → export gives the same document")
    func roundTrip() throws {
        let original = try sample()
        let data = try ListAllFormat.export(
            try original.listsForExport(nil), settings: try original.settings(), exportDate: Date())
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(document["version"] as? String == "1.0")
        let lists = try #require(document["lists"] as? [[String: Any]])
        let items = try #require(lists[0]["items"] as? [[String: Any]])
        #expect(items[0]["title"] as? String == "Milk" && items[0]["description"] as? String == "2% organic")
        #expect(items[0]["quantity"] as? Int == 2 && items[0]["isCrossedOut"] as? Bool == true)
        let images = try #require(items[0]["images"] as? [[String: Any]])
        #expect(Data(base64Encoded: try #require(images[0]["imageData"] as? String)) == png)
        let copy = try CardboxStore.inMemory()
        let report = try importing(data, into: copy)
        #expect(report.created == ["list": 2, "item": 3, "image": 1])
        #expect(NSDictionary(dictionary: try export(copy)).isEqual(to: try export(original)))
        #expect(try copy.settings().showCrossedOutItems)
    }

    @Test("dates are seed 002's: ISO 8601 in UTC to the second; the export preferences travel")
    func datesAndPreferences() throws {
        let store = try sample()
        // Preferences arrive with an import (the store keeps them as they are); the store's
        // settings a ListAll file does not hold stay as they were.
        _ = try store.setSetting("dayStartHour", to: "6")
        _ = try store.setSetting("rejectedSuggestionRetentionDays", to: "30")
        let (lists, settings) = try ListAllFormat.read(
            Data(
                #"{"version":"1.0","userData":{"showCrossedOutItems":true,"exportPreferences":{"format":"json"}},"lists":[]}"#
                    .utf8),
            file: "lists.json")
        _ = try store.importLists(lists, settings: settings, onDuplicate: .skip)
        #expect(try store.settings().dayStartHour == 6 && store.settings().rejectedSuggestionRetentionDays == 30)
        let data = try ListAllFormat.export(
            try store.listsForExport(nil), settings: try store.settings(),
            exportDate: Date(timeIntervalSince1970: 1_705_314_600.25))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(document["exportDate"] as? String == "2024-01-15T10:30:00Z")
        let userData = try #require(document["userData"] as? [String: Any])
        #expect((userData["exportPreferences"] as? [String: Any])?["format"] as? String == "json")
        #expect(userData["showCrossedOutItems"] as? Bool == true)
        let list = try #require((document["lists"] as? [[String: Any]])?.first)
        let item = try #require((list["items"] as? [[String: Any]])?.first)
        let stamp = try Regex(#"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"#)
        for date in [list["createdAt"], list["modifiedAt"], item["createdAt"], item["modifiedAt"]] {
            #expect((date as? String)?.wholeMatch(of: stamp) != nil, "\(String(describing: date))")
        }
    }

    @Test("ids the store has: skipped by default, replaced, or copied with new ids")
    func duplicates() throws {
        let store = try sample()
        let data = try ListAllFormat.export(
            try store.listsForExport(nil), settings: try store.settings(), exportDate: Date())
        _ = try store.renameList(try store.resolve("Groceries"), to: "Changed")
        let skipped = try importing(data, into: store)
        #expect(skipped.created.isEmpty && skipped.skipped == ["list": 2, "item": 3])
        #expect(try store.lists().map(\.name) == ["Changed", "Hardware"])
        let replaced = try importing(data, into: store, .replace)
        #expect(replaced.replaced == ["list": 2, "item": 3])
        #expect(try store.lists().map(\.name).sorted() == ["Groceries", "Hardware"])
        #expect(
            try store.list(try store.resolve("Groceries"), includeCrossedOut: true).items?.map(\.title) == [
                "Milk", "Eggs",
            ])
        let copied = try importing(data, into: store, .copy)
        #expect(copied.created == ["list": 2, "item": 3, "image": 1])
        #expect(try store.lists().count == 4)
    }

    @Test("order numbers are kept; conflicting ones fall back to the file's order")
    func order() throws {
        let json = """
            {"version": "1.0", "lists": [
              {"id": "00000000-0000-4000-8000-000000000001", "name": "B", "orderNumber": 1, "items": [
                {"id": "00000000-0000-4000-8000-00000000000a", "title": "second", "orderNumber": 1},
                {"id": "00000000-0000-4000-8000-00000000000b", "title": "first", "orderNumber": 0},
                {"id": "00000000-0000-4000-8000-00000000000c", "title": "third", "orderNumber": 1}]},
              {"id": "00000000-0000-4000-8000-000000000002", "name": "A", "orderNumber": 0}]}
            """
        let store = try CardboxStore.inMemory()
        _ = try importing(Data(json.utf8), into: store)
        #expect(try store.lists().map(\.name) == ["A", "B"])
        #expect(try store.list(try store.resolve("B")).items?.map(\.title) == ["first", "second", "third"])
        #expect(try store.list(try store.resolve("B")).items?.map(\.orderNumber) == [0, 1, 2])
    }

    @Test("seed 002's example imports (with real ids)")
    func seedExample() throws {
        let json = """
            {
              "version": "1.0",
              "exportDate": "2024-01-15T10:30:00Z",
              "userData": {"showCrossedOutItems": true, "exportPreferences": {"format": "json"}},
              "lists": [{
                "id": "5f0c8e4e-7f3a-4b5e-9c1d-2a3b4c5d6e7f", "name": "Grocery List", "orderNumber": 0,
                "createdAt": "2024-01-15T10:00:00Z", "modifiedAt": "2024-01-15T10:30:00Z",
                "items": [{
                  "id": "6a1d9f5f-8a4b-4c6f-8d2e-3b4c5d6e7f80", "title": "Milk", "description": "2% organic milk",
                  "quantity": 1, "orderNumber": 0, "isCrossedOut": false,
                  "createdAt": "2024-01-15T10:00:00Z", "modifiedAt": "2024-01-15T10:00:00Z",
                  "images": [{"id": "7b2e0a6a-9b5c-4d70-9e3f-4c5d6e7f8091", "imageData": "\(png.base64EncodedString())", "orderNumber": 0}]
                }]
              }]
            }
            """
        let store = try CardboxStore.inMemory()
        let report = try importing(Data(json.utf8), into: store)
        #expect(report.created == ["list": 1, "item": 1, "image": 1])
        let list = try store.list(try store.resolve("Grocery List"))
        #expect(list.createdAt == Date(timeIntervalSince1970: 1_705_312_800))
        let milk = try #require(list.items?.first)
        #expect(milk.quantity == 1 && milk.description == "2% organic milk" && milk.images?.count == 1)
        #expect(try store.settings().exportPreferences == .object(["format": .string("json")]))
    }

    @Test(
        "bad input names the file, the record and the field, and changes nothing",
        arguments: [
            (#"{"version":"2.0","lists":[]}"#, "lists.json: version: '2.0' is not supported (this reads 1.0)"),
            (#"{"version":"1.0"}"#, "lists.json: lists: is required"),
            (#"{"version":"1.0","lists":[{"name":"x"}]}"#, "lists.json: lists[0].id: is required"),
            (#"{"version":"1.0","lists":[{"id":"nope","name":"x"}]}"#, "lists.json: lists[0].id: 'nope' is not a UUID"),
            (
                #"{"version":"1.0","lists":[{"id":"00000000-0000-4000-8000-000000000001","name":""}]}"#,
                "lists.json: lists[0].name: cannot be empty"
            ),
            (
                #"{"version":"1.0","lists":[{"id":"00000000-0000-4000-8000-000000000001","name":"x","items":[{"id":"00000000-0000-4000-8000-000000000001","title":"t"}]}]}"#,
                "lists.json: lists[0].items[0].id: repeats the id of lists[0]"
            ),
            (
                #"{"version":"1.0","lists":[{"id":"00000000-0000-4000-8000-000000000001","name":"x","items":[{"id":"00000000-0000-4000-8000-000000000002","title":"t","quantity":3000000000}]}]}"#,
                "lists.json: lists[0].items[0].quantity: must be a 32-bit integer"
            ),
            (
                #"{"version":"1.0","lists":[{"id":"00000000-0000-4000-8000-000000000001","name":"x","items":[{"id":"00000000-0000-4000-8000-000000000002","title":"t","images":[{"imageData":"aGVsbG8="}]}]}]}"#,
                "lists.json: lists[0].items[0].images[0].imageData: is not a JPEG, PNG or HEIC image"
            ),
            (
                #"{"version":"1.0","lists":[{"id":"00000000-0000-4000-8000-000000000001","name":"x","items":[{"id":"00000000-0000-4000-8000-000000000002","title":"t","images":["#
                    + Array(repeating: #"{"imageData":"aGVsbG8="}"#, count: 11).joined(separator: ",") + "]}]}]}",
                "lists.json: lists[0].items[0].images: has 11 images; an item holds at most 10"
            ),
            (
                #"{"version":"1.0","lists":[{"id":"00000000-0000-4000-8000-000000000001","name":"x","items":[{"id":"00000000-0000-4000-8000-000000000002","title":7}]}]}"#,
                "lists.json: lists[0].items[0].title: has the wrong type"
            ),
            (
                "{\"version\":\"1.0\",\"lists\":[" + String(repeating: "[", count: 100),
                "lists.json: JSON is nested more than 64 levels deep"
            ),
            ("not json", "lists.json: is not valid JSON"),
        ])
    func badInput(json: String, message: String) throws {
        let store = try sample()
        let before = try export(store)
        #expect {
            let (lists, settings) = try ListAllFormat.read(Data(json.utf8), file: "lists.json")
            _ = try store.importLists(lists, settings: settings, onDuplicate: .skip)
        } throws: { error in
            (error as? CardboxError)?.localizedDescription.hasPrefix(message) == true
        }
        #expect(NSDictionary(dictionary: try export(store)).isEqual(to: before))
    }

    @Test("a failure late in a valid-looking file leaves nothing behind")
    func allOrNothing() throws {
        let store = try CardboxStore.inMemory()
        let other = try CardboxStore.inMemory()
        _ = try other.createList(name: "Taken")
        // Two lists, the second one's item id already used by another list in the same store.
        _ = try store.createList(name: "Existing")
        let item = try store.addItem(to: try store.resolve("Existing"), title: "x")
        let json = """
            {"version":"1.0","lists":[
              {"id":"00000000-0000-4000-8000-000000000001","name":"New","items":[{"id":"00000000-0000-4000-8000-000000000002","title":"ok"}]},
              {"id":"00000000-0000-4000-8000-000000000003","name":"Other","items":[{"id":"\(item.id)","title":"dup"}]}]}
            """
        let report = try importing(Data(json.utf8), into: store)
        #expect(report.created == ["list": 2, "item": 1] && report.skipped == ["item": 1])
        #expect(try store.lists().count == 3)
    }
}
