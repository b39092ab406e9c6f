import ArgumentParser
import CardboxCore
import CardboxStore
import Foundation

struct DeckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deck", abstract: "Create, inspect and manage flashcard decks.",
        discussion: "Examples:\n  cardbox deck create Spanish --front es --back en\n  cardbox deck list",
        subcommands: [
            Create.self, List.self, Show.self, Rename.self, Edit.self, Delete.self, Merge.self, ArchiveDue.self,
            ClearSuggestions.self, ResetRejected.self, Presets.self,
        ])

    static func describe(_ deck: Deck) -> String {
        "\(deck.name)  \(Console.short(deck.id))  \(deck.frontLanguage) → \(deck.backLanguage)"
            + (deck.queuedSuggestions > 0 ? "  queue \(deck.queuedSuggestions)" : "")
    }

    struct Create: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a deck, empty or from a preset.",
            discussion: Help.paragraphs(
                """
                Front is the language being learned, back the user's own (ISO 639-1 codes).
                A preset adds all its cards at once, or none if the plan's card limit would be passed.

                Examples:
                  cardbox deck create Spanish --front es --back en
                  cardbox deck create --preset spanish-basics
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck's name (1–100 characters; optional with --preset).") var name: String?
        @Option(help: "Language on the front of the cards (ISO 639-1, e.g. es).") var front: String?
        @Option(help: "Language on the back of the cards (ISO 639-1).") var back = "en"
        @Option(help: "How many suggestions to keep queued (0 = automatic suggestions off).")
        var queuedSuggestions = 0
        @Option(help: "Add a preset deck's cards (see 'cardbox deck presets').") var preset: String?

        func validate() throws {
            if preset == nil && name == nil { throw ValidationError("give the deck a name, or use --preset") }
            if preset == nil && front == nil { throw ValidationError("give the front language with --front, e.g. es") }
        }

        func run(store: CardboxStore) throws {
            if let preset {
                let (deck, cards) = try store.createDeck(preset: try PresetDeck.named(preset), name: name)
                try Console.emit(deck, json: output.json) {
                    "created deck \(DeckCommand.describe($0)) with \(Wording.counted(cards.count, "card"))"
                }
            } else {
                let deck = try store.createDeck(
                    name: name ?? "", frontLanguage: front ?? "", backLanguage: back,
                    queuedSuggestions: queuedSuggestions)
                try Console.emit(deck, json: output.json) { "created deck \(DeckCommand.describe($0))" }
            }
        }
    }

    struct List: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List decks with their card counts.", discussion: "Example:\n  cardbox deck list --json")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(store: CardboxStore) throws {
            let summaries = try store.decks().map {
                DeckSummary(deck: $0, counts: try store.deckCounts($0.id))
            }
            try Console.emit(summaries, json: output.json) { summaries in
                summaries.isEmpty
                    ? "no decks yet; create one with 'cardbox deck create NAME --front es'"
                    : Console.table(
                        summaries.map {
                            [
                                Console.short($0.id), $0.name, "\($0.frontLanguage)→\($0.backLanguage)",
                                "\($0.counts.currentCards)", "\($0.counts.archivedCards)",
                                "\($0.counts.visibleSuggestions)",
                            ]
                        }, header: ["ID", "NAME", "LANGUAGES", "CARDS", "ARCHIVED", "SUGGESTIONS"])
            }
        }
    }

    struct Show: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a deck and how many cards are in each of its lists.",
            discussion: "Example:\n  cardbox deck show Spanish")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name).") var deck: String

        func run(store: CardboxStore) throws {
            let found = try store.deck(try store.resolve(deck))
            let summary = DeckSummary(deck: found, counts: try store.deckCounts(found.id))
            try Console.emit(summary, json: output.json) { summary in
                let counts = summary.counts
                return """
                    \(summary.name)  (\(summary.id.description))
                    languages: \(Language.name(of: summary.frontLanguage)) → \(Language.name(of: summary.backLanguage))
                    queued suggestions: \(summary.queuedSuggestions)\(summary.queuedSuggestions == 0 ? " (automatic suggestions off)" : "")
                    current cards: \(counts.currentCards) (\(counts.dueCards) due)
                    archived cards: \(counts.archivedCards)
                    visible suggestions: \(counts.visibleSuggestions)
                    invisible suggestions: \(counts.invisibleSuggestions)
                    rejected suggestions: \(counts.rejectedSuggestions)
                    """
            }
        }
    }

    struct Rename: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Rename a deck.", discussion: "Example:\n  cardbox deck rename Spanish \"Spanish A1\"")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name).") var deck: String
        @Argument(help: "Its new name.") var newName: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.renameDeck(try store.resolve(deck), to: newName), json: output.json) {
                "renamed deck \(DeckCommand.describe($0))"
            }
        }
    }

    struct Edit: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change a deck's suggestion queue, language pair or study settings.",
            discussion: Help.paragraphs(
                """
                Examples:
                  cardbox deck edit Spanish --queued-suggestions 5
                  cardbox deck edit Spanish --desired-retention 0.85 --new-per-day 10 --learning-steps 1m,10m,1h
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name).") var deck: String
        @Option(help: "Suggestions to keep queued (0 turns automatic suggestions off).") var queuedSuggestions: Int?
        @Option(help: "Language on the front (ISO 639-1).") var front: String?
        @Option(help: "Language on the back (ISO 639-1).") var back: String?
        @Option(help: "Desired retention for FSRS, 0.7 to 0.99 (default 0.9).") var desiredRetention: Double?
        @Option(help: "New cards per day (default 20).") var newPerDay: Int?
        @Option(help: "Reviews per day (default 200).") var reviewsPerDay: Int?
        @Option(help: "Learning steps, e.g. 1m,10m (empty for none).") var learningSteps: String?
        @Option(help: "Relearning steps, e.g. 10m (empty for none).") var relearningSteps: String?
        @Option(help: "The longest interval in days (default 36500).") var maximumInterval: Int?
        @Option(help: "Spread due days a little (true/false; default true).") var fuzz: Bool?

        func run(store: CardboxStore) throws {
            var edited = try store.configureDeck(
                try store.resolve(deck), queuedSuggestions: queuedSuggestions, frontLanguage: front, backLanguage: back)
            var study = edited.study
            if let desiredRetention { study.desiredRetention = desiredRetention }
            if let newPerDay { study.newCardsPerDay = newPerDay }
            if let reviewsPerDay { study.reviewsPerDay = reviewsPerDay }
            if let learningSteps { study.learningSteps = learningSteps }
            if let relearningSteps { study.relearningSteps = relearningSteps }
            if let maximumInterval { study.maximumInterval = maximumInterval }
            if let fuzz { study.enableFuzz = fuzz }
            if study != edited.study { edited = try store.setStudySettings(edited.id, study) }
            try Console.emit(edited, json: output.json) { "updated deck \(DeckCommand.describe($0))" }
        }
    }

    struct Delete: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a deck with all its cards and suggestions.",
            discussion: "Example:\n  cardbox deck delete Spanish")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The deck (id or name).") var deck: String

        func run(store: CardboxStore) throws {
            let found = try store.deck(try store.resolve(deck))
            try store.deleteDeck(found.id)
            Terminal.current.print("deleted deck \(found.name)")
        }
    }

    struct Merge: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Move a deck's cards, with their reviews and schedules, into another deck; delete it.",
            discussion: Help.paragraphs(
                """
                For two decks of one name (two devices each made one before they synced): name them by
                the short ids 'deck list' shows. The deck merged away's suggestions go with it, and so
                do cards another device adds to it before it syncs the merge: merge once every device
                has synced.

                Example:
                  cardbox deck merge 5b1e09c3 --into 7c0d4a11
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck to merge away (id or name).") var deck: String
        @Option(help: "The deck that takes its cards (id or name).") var into: String

        func run(store: CardboxStore) throws {
            let source = try store.deck(try store.resolve(deck))
            let counts = try store.deckCounts(source.id)
            let moved = counts.currentCards + counts.archivedCards
            let merged = try store.mergeDeck(source.id, into: try store.resolve(into))
            try Console.emit(merged, json: output.json) {
                "merged \(Wording.counted(moved, "card")) into \(DeckCommand.describe($0))"
            }
        }
    }

    struct ArchiveDue: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "archive-due", abstract: "Archive every due card of a deck.",
            discussion: "Example:\n  cardbox deck archive-due Spanish")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name).") var deck: String

        func run(store: CardboxStore) throws {
            let count = try store.archiveDueCards(try store.resolve(deck))
            try Console.emit(["archived": count], json: output.json) { _ in
                "archived \(Wording.counted(count, "due card"))"
            }
        }
    }

    struct ClearSuggestions: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear-suggestions", abstract: "Delete every suggestion of a deck, visible or not.",
            discussion: "Example:\n  cardbox deck clear-suggestions Spanish")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name).") var deck: String

        func run(store: CardboxStore) throws {
            let count = try store.clearSuggestions(try store.resolve(deck))
            try Console.emit(["deleted": count], json: output.json) { _ in
                "deleted \(Wording.counted(count, "suggestion"))"
            }
        }
    }

    struct ResetRejected: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-rejected",
            abstract: "Forget rejected suggestions so their content may be suggested again.",
            discussion: Help.paragraphs(
                """
                Without --older-than, every rejected suggestion of the deck is forgotten (and skipped
                suggestions show again). Old ones are also cleaned up automatically after the
                rejectedSuggestionRetentionDays setting.

                Examples:
                  cardbox deck reset-rejected Spanish
                  cardbox deck reset-rejected Spanish --older-than 30
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name).") var deck: String
        @Option(help: "Only those rejected more than this many days ago.") var olderThan: Int?

        func run(store: CardboxStore) throws {
            let count = try store.resetRejectedSuggestions(try store.resolve(deck), olderThanDays: olderThan)
            try Console.emit(["deleted": count], json: output.json) { _ in
                "forgot \(Wording.counted(count, "rejected suggestion"))"
            }
        }
    }

    struct Presets: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "presets",
            abstract: "List the preset decks 'deck create --preset' can add.",
            discussion: "Example:\n  cardbox deck presets")
        @OptionGroup var output: OutputOptions

        func run() throws {
            let presets = PresetDeck.catalog.map {
                PresetSummary(
                    slug: $0.slug, name: $0.name, frontLanguage: $0.frontLanguage, backLanguage: $0.backLanguage,
                    cardCount: $0.cards.count)
            }
            try Console.emit(presets, json: output.json) { presets in
                Console.table(
                    presets.map { [$0.slug, $0.name, "\($0.frontLanguage)→\($0.backLanguage)", "\($0.cardCount)"] },
                    header: ["PRESET", "NAME", "LANGUAGES", "CARDS"])
            }
        }
    }
}

/// A deck with its counts, as `deck list` and `deck show` print it.
struct DeckSummary: Encodable {
    var deck: Deck
    var counts: DeckCounts
    var id: DeckID { deck.id }
    var name: String { deck.name }
    var frontLanguage: String { deck.frontLanguage }
    var backLanguage: String { deck.backLanguage }
    var queuedSuggestions: Int { deck.queuedSuggestions }

    func encode(to encoder: any Encoder) throws {
        try deck.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(counts, forKey: .counts)
    }

    enum CodingKeys: String, CodingKey { case counts }
}

struct PresetSummary: Encodable {
    var slug: String
    var name: String
    var frontLanguage: String
    var backLanguage: String
    var cardCount: Int
}
