/// Cloze deletions, as Anki writes them: `{{c1::answer}}` or `{{c1::answer::hint}}` inside a text.
/// A text makes one card per deletion number; each card hides its own deletions (`[...]`, or
/// `[hint]`) and shows the others as plain text, and its answer shows the text with its deletions
/// marked. Read by a scan of the text's scalars, not a regular expression: the browser's
/// WebAssembly build has none, and every device and the browser must read a text alike
/// (`FuzzTargets.cloze` holds the scan to Anki's pattern).
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

    /// Every deletion of `text`, in order: what Anki's pattern `\{\{c(\d{1,3})::(.*?)(?:::(.*?))?\}\}`
    /// finds (newlines count; digits are ASCII), leftmost first, each search starting after the last
    /// match. The answer runs to the first `::` followed somewhere by `}}` (then the hint runs to
    /// that `}}`) or to the first `}}`, whichever comes first.
    public static func deletions(in text: String) -> [Deletion] {
        // Most texts have none: a plain search spares them the scan (imports check every front).
        guard text.utf8.contains(UInt8(ascii: "{")) else { return [] }
        let scalars = text.unicodeScalars
        var found: [Deletion] = []
        var start = scalars.startIndex
        while start < scalars.endIndex {
            if let (deletion, end) = deletion(in: scalars, at: start) {
                if numberRange.contains(deletion.number) { found.append(deletion) }
                start = end
            } else {
                start = scalars.index(after: start)
            }
        }
        return found
    }

    /// The deletion that starts at `start`, and where it ends; nil when none does.
    private static func deletion(in scalars: String.UnicodeScalarView, at start: String.Index) -> (
        Deletion, String.Index
    )? {
        guard var position = skip("{{c", in: scalars, at: start) else { return nil }
        var number = 0
        var digits = 0
        while digits < 3, position < scalars.endIndex, let digit = asciiDigit(scalars[position]) {
            number = number * 10 + digit
            digits += 1
            position = scalars.index(after: position)
        }
        guard digits > 0, let answerStart = skip("::", in: scalars, at: position) else { return nil }
        var answerEnd = answerStart
        while answerEnd < scalars.endIndex {
            if let hintStart = skip("::", in: scalars, at: answerEnd),
                let hintEnd = firstClosing(in: scalars, from: hintStart)
            {
                let end = scalars.index(hintEnd, offsetBy: 2)
                let hint = String(scalars[hintStart..<hintEnd])
                return (
                    Deletion(
                        number: number, answer: String(scalars[answerStart..<answerEnd]), hint: hint,
                        range: start..<end), end
                )
            }
            if let end = skip("}}", in: scalars, at: answerEnd) {
                return (
                    Deletion(
                        number: number, answer: String(scalars[answerStart..<answerEnd]), hint: nil,
                        range: start..<end), end
                )
            }
            answerEnd = scalars.index(after: answerEnd)
        }
        return nil
    }

    /// Where `literal` (ASCII) ends when the scalars at `position` spell it; nil otherwise.
    private static func skip(_ literal: StaticString, in scalars: String.UnicodeScalarView, at position: String.Index)
        -> String.Index?
    {
        var position = position
        var matched = true
        literal.withUTF8Buffer { bytes in
            for byte in bytes {
                guard position < scalars.endIndex, scalars[position].value == UInt32(byte) else {
                    matched = false
                    return
                }
                position = scalars.index(after: position)
            }
        }
        return matched ? position : nil
    }

    /// The first `}}` at or after `position`.
    private static func firstClosing(in scalars: String.UnicodeScalarView, from position: String.Index)
        -> String.Index?
    {
        var position = position
        while position < scalars.endIndex {
            if skip("}}", in: scalars, at: position) != nil { return position }
            position = scalars.index(after: position)
        }
        return nil
    }

    private static func asciiDigit(_ scalar: Unicode.Scalar) -> Int? {
        (48...57).contains(scalar.value) ? Int(scalar.value - 48) : nil
    }

    /// The deletion numbers of `text`, each once, smallest first: one card each.
    public static func numbers(in text: String) -> [Int] {
        var numbers: [Int] = []
        for deletion in deletions(in: text) where !numbers.contains(deletion.number) {
            numbers.append(deletion.number)
        }
        return numbers.sorted()
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
        var side = ""
        for piece in pieces(of: text, number: number, revealed: revealed) {
            switch piece {
            case .text(let text): side += text
            case .hidden(let hint): side += "[" + (hint ?? "...") + "]"
            case .revealed(let answer): side += "[" + answer + "]"
            }
        }
        return side
    }

    /// A side as HTML (the study pages'): the deletions `<span class="cloze">`, `[...]` (or the
    /// hint) on the question and the answer once revealed; the rest escaped.
    public static func html(of text: String, number: Int, revealed: Bool) -> String {
        var side = ""
        for piece in pieces(of: text, number: number, revealed: revealed) {
            switch piece {
            case .text(let text): side += HTMLText.escape(text)
            case .hidden(let hint): side += "<span class=\"cloze\">[" + HTMLText.escape(hint ?? "...") + "]</span>"
            case .revealed(let answer): side += "<span class=\"cloze\">" + HTMLText.escape(answer) + "</span>"
            }
        }
        return side
    }

    /// The next free deletion number of a text (what an editor's "make a deletion" uses).
    public static func nextNumber(in text: String) -> Int {
        (numbers(in: text).last ?? 0) + 1
    }
}
