import ArgumentParser
import CardboxCore
import CardboxStore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct StudyCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "study", abstract: "Study a deck (or every deck) in the terminal.",
        discussion: Help.paragraphs(
            """
            Shows each card's front; space or enter reveals the back, then 1 Again, 2 Hard, 3 Good,
            4 Easy rate it (each button shows when the card would come back). u undoes the last answer,
            q quits. Learning cards come first, then reviews due today, then new cards, within the deck's
            daily limits (deck edit --new-per-day, --reviews-per-day).

            For scripts: --next prints the next card (with --json, its fields and each rating's next due
            time); answer it with 'cardbox card answer ID RATING'; --undo takes the last answer back.

            Examples:
              cardbox study Spanish
              cardbox study Spanish --next --json
            """))
    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The deck (id or name); every deck when left out.") var deck: String?
    @Flag(help: "Print the next card to study and exit.") var next = false
    @Flag(help: "Undo the last answer and exit.") var undo = false

    func validate() throws {
        if next && undo { throw ValidationError("use either --next or --undo") }
    }

    func run(store: CardboxStore) throws {
        let deck: Deck? = try self.deck.map { try store.deck(try store.resolve($0)) }
        if undo {
            try Console.emit(try store.undoLastAnswer(in: deck?.id), json: output.json) {
                "undid the last answer: \(CardCommand.describe($0)) is \($0.state.rawValue) again"
            }
        } else if next {
            let card = try store.nextStudyCard(in: deck?.id)
            if output.json {
                try Console.printJSON(card)
            } else {
                Terminal.current.print(card.map(StudySession.describe) ?? "nothing left to study today")
            }
        } else {
            try StudySession(store: store, deck: deck, keys: KeyReader()).run()
        }
    }
}

extension CardCommand {
    struct Answer: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "answer",
            abstract: "Answer a card: 1 again, 2 hard, 3 good, 4 easy.",
            discussion: "Example:\n  cardbox card answer 3f2a9c1e 3 --duration 4200")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The card: its front, id or short id.") var card: String
        @Argument(help: "1 or again, 2 or hard, 3 or good, 4 or easy.") var rating: RatingArgument
        @Option(help: "How long the answer took, in milliseconds.") var duration: Int?

        func run(store: CardboxStore) throws {
            let answer = try store.answer(try store.resolve(card), rating: rating.value, durationMs: duration)
            try Console.emit(answer, json: output.json) { answer in
                let due = answer.card.dueAt.map { StudyInterval.label(from: answer.log.reviewedAt, to: $0) } ?? "-"
                return "\(CardCommand.describe(answer.card))  \(answer.card.state.rawValue), due in \(due)"
            }
        }
    }
}

/// Keys from the terminal, one at a time without waiting for enter; from a pipe, one byte at a time
/// (so a session can be scripted: " 3 1u q").
final class KeyReader {
    private var saved = termios()
    private let terminal = Terminal.current
    private var isTerminal: Bool { terminal.inputIsTerminal }

    init() {
        guard isTerminal else { return }
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    }

    deinit {
        if isTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
    }

    /// The next key, or nil at the end of input.
    func next() -> Character? {
        terminal.readByte().map { Character(Unicode.Scalar($0)) }
    }

    var clearsScreen: Bool { isTerminal }
}

/// The interactive study loop.
struct StudySession {
    let store: CardboxStore
    /// The deck studied; every deck when nil.
    let deck: Deck?
    let keys: KeyReader

    static func counts(_ remaining: StudyCounts) -> String {
        "new \(remaining.new) · learning \(remaining.learning) · review \(remaining.review)"
    }

    static func describe(_ next: StudyCard) -> String {
        [
            "\(counts(next.remaining))   [\(next.queue)]", "", next.card.question, "",
            "id \(Console.short(next.card.id))   " + ratingLine(next),
        ].joined(separator: "\n")
    }

    static func ratingLine(_ next: StudyCard) -> String {
        (1...4).map { rating in
            let key = String(rating)
            let due = next.nextDue[key].map { StudyInterval.label(from: next.at, to: $0) } ?? "?"
            return "\(key) \(StudyInterval.buttons[rating - 1]) (\(due))"
        }.joined(separator: "   ")
    }

    func run() throws {
        var answered = 0
        var status = ""
        while let next = try store.nextStudyCard(in: deck?.id) {
            show([
                Self.counts(next.remaining) + "   [\(next.queue)]" + (status.isEmpty ? "" : "   " + status), "",
                next.card.question, "", "[space] show answer   [u] undo   [q] quit",
            ])
            status = ""
            let shownAt = Date()
            guard let action = try waitFor([" ", "\n", "u", "q"]) else { return finish(answered) }
            if action == "q" { return finish(answered) }
            if action == "u" {
                status = try undoLast(&answered)
                continue
            }
            var lines = [Self.counts(next.remaining), "", next.card.revealedFront, ""]
            if !next.card.back.isEmpty || !next.card.isCloze { lines.append("— \(next.card.back)") }
            if !next.card.notes.isEmpty { lines.append("  \(next.card.notes)") }
            lines += ["", Self.ratingLine(next) + "   [u] undo   [q] quit"]
            show(lines)
            guard let choice = try waitFor(["1", "2", "3", "4", "u", "q"]) else { return finish(answered) }
            switch choice {
            case "q": return finish(answered)
            case "u": status = try undoLast(&answered)
            default:
                // A card left on screen overnight counts as a day, the longest an answer may take.
                let duration = min(
                    Int(max(0, Date().timeIntervalSince(shownAt)) * 1000), StudyRanges.answerDuration.upperBound)
                _ = try store.answer(next.card.id, rating: Int(String(choice))!, durationMs: duration)
                answered += 1
            }
        }
        show(["Congratulations! Nothing left to study today\(deck.map { " in \($0.name)" } ?? "")."])
        finish(answered)
    }

    /// Undoes the last answer (no longer counted as studied); returns what to tell the person.
    private func undoLast(_ answered: inout Int) throws -> String {
        do {
            let card = try store.undoLastAnswer(in: deck?.id)
            answered = max(0, answered - 1)
            return "(undid the answer to \(card.front))"
        } catch let error as CardboxError {
            return "(\(error.localizedDescription))"
        }
    }

    /// Waits for one of `accepted`; nil at the end of input.
    private func waitFor(_ accepted: Set<Character>) throws -> Character? {
        while let key = keys.next() {
            let normalized: Character = key == "\r" ? "\n" : Character(key.lowercased())
            if accepted.contains(normalized) { return normalized }
        }
        return nil
    }

    private func show(_ lines: [String]) {
        if keys.clearsScreen { Terminal.current.print("\u{1B}[2J\u{1B}[H", terminator: "") }
        Terminal.current.print(lines.joined(separator: "\n"))
        fflush(nil)  // all streams: stdout may be a pipe, which buffers
    }

    private func finish(_ answered: Int) {
        Terminal.current.print("studied \(Wording.counted(answered, "card"))")
    }
}
