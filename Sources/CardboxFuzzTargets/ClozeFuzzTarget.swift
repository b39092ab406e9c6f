import CardboxCore
import Foundation

extension FuzzTargets {
    /// Anki's cloze pattern as a regular expression (ASCII digits), the oracle `Cloze.deletions`'
    /// scan must agree with: the scan runs where no regular expression engine does (the browser's
    /// WebAssembly build). Foundation's expressions: a Swift `Regex` kept in a static reads as
    /// leaked to LeakSanitizer.
    private static let clozePattern = try! NSRegularExpression(
        pattern: #"\{\{c([0-9]{1,3})::(.*?)(?:::(.*?))?\}\}"#, options: [.dotMatchesLineSeparators])

    /// A text's cloze deletions, by the scan and by the pattern: the same numbers, answers, hints and
    /// places, in the same order; and every side of every card is drawn.
    static func cloze(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let scanned = Cloze.deletions(in: text).map { deletion in
            (
                deletion.number, deletion.answer, deletion.hint,
                text.unicodeScalars.distance(from: text.startIndex, to: deletion.range.lowerBound),
                text.unicodeScalars.distance(from: text.startIndex, to: deletion.range.upperBound)
            )
        }
        let expected = clozeByPattern(text)
        let agree = zip(scanned, expected).allSatisfy { found, wanted in
            found.0 == wanted.0 && found.1 == wanted.1 && found.2 == wanted.2 && found.3 == wanted.3
                && found.4 == wanted.4
        }
        precondition(
            scanned.count == expected.count && agree,
            "\(text.debugDescription): scanned \(scanned), the pattern finds \(expected)")
        for number in Cloze.numbers(in: text) {
            for revealed in [false, true] {
                _ = Cloze.html(of: text, number: number, revealed: revealed)
                _ = Cloze.plainText(of: text, number: number, revealed: revealed)
            }
        }
    }

    /// The deletions the pattern finds, numbers 1…999 kept: number, answer, hint, and the place in
    /// scalars.
    private static func clozeByPattern(_ text: String) -> [(Int, String, String?, Int, Int)] {
        let scalars = text.unicodeScalars
        func range(_ range: NSRange) -> Range<String.Index>? {
            guard range.location != NSNotFound else { return nil }
            let start = text.utf16.index(text.utf16.startIndex, offsetBy: range.location)
            return start..<text.utf16.index(start, offsetBy: range.length)
        }
        return clozePattern.matches(in: text, range: NSRange(location: 0, length: text.utf16.count)).compactMap {
            match in
            guard let whole = range(match.range), let digits = range(match.range(at: 1)),
                let answer = range(match.range(at: 2)), let number = Int(String(scalars[digits])),
                Cloze.numberRange.contains(number)
            else { return nil }
            return (
                number, String(scalars[answer]), range(match.range(at: 3)).map { String(scalars[$0]) },
                scalars.distance(from: text.startIndex, to: whole.lowerBound),
                scalars.distance(from: text.startIndex, to: whole.upperBound)
            )
        }
    }
}
