import ArgumentParser
import CardboxCore
import CardboxStore
import Foundation

struct CardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "card", abstract: "Add, list and manage flashcards.",
        discussion:
            "Examples:\n  cardbox card add Spanish hola hello --tag greeting\n  cardbox card list Spanish --favorites",
        subcommands: [
            Add.self, List.self, Show.self, Edit.self, Archive.self, Restore.self, Delete.self, Favorite.self,
            Answer.self,
        ])

    static func describe(_ card: Card) -> String {
        let front = card.clozeNumber.map { "\(card.question)  (c\($0))" } ?? card.front
        var line = "\(Console.short(card.id))  \(front) → \(card.back)"
        if card.isFavorite { line += "  ★" }
        if !card.tags.isEmpty { line += "  [\(card.tags.joined(separator: ", "))]" }
        if card.isArchived { line += "  (archived \(Console.date(card.archivedAt)))" }
        return line
    }

    static func details(_ card: Card) -> String {
        var lines = [
            "id: \(card.id.description)", "front: \(card.front)  (\(card.frontLanguage))",
            "back: \(card.back)  (\(card.backLanguage))",
            "type: \(card.cardType)" + (card.clozeNumber.map { "  (studies deletion c\($0))" } ?? ""),
            "favorite: \(card.isFavorite ? "yes" : "no")",
            "tags: \(card.tags.isEmpty ? "-" : card.tags.joined(separator: ", "))",
        ]
        if !card.notes.isEmpty { lines.append("notes: \(card.notes)") }
        if let hash = card.imageHash { lines.append("image: sha256 \(hash)") }
        if let prompt = card.imagePrompt { lines.append("image prompt: \(prompt)") }
        if card.isIncomplete { lines.append("incomplete: yes") }
        lines.append(card.isArchived ? "archived: \(Console.date(card.archivedAt))" : "archived: no")
        lines.append("due: \(card.dueAt.map { Console.date($0) } ?? "new (never reviewed)")")
        lines.append("created: \(Console.date(card.createdAt))  modified: \(Console.date(card.modifiedAt))")
        return lines.joined(separator: "\n")
    }

    struct Add: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a card to a deck, or the cloze cards of a text.",
            discussion: Help.paragraphs(
                """
                The card takes the deck's languages. Tags are found or created by name (case-insensitive).
                On the free plan, adding past the card limit is refused.

                A cloze text (--cloze) marks what to hide as {{c1::answer}} or {{c1::answer::hint}}; it
                makes one card per number (c1, c2, …), each hiding its own deletions. A front written
                with deletions makes cloze cards too, its back as their extra.

                Examples:
                  cardbox card add Spanish "el perro" dog --tag noun --tag animals --notes "El perro ladra."
                  cardbox card add Spanish --cloze "El {{c1::gato}} {{c2::duerme::verb}}" --extra "The cat sleeps"
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name).") var deck: String
        @Argument(help: "Front text (the language being learned).") var front: String?
        @Argument(help: "Back text (the user's language).") var back: String?
        @Option(help: "A cloze text instead of a front and back: {{c1::answer}} marks a deletion.") var cloze: String?
        @Option(help: "With --cloze: text shown under the answer (Anki's Back Extra).") var extra = ""
        @Option(help: "Notes shown with the card.") var notes = ""
        @Option(name: .customLong("type"), help: "Card type: basic, reversed, vocabulary or phrase.") var cardType =
            Card.defaultType
        @Option(name: .customLong("tag"), help: "A tag (repeat for several).") var tags: [String] = []
        @Option(help: "An image file (JPEG, PNG or HEIC, at most 5 MB).") var image: String?
        @Option(help: "The prompt an image generator would use.") var imagePrompt: String?
        @Option(help: "Structured content, as a JSON document.") var jsonContent: String?
        @Flag(help: "Mark the card as incomplete.") var incomplete = false

        func validate() throws {
            if cloze != nil {
                guard front == nil, back == nil else {
                    throw ValidationError("give either --cloze TEXT or a front and a back, not both")
                }
            } else {
                guard front != nil, back != nil else {
                    throw ValidationError("give a front and a back (or a cloze text with --cloze)")
                }
                guard extra.isEmpty else { throw ValidationError("--extra goes with --cloze") }
            }
        }

        func run(store: CardboxStore) throws {
            let deckId: DeckID = try store.resolve(deck)
            let image = try Console.image(image)
            let draft = CardDraft(
                front: front ?? "", back: back ?? "", cardType: cardType, notes: notes, tags: tags,
                imagePrompt: imagePrompt, jsonContent: jsonContent, isIncomplete: incomplete)
            let cards =
                try cloze.map {
                    try store.addClozeCards(to: deckId, text: $0, extra: extra, notes: notes, tags: tags, image: image)
                } ?? store.addWrittenCards(to: deckId, draft, image: image)
            // Cloze cards print as a list (one per deletion); any other card as itself.
            guard cards.first?.isCloze == true else {
                return try Console.emit(cards[0], json: output.json) { "added \(CardCommand.describe($0))" }
            }
            try Console.emit(cards, json: output.json) { cards in
                cards.map { "added \(CardCommand.describe($0))" }.joined(separator: "\n")
            }
        }
    }

    struct List: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List cards, filtered by language, tag and favorites, or searched.",
            discussion: Help.paragraphs(
                """
                Current cards come in the order they were added; archived cards (--archived) newest
                archive first. Filters combine.

                Examples:
                  cardbox card list Spanish --tag verbs --favorites
                  cardbox card list --language es --json
                  cardbox card list --search árbol
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name); all decks when left out.") var deck: String?
        @Flag(help: "List archived cards instead of current ones.") var archived = false
        @Flag(help: "Only favorite cards.") var favorites = false
        @Option(help: "Only cards with this tag.") var tag: String?
        @Option(help: "Only cards whose front or back language is this (ISO 639-1).") var language: String?
        @Option(help: "Only cards whose front, back or notes contain this text (any case).") var search: String?
        @Option(help: "At most this many cards.") var limit: Int?
        @Option(help: "Skip this many cards first.") var offset = 0

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
            if offset < 0 { throw ValidationError("--offset must be 0 or more") }
        }

        func run(store: CardboxStore) throws {
            let filter = CardFilter(
                archived: archived, favoritesOnly: favorites, tag: tag, language: language, search: search)
            let cards = try store.cards(
                in: try deck.map { try store.resolve($0) }, filter: filter, limit: limit, offset: offset)
            try Console.emit(cards, json: output.json) { cards in
                cards.isEmpty ? "no cards" : cards.map(CardCommand.describe).joined(separator: "\n")
            }
        }
    }

    struct Show: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show one card.", discussion: "Example:\n  cardbox card show 3f2a9c1e")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The card: its front, id or short id.") var card: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.card(try store.resolve(card)), json: output.json, CardCommand.details)
        }
    }

    struct Edit: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change a card's text, type, tags or image.",
            discussion: Help.paragraphs(
                """
                Only the options given change. --tag replaces all tags; --clear-tags removes them.

                Example:
                  cardbox card edit 3f2a9c1e --back "the dog" --tag noun
                  cardbox card edit 3f2a9c1e --due now
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The card: its front, id or short id.") var card: String
        @Option(help: "New front text (1–10,000 characters).") var front: String?
        @Option(help: "New back text (up to 50,000 characters; may be empty).") var back: String?
        @Option(help: "New notes (empty removes them).") var notes: String?
        @Option(name: .customLong("type"), help: "Card type: basic, reversed, vocabulary or phrase.") var cardType:
            String?
        @Option(name: .customLong("tag"), help: "The card's tags (repeat; replaces all).") var tags: [String] = []
        @Flag(help: "Remove all tags.") var clearTags = false
        @Option(help: "A new image file (JPEG, PNG or HEIC, at most 5 MB).") var image: String?
        @Flag(help: "Remove the card's image.") var removeImage = false
        @Option(help: "The prompt an image generator would use (empty to clear).") var imagePrompt: String?
        @Option(help: "Structured content, a JSON document (empty to clear).") var jsonContent: String?
        @Option(help: "Whether the card is incomplete (true/false).") var incomplete: Bool?
        @Option(help: "When it is next due: an ISO 8601 time or date, 'now', or 'new' (never reviewed).")
        var due: String?
        @Option(help: "The front's language, an ISO 639-1 code (starts as the deck's).") var frontLanguage: String?
        @Option(help: "The back's language, an ISO 639-1 code (starts as the deck's).") var backLanguage: String?

        func validate() throws {
            if clearTags && !tags.isEmpty { throw ValidationError("use either --tag or --clear-tags") }
            if removeImage && image != nil { throw ValidationError("use either --image or --remove-image") }
        }

        func run(store: CardboxStore) throws {
            let changes = CardChanges(
                front: front, back: back, cardType: cardType, notes: notes,
                tags: clearTags ? [] : (tags.isEmpty ? nil : tags), imagePrompt: imagePrompt, jsonContent: jsonContent,
                isIncomplete: incomplete, image: try Console.image(image), removeImage: removeImage,
                dueAt: try due.map(Console.dueDate), frontLanguage: frontLanguage, backLanguage: backLanguage)
            try Console.emit(try store.editCard(try store.resolve(card), changes), json: output.json) {
                "updated \(CardCommand.describe($0))"
            }
        }
    }

    struct Archive: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "archive",
            abstract: "Archive a card: kept for reference, no longer studied.",
            discussion: "Example:\n  cardbox card archive 3f2a9c1e")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The card: its front, id or short id.") var card: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.setArchived(try store.resolve(card), true), json: output.json) {
                "archived \(CardCommand.describe($0))"
            }
        }
    }

    struct Restore: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Restore an archived card to the current cards.",
            discussion: "Example:\n  cardbox card restore 3f2a9c1e")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The card: its front, id or short id.") var card: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.setArchived(try store.resolve(card), false), json: output.json) {
                "restored \(CardCommand.describe($0))"
            }
        }
    }

    struct Delete: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a card permanently, or every card (of one deck) with --all.",
            discussion: "Examples:\n  cardbox card delete 3f2a9c1e\n  cardbox card delete --all --deck Spanish")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The card: its front, id or short id.") var card: String?
        @Flag(help: "Delete every card, archived ones too (seed 001's delete all).") var all = false
        @Option(help: "With --all: only this deck's cards.") var deck: String?

        func validate() throws {
            guard (card == nil) == all else { throw ValidationError("name one card, or give --all (not both)") }
            if deck != nil && !all { throw ValidationError("--deck goes with --all") }
        }

        func run(store: CardboxStore) throws {
            guard let card else {
                let count = try store.deleteAllCards(in: try deck.map { try store.resolve($0, as: Deck.self) })
                Terminal.current.print("deleted \(Wording.counted(count, "card"))")
                return
            }
            let found = try store.card(try store.resolve(card))
            try store.deleteCard(found.id)
            Terminal.current.print("deleted \(CardCommand.describe(found))")
        }
    }

    struct Favorite: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "favorite",
            abstract: "Toggle a card's favorite mark (or set it with --on/--off).",
            discussion: "Example:\n  cardbox card favorite 3f2a9c1e --on")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The card: its front, id or short id.") var card: String
        @Flag(help: "Mark as favorite.") var on = false
        @Flag(help: "Remove the favorite mark.") var off = false

        func validate() throws {
            if on && off { throw ValidationError("use either --on or --off") }
        }

        func run(store: CardboxStore) throws {
            let card = try store.setFavorite(try store.resolve(card), on ? true : (off ? false : nil))
            try Console.emit(card, json: output.json) {
                ($0.isFavorite ? "favorited " : "unfavorited ") + CardCommand.describe($0)
            }
        }
    }
}
