import CardboxCore
import Foundation
import Testing

@Suite("Cloze deletions")
struct ClozeTests {
    let text = "El {{c1::gato}} {{c2::duerme::verb}} en la {{c1::cama}}"

    @Test("deletions are read as Anki writes them: number, answer, hint; c0 and broken marks stay text")
    func deletions() {
        let found = Cloze.deletions(in: text)
        #expect(found.map(\.number) == [1, 2, 1])
        #expect(found.map(\.answer) == ["gato", "duerme", "cama"])
        #expect(found.map(\.hint) == [nil, "verb", nil])
        #expect(Cloze.numbers(in: text) == [1, 2])
        #expect(Cloze.numbers(in: "{{c0::no}} {{c1::yes}} {{c2:broken}} {{c1000::too long}} {{c3::open") == [1])
        #expect(Cloze.numbers(in: "{{c2::two\nlines}}") == [2])
        #expect(Cloze.numbers(in: "plain text, {braces} and {{Front}}").isEmpty)
        #expect(Cloze.nextNumber(in: text) == 3 && Cloze.nextNumber(in: "none") == 1)
    }

    @Test("a deletion next to a combining mark or an emoji modifier is still a deletion")
    func scalars() {
        let text = "caf{{c1::e}}\u{301} {{c2::👍}}🏽 {{c3::x::\u{301}hint}}"
        #expect(Cloze.numbers(in: text) == [1, 2, 3])
        #expect(Cloze.plainText(of: text, number: 2, revealed: false).hasSuffix("[...]🏽 x"))
        #expect(Cloze.deletions(in: text).map(\.answer) == ["e", "👍", "x"])
    }

    @Test("a card hides its own deletions ([...] or [hint]), shows the others as text, and marks them on the answer")
    func sides() {
        #expect(Cloze.plainText(of: text, number: 1, revealed: false) == "El [...] duerme en la [...]")
        #expect(Cloze.plainText(of: text, number: 2, revealed: false) == "El gato [verb] en la cama")
        #expect(Cloze.plainText(of: text, number: 1, revealed: true) == "El [gato] duerme en la [cama]")
        #expect(
            Cloze.pieces(of: text, number: 2, revealed: true) == [
                .text("El gato "), .revealed("duerme"), .text(" en la cama"),
            ])
        #expect(Cloze.pieces(of: "{{c1::solo}}", number: 1, revealed: false) == [.hidden(hint: nil)])
    }

    @Test("a cloze text makes one card per deletion number; a text without one is refused by name")
    func drafts() throws {
        let drafts = try CardDraft.cloze(text: text, extra: "The cat sleeps", tags: ["animals"])
        #expect(drafts.map(\.clozeNumber) == [1, 2])
        #expect(drafts.allSatisfy { $0.cardType == "cloze" && $0.front == text && $0.back == "The cat sleeps" })
        #expect(drafts.allSatisfy { $0.tags == ["animals"] })
        #expect(
            throws: CardboxError.invalid(
                field: "text", reason: "has no cloze deletion: mark one as {{c1::answer}} (or {{c1::answer::hint}})")
        ) {
            try CardDraft.cloze(text: "no deletion here")
        }
        #expect(CardDraft.written(front: "{{c1::hola}} amigo", back: "hello").map(\.clozeNumber) == [1])
        #expect(CardDraft.written(front: "hola", back: "hello").map(\.cardType) == ["basic"])
    }

    @Test("a cloze card's text must hold its deletion, and only cloze cards take the cloze type")
    func rules() throws {
        var draft = try CardDraft.cloze(text: "{{c1::uno}} {{c2::dos}}")[1]
        #expect(try draft.validated().clozeNumber == 2)
        draft.front = "{{c1::uno}} dos"
        #expect(throws: CardboxError.self) { try draft.validated() }
        #expect(throws: CardboxError.self) {
            try CardDraft(front: "{{c1::x}}", back: "", cardType: "cloze").validated()
        }
        #expect(
            throws: CardboxError.invalid(field: "clozeNumber", reason: "must be from 1 to 999, got 0")
        ) { try CardDraft(front: "{{c1::x}}", back: "", cardType: "cloze", clozeNumber: 0).validated() }
    }

    @Test("a card's question and revealed front are its front, unless it is a cloze card")
    func cardSides() {
        let now = Date()
        var card = Card(
            id: CardID(UUID()), deckId: DeckID(UUID()), front: text, back: "", frontLanguage: "es", backLanguage: "en",
            createdAt: now, modifiedAt: now)
        #expect(card.question == text && card.revealedFront == text && !card.isCloze)
        card.clozeNumber = 2
        #expect(card.question == "El gato [verb] en la cama")
        #expect(card.revealedFront == "El gato [duerme] en la cama")
    }
}
