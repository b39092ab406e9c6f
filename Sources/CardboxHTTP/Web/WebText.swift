import CardboxCore
import Foundation

/// Text a person wrote, made into HTML: escaped, with its web addresses made links (seed 002: an
/// item's description shows its links clickable).
enum WebText {
    /// `text` escaped for HTML, each http(s) address in it a link that opens apart. Only addresses
    /// that start with http:// or https:// become links, so nothing typed can make a `javascript:` one.
    static func linkified(_ text: String) -> String {
        var html = ""
        var last = text.startIndex
        for match in address.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard var range = Range(match.range, in: text) else { continue }
            // A sentence's full stop or closing bracket after an address is not part of it.
            while let end = text[range].last, ".,;:!?)".contains(end) {
                range = range.lowerBound..<text.index(before: range.upperBound)
            }
            let link = escape(String(text[range]))
            html += escape(String(text[last..<range.lowerBound]))
            html += #"<a href="\#(link)" rel="noopener noreferrer nofollow" target="_blank">\#(link)</a>"#
            last = range.upperBound
        }
        return html + escape(String(text[last...]))
    }

    /// A web address: http:// or https:// and everything up to a space, a quote or an angle bracket.
    private static let address = try! NSRegularExpression(pattern: #"https?://[^\s<>"']+"#, options: [.caseInsensitive])

    /// The HTML escape the templates use for `{{…}}` (see `HTMLText.escape`).
    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// One side of a cloze card as HTML: its deletions `<span class="cloze">` — `[...]` (or the hint)
    /// on the question, the answer once revealed; the rest escaped. Any other card: its front.
    static func cardSide(_ card: Card, revealed: Bool) -> String {
        guard let number = card.clozeNumber else { return escape(card.front) }
        return Cloze.html(of: card.front, number: number, revealed: revealed)
    }
}
