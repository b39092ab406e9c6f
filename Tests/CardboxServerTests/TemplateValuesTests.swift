import CardboxCore
import Testing

@testable import CardboxHTTP

@Suite("View models as the templates read them")
struct TemplateValuesTests {
    struct Row: Encodable {
        let name: String
        let count: Int
        let selected: Bool
    }

    struct Page: Encodable {
        let title: String
        let share: Double
        let rows: [Row]
        let tags: [String]
        let missing: String?
        let present: String?
        let nested: Row?
    }

    @Test("a view model becomes dictionaries, arrays and plain values; a nil field is left out")
    func encoding() throws {
        let page = Page(
            title: "Decks", share: 0.5, rows: [Row(name: "a", count: 1, selected: true)], tags: ["x", "y"],
            missing: nil, present: "here", nested: Row(name: "b", count: 2, selected: false))
        let values = try #require(TemplateValues.of(page) as? [String: Any])
        #expect(Set(values.keys) == ["title", "share", "rows", "tags", "present", "nested"])
        #expect(values["title"] as? String == "Decks" && values["share"] as? Double == 0.5)
        let rows = try #require(values["rows"] as? [Any])
        let row = try #require(rows.first as? [String: Any])
        #expect(row["name"] as? String == "a" && row["count"] as? Int == 1 && row["selected"] as? Bool == true)
        #expect((values["tags"] as? [Any])?.compactMap { $0 as? String } == ["x", "y"])
        #expect((values["nested"] as? [String: Any])?["count"] as? Int == 2)
    }

    /// Encodes its optional through `encode(_:forKey:)`, nil included, as some Codable types do.
    struct Explicit: Encodable {
        let count: Int64
        let ratio: Float
        let missing: String?

        enum CodingKeys: String, CodingKey { case count, ratio, missing }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(count, forKey: .count)
            try container.encode(ratio, forKey: .ratio)
            try container.encode(missing, forKey: .missing)
        }
    }

    @Test("other number types stay numbers; a nil encoded explicitly is left out too")
    func explicitEncoding() throws {
        let values = try #require(TemplateValues.of(Explicit(count: 3, ratio: 0.5, missing: nil)) as? [String: Any])
        #expect(Set(values.keys) == ["count", "ratio"])
        #expect(values["count"] as? Int64 == 3 && values["ratio"] as? Float == 0.5)
    }

    @Test("a template reads them as it read hand-made dictionaries: sections, loops, names further up")
    func rendering() throws {
        let page = WebPageModels.lists([
            (.init(id: "l1", name: "Groceries <b>"), 3), (.init(id: "l2", name: "Books"), 0),
        ])
        let frame = WebPage.Frame(
            title: "Lists", live: nil, signedIn: true, account: nil, csrf: "token",
            assets: .init(css: "/a.css", javascript: "/a.js"), section: .init("lists"),
            error: nil, page: page)
        let html = WebTemplates.render(.lists, frame)
        // The navigation marks the part of the app the page is in, and that one only.
        #expect(html.contains(#"<a href="/lists" aria-current="page">"#))
        #expect(html.components(separatedBy: "aria-current").count == 2)
        #expect(html.contains("Groceries &lt;b&gt;"))
        #expect(html.contains(#"<a href="/lists/l2"><strong>Books</strong></a>"#))
        // The first list moves down only, the last up only; every form carries the frame's token.
        #expect(html.contains(#"value="1" class="link" aria-label="Move Groceries &lt;b&gt; down""#))
        #expect(!html.contains("Move Groceries &lt;b&gt; up") && !html.contains("Move Books down"))
        #expect(html.components(separatedBy: #"name="csrf" value="token""#).count == 5)
        #expect(!html.contains("No lists yet"))
    }

    @Test("a list's crossed-out items sink below the others; each moves up and down within its part")
    func crossedOutSink() {
        let items = [("A", true), ("B", false), ("C", true), ("D", false)].enumerated().map { index, item in
            WebPageModels.ListItem(
                id: item.0, title: item.0, description: "", quantity: nil, isCrossedOut: item.1, orderNumber: index,
                images: [])
        }
        let model = WebPageModels.list(
            .init(id: "l", name: "Groceries"), items: items, isEmpty: false, showCrossedOut: true, otherLists: [])
        guard case .object(let page) = model, case .array(let shown)? = page["items"] else {
            Issue.record("no items in \(model)")
            return
        }
        func field(_ row: JSONValue, _ path: String...) -> JSONValue? {
            path.reduce(row) { value, name in
                guard case .object(let fields)? = value else { return nil }
                return fields[name]
            }
        }
        #expect(shown.map { field($0, "title") } == ["B", "D", "A", "C"].map { .string($0) })
        // B moves down to D's place, D up to B's; A down to C's, C up to A's: never across the parts.
        #expect(shown.map { field($0, "arrows", "hasBefore") } == [false, true, false, true].map { .bool($0) })
        #expect(shown.map { field($0, "arrows", "hasAfter") } == [true, false, true, false].map { .bool($0) })
        #expect(field(shown[0], "arrows", "after") == .int(3) && field(shown[1], "arrows", "before") == .int(1))
        #expect(field(shown[2], "arrows", "after") == .int(2) && field(shown[3], "arrows", "before") == .int(0))
    }
}
