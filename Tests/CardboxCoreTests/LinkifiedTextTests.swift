import CardboxCore
import Foundation
import Testing

/// Seed 002: an item's description shows its web addresses as links. `HTMLText.linkified` has no
/// Foundation (the browser's WebAssembly build draws list pages with it), so it is held to what a
/// regular expression finds (`https?://[^\s<>"']+`, any case, a sentence's closing punctuation left
/// out), the rule the server used before.
@Suite("Descriptions: web addresses made links")
struct LinkifiedTextTests {
    /// The rule as a regular expression states it.
    static func expected(_ text: String) -> String {
        let address = try! NSRegularExpression(pattern: #"https?://[^\s<>"']+"#, options: [.caseInsensitive])
        var html = ""
        var last = text.startIndex
        for match in address.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard var range = Range(match.range, in: text) else { continue }
            while let end = text[range].last, ".,;:!?)".contains(end) {
                range = range.lowerBound..<text.index(before: range.upperBound)
            }
            let link = HTMLText.escape(String(text[range]))
            html += HTMLText.escape(String(text[last..<range.lowerBound]))
            html += #"<a href="\#(link)" rel="noopener noreferrer nofollow" target="_blank">\#(link)</a>"#
            last = range.upperBound
        }
        return html + HTMLText.escape(String(text[last...]))
    }

    static let texts = [
        "", "plain", "see https://example.org/oat.", "(http://a.b/c), and HTTPS://X.Y/Z!",
        "http://", "http://.", "https://a.b/?q=1&r=<2>", "javascript:alert(1) http://ok.example",
        "two https://a.example https://b.example\u{A0}after", "quote \"https://a.example/\"x'",
        "é https://é.example/ñ\u{2003}rest", "httphttp://a.b", "hTtP://mixed.case:8080/x;y", "https://a.b\n",
        "a\u{301}https://a.b/\u{301}", "ftp://not.a.link",
    ]

    @Test("the same links as the regular expression, escaped the same, on every text")
    func sameAsTheRule() {
        for text in Self.texts { #expect(HTMLText.linkified(text) == Self.expected(text), "\(text)") }
    }

    @Test("an address is a link that opens apart; the full stop after it and anything not http(s) are text")
    func links() {
        #expect(
            HTMLText.linkified("Oat, see https://example.org/oat.")
                == #"Oat, see <a href="https://example.org/oat" rel="noopener noreferrer nofollow" target="_blank">"#
                + "https://example.org/oat</a>.")
        #expect(HTMLText.linkified("javascript:alert('x')") == "javascript:alert(&#39;x&#39;)")
    }
}
