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
