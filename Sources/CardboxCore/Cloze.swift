import Foundation

/// Cloze deletions, as Anki writes them: `{{c1::answer}}` or `{{c1::answer::hint}}` inside a text.
/// A text makes one card per deletion number; each card hides its own deletions (`[...]`, or
/// `[hint]`) and shows the others as plain text, and its answer shows the text with its deletions
/// marked.
public enum Cloze {
    /// The type of every cloze card.
    public static let cardType = "cloze"
    /// Deletion numbers a text may use (`c1` … `c999`); `{{c0::…}}` and longer numbers stay text.
    public static let numberRange = 1...999

    public struct Deletion: Sendable, Equatable {
        public var number: Int
        public var answer: String
        public var hint: String?
        /// Where `{{c…}}` sits in the text.
        public var range: Range<String.Index>
    }

    /// A piece of a cloze card's side: text as written, a deletion hidden (with its hint), or a
    /// deletion shown as the answer.
    public enum Piece: Sendable, Equatable {
        case text(String)
        case hidden(hint: String?)
        case revealed(String)
    }

    /// Anki's pattern: the answer runs to the first `::` or `}}`; a hint to the `}}`. Newlines count.
    /// (Foundation's expressions: a Swift `Regex` kept in a static reads as leaked to LeakSanitizer,
    /// which the fuzz targets run under.)
    private static let pattern = try! NSRegularExpression(
        pattern: #"\{\{c(\d{1,3})::(.*?)(?:::(.*?))?\}\}"#, options: [.dotMatchesLineSeparators])

    /// Every deletion of `text`, in order.
    public static func deletions(in text: String) -> [Deletion] {
        // Most texts have none: a plain search spares them the pattern (imports check every front).
        guard text.utf8.contains(UInt8(ascii: "{")), text.contains("{{c") else { return [] }
        let scalars = text.unicodeScalars
        // Matches fall on Unicode scalars, not always on characters (a deletion before a combining
        // mark or an emoji modifier): each range is taken over the scalars, where it always is one.
        func range(_ range: NSRange) -> Range<String.Index>? {
            guard range.location != NSNotFound else { return nil }
            let start = text.utf16.index(text.utf16.startIndex, offsetBy: range.location)
            return start..<text.utf16.index(start, offsetBy: range.length)
        }
        return pattern.matches(in: text, range: NSRange(location: 0, length: text.utf16.count)).compactMap { match in
            guard let whole = range(match.range), let digits = range(match.range(at: 1)),
                let answer = range(match.range(at: 2)), let number = Int(String(scalars[digits])),
                numberRange.contains(number)
            else { return nil }
            let hint = range(match.range(at: 3)).map { String(scalars[$0]) }
            return Deletion(number: number, answer: String(scalars[answer]), hint: hint, range: whole)
        }
    }

    /// The deletion numbers of `text`, each once, smallest first: one card each.
    public static func numbers(in text: String) -> [Int] {
        Array(Set(deletions(in: text).map(\.number))).sorted()
    }

    /// One side of card `number`: its deletions hidden on the question, revealed on the answer;
    /// every other deletion shows its answer as plain text.
    public static func pieces(of text: String, number: Int, revealed: Bool) -> [Piece] {
        var pieces: [Piece] = []
        var plain = ""
        var position = text.startIndex
        let scalars = text.unicodeScalars
        for deletion in deletions(in: text) {
            plain += String(scalars[position..<deletion.range.lowerBound])
            position = deletion.range.upperBound
            guard deletion.number == number else {
                plain += deletion.answer
                continue
            }
            if !plain.isEmpty { pieces.append(.text(plain)) }
            plain = ""
            pieces.append(revealed ? .revealed(deletion.answer) : .hidden(hint: deletion.hint))
        }
        plain += String(scalars[position...])
        if !plain.isEmpty { pieces.append(.text(plain)) }
        return pieces
    }

    /// A side as plain text (a terminal's): a hidden deletion reads `[...]` or `[hint]`, a revealed
    /// one `[answer]`.
    public static func plainText(of text: String, number: Int, revealed: Bool) -> String {
        pieces(of: text, number: number, revealed: revealed).map { piece in
            switch piece {
            case .text(let text): text
            case .hidden(let hint): "[\(hint ?? "...")]"
            case .revealed(let answer): "[\(answer)]"
            }
        }.joined()
    }

    /// The next free deletion number of a text (what an editor's "make a deletion" uses).
    public static func nextNumber(in text: String) -> Int {
        (numbers(in: text).last ?? 0) + 1
    }
}

extension Card {
    /// A cloze card studies one deletion number of its text (the front); other cards have none.
    public var isCloze: Bool { clozeNumber != nil }

    /// What study shows first: the front, or a cloze card's text with its deletion hidden.
    public var question: String {
        guard let clozeNumber else { return front }
        return Cloze.plainText(of: front, number: clozeNumber, revealed: false)
    }

    /// What study shows once the answer is open, above the back: the front again, or a cloze card's
    /// text with its deletion marked.
    public var revealedFront: String {
        guard let clozeNumber else { return front }
        return Cloze.plainText(of: front, number: clozeNumber, revealed: true)
    }
}

extension CardDraft {
    /// The cards a cloze text makes: one per deletion number, each with the text as its front and
    /// `extra` (Anki's "Back Extra") as its back. Refused when the text has no deletion.
    public static func cloze(
        text: String, extra: String = "", notes: String = "", tags: [String] = []
    ) throws -> [CardDraft] {
        let numbers = Cloze.numbers(in: text)
        guard !numbers.isEmpty else { throw Cloze.noDeletion }
        return cloze(text: text, extra: extra, notes: notes, tags: tags, numbers: numbers)
    }

    private static func cloze(text: String, extra: String, notes: String, tags: [String], numbers: [Int])
        -> [CardDraft]
    {
        numbers.map { number in
            CardDraft(
                front: text, back: extra, cardType: Cloze.cardType, notes: notes, tags: tags, clozeNumber: number)
        }
    }
}

extension CardDraft {
    /// The cards a front and back written by a person or a file make: a front with cloze deletions
    /// makes cloze cards (its back their extra), any other front one card.
    public static func written(front: String, back: String, notes: String = "", tags: [String] = []) -> [CardDraft] {
        let numbers = Cloze.numbers(in: front)
        guard !numbers.isEmpty else { return [CardDraft(front: front, back: back, notes: notes, tags: tags)] }
        return cloze(text: front, extra: back, notes: notes, tags: tags, numbers: numbers)
    }
}

extension Cloze {
    static let noDeletion = CardboxError.invalid(
        field: "text", reason: "has no cloze deletion: mark one as {{c1::answer}} (or {{c1::answer::hint}})")

    /// Checks that a cloze card's text still has its deletion, and that only cloze cards carry the
    /// cloze type.
    static func check(front: String, cardType: String, clozeNumber: Int?) throws {
        if let clozeNumber {
            guard numberRange.contains(clozeNumber) else {
                throw CardboxError.invalid(
                    field: "clozeNumber", reason: "must be from 1 to \(numberRange.upperBound), got \(clozeNumber)")
            }
            guard numbers(in: front).contains(clozeNumber) else {
                throw CardboxError.invalid(
                    field: "front",
                    reason: "has no deletion c\(clozeNumber), which this cloze card studies ({{c\(clozeNumber)::…}})")
            }
        } else if cardType == Cloze.cardType {
            throw CardboxError.invalid(
                field: "cardType",
                reason: "a cloze card is made from text with {{c1::…}} deletions, one card for each number")
        }
    }
}
