import CardboxCore
import Foundation

/// Text a person wrote, made into HTML (the links in it: `HTMLText.linkified`).
enum WebText {
    /// The HTML escape the templates use for `{{…}}` (see `HTMLText.escape`).
    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// One side of a cloze card as HTML: its deletions `<span class="cloze">` — `[...]` (or the hint)
    /// on the question, the answer once revealed; the rest escaped. Any other card: its front.
    static func cardSide(_ card: Card, revealed: Bool) -> String {
        WebPageModels.cardSide(front: card.front, clozeNumber: card.clozeNumber, revealed: revealed)
    }
}
