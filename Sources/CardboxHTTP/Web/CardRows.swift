import CardboxCore

/// The rows of a deck's card list, written directly rather than through the template library.
///
/// Why: under `scripts/web_load.sh`, rendering these rows through swift-mustache took 69 % of the
/// deck page's time (perf): each `{{…}}` splits its name and tries a handful of dynamic casts at
/// every level of the context stack, and 50 cards make about 1,000 of them. The rest of the page
/// stays a template. Everything a person wrote goes through `WebText.escape`, as `{{…}}` does.
enum CardRows {
    /// One `<li>` per card: front, back, tags, and one form whose buttons favorite, archive (on the
    /// current tab) or restore (on the archived tab), and delete it (after a second click, on the
    /// button its Delete opens); `tab` brings the browser back.
    static func html(_ cards: [Card], deck: DeckID, csrf: String, tab: WebApp.DeckTab) -> String {
        var html = ""
        html.reserveCapacity(cards.count * 1_200)
        let csrf = WebText.escape(csrf)
        for card in cards {
            let base = "/decks/\(deck)/cards/\(card.id)"
            // A cloze card reads as its question, with the deletion it studies beside it.
            let front = WebText.escape(card.question)
            html +=
                "<li><strong><a href=\"\(base)\" aria-label=\"Edit \(front)\">\(front)</a></strong> <span>\(WebText.escape(card.back))</span>\n"
            if let number = card.clozeNumber { html += "<span class=\"tag\">cloze c\(number)</span>" }
            for tag in card.tags { html += "<span class=\"tag\">\(WebText.escape(tag))</span>" }
            let (mark, star) = card.isFavorite ? ("Unmark", "★") : ("Mark", "☆")
            html += """

                <form method="post" action="\(base)/favorite" class="actions">
                <input type="hidden" name="csrf" value="\(csrf)"><input type="hidden" name="tab" value="\(tab.rawValue)">
                <button type="submit" class="link" aria-pressed="\(card.isFavorite)" \
                aria-label="\(mark) \(front) as a favorite">\(star)</button>

                """
            switch tab {
            case .current:
                html += """
                    <button type="submit" formaction="\(base)/archive" class="link" aria-label="Archive \(front)">Archive</button>

                    """
            case .archived:
                html += """
                    <button type="submit" formaction="\(base)/restore" class="link" aria-label="Restore \(front)">Restore</button>

                    """
            case .suggestions, .waiting, .rejected: break
            }
            html += """
                <details class="confirm"><summary class="link danger" aria-label="Delete \(front)">Delete</summary>
                <button type="submit" formaction="\(base)/delete" class="danger small" \
                aria-label="Yes, delete \(front)">Yes, delete</button></details></form>
                </li>

                """
        }
        return html
    }
}
