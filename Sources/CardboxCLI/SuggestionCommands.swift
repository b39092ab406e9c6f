import ArgumentParser
import CardboxCore
import CardboxStore
import CardboxSuggest
import CardboxSuggestServices
import Foundation

struct SuggestionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggestion", abstract: "Feed and review a deck's queue of suggested cards.",
        discussion: Help.paragraphs(
            """
            A suggestion is invisible until its image is attached (seed 000: with --image, by
            `suggestion ready`, or made by `suggestion refill`), then it can be accepted (it becomes a
            card), rejected (never suggested again) or skipped (recorded as rejected, as seed 000 says:
            it is not proposed again until rejected suggestions are reset).

            Examples:
              cardbox suggestion add Spanish gato cat --image gato.png
              cardbox suggestion list Spanish
              cardbox suggestion accept 9b1c22aa
              cardbox suggestion refill Spanish
            """),
        subcommands: [Add.self, List.self, Accept.self, Reject.self, Skip.self, Ready.self, Refill.self])

    static func describe(_ suggestion: Suggestion) -> String {
        let state = suggestion.isHidden ? "skipped" : (suggestion.isVisible ? "visible" : "awaiting image")
        return "\(Console.short(suggestion.id))  \(suggestion.front) → \(suggestion.back)  "
            + "(\(suggestion.cardType), \(suggestion.category.rawValue), \(state))"
    }

    struct Add: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a suggestion to a deck's queue.",
            discussion: Help.paragraphs(
                """
                Refused when a card or a rejected suggestion of the deck has the same front and type.

                Example:
                  cardbox suggestion add Spanish "el gato" cat --category related_vocabulary --image cat.png
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name).") var deck: String
        @Argument(help: "Front text.") var front: String
        @Argument(help: "Back text (may be the complete JSON content).") var back: String
        @Option(name: .customLong("type"), help: "Card type: basic, reversed, vocabulary or phrase.") var cardType =
            Card.defaultType
        @Option(help: "Why it is suggested.") var context = ""
        @Option(
            help: "related_vocabulary, usage_examples, opposites or progressive_complexity.")
        var category = SuggestionCategory.relatedVocabulary.rawValue
        @Option(help: "The prompt for its image.") var imagePrompt: String?
        @Option(help: "Its image (JPEG, PNG or HEIC): makes it visible at once.") var image: String?

        func run(store: CardboxStore) throws {
            let draft = SuggestionDraft(
                front: front, back: back, cardType: cardType, imagePrompt: imagePrompt, context: context,
                category: try SuggestionCategory.validate(category))
            let suggestion = try store.addSuggestion(
                to: try store.resolve(deck), draft, image: try Console.image(image))
            try Console.emit(suggestion, json: output.json) { "added suggestion \(SuggestionCommand.describe($0))" }
        }
    }

    struct List: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List a deck's suggestions ready for review.",
            discussion: Help.paragraphs(
                """
                --all adds those awaiting an image and skipped ones; --rejected lists rejected suggestions.

                Example:
                  cardbox suggestion list Spanish --all
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name).") var deck: String
        @Flag(help: "Include invisible and skipped suggestions.") var all = false
        @Flag(help: "List rejected suggestions instead.") var rejected = false

        func run(store: CardboxStore) throws {
            if rejected {
                try Console.emit(try store.rejectedSuggestions(in: try store.resolve(deck)), json: output.json) {
                    list in
                    list.isEmpty
                        ? "no rejected suggestions"
                        : Console.table(
                            list.map { [Console.short($0.id), $0.front, $0.cardType, Console.date($0.deletedAt)] },
                            header: ["ID", "FRONT", "TYPE", "REJECTED"])
                }
                return
            }
            try Console.emit(try store.suggestions(in: try store.resolve(deck), includeAll: all), json: output.json) {
                list in
                list.isEmpty ? "no suggestions" : list.map(SuggestionCommand.describe).joined(separator: "\n")
            }
        }
    }

    struct Accept: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Accept a visible suggestion: it becomes a card of its deck.",
            discussion: "Example:\n  cardbox suggestion accept 9b1c22aa")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The suggestion: its front, id or short id.") var suggestion: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.acceptSuggestion(try store.resolve(suggestion)), json: output.json) {
                "accepted: added \(CardCommand.describe($0))"
            }
        }
    }

    struct Reject: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "reject",
            abstract: "Reject a visible suggestion: removed, and never suggested again.",
            discussion: "Example:\n  cardbox suggestion reject 9b1c22aa")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The suggestion: its front, id or short id.") var suggestion: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.rejectSuggestion(try store.resolve(suggestion)), json: output.json) {
                "rejected '\($0.front)' (\($0.cardType))"
            }
        }
    }

    struct Skip: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "skip",
            abstract: "Skip a visible suggestion: recorded as rejected, so it is not proposed again.",
            discussion: Help.paragraphs(
                """
                Seed 000 records a skipped suggestion as rejected: it stays hidden and is not proposed
                again until 'cardbox deck reset-rejected' clears the deck's rejected suggestions.

                Example:
                  cardbox suggestion skip 9b1c22aa
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The suggestion: its front, id or short id.") var suggestion: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.skipSuggestion(try store.resolve(suggestion)), json: output.json) {
                "skipped '\($0.front)' (\($0.cardType))"
            }
        }
    }

    struct Ready: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "ready",
            abstract: "Attach a suggestion's image: it becomes visible.",
            discussion: "Example:\n  cardbox suggestion ready 9b1c22aa --image cat.png")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The suggestion: its front, id or short id.") var suggestion: String
        @Option(help: "The image (JPEG, PNG or HEIC, at most 5 MB).") var image: String

        func run(store: CardboxStore) throws {
            let data = try Console.readFile(image, field: "image", limit: Limits.imageBytes)
            let ready = try store.markSuggestionReady(try store.resolve(suggestion), image: data)
            try Console.emit(ready, json: output.json) { "ready: \(SuggestionCommand.describe($0))" }
        }
    }

    struct Refill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refill",
            abstract: "Fill decks' suggestion queues up to their queued-suggestions setting, and make their images.",
            discussion: Help.paragraphs(
                """
                Seed 000's maintenance step, once: for each deck whose queue holds fewer suggestions
                (visible and invisible) than its queued-suggestions setting, generate more, spread over the
                four categories, never repeating a card, a queued or a rejected suggestion of the deck. Then
                the image pipeline: each suggestion waiting for its image gets one and becomes visible; a
                failed attempt is retried later (30 s, 1, 2, 4 minutes) and the fifth failure removes it.
                Without a deck, every deck with automatic suggestions on is refilled.

                --suggestions offline reads WordNet and the FreeDict dictionaries Debian installs
                (wordnet-base, dict-freedict-spa-eng, ...): one side of the deck must be English.
                --suggestions chat asks an OpenAI-compatible chat-completions service. --images drawn draws
                each picture here (libvips); --images openai asks an OpenAI-compatible image service. The
                services are set by CARDBOX_AI_BASE_URL (default https://api.openai.com/v1),
                CARDBOX_AI_CHAT_MODEL, CARDBOX_AI_IMAGE_MODEL and CARDBOX_AI_API_KEY (or OPENAI_API_KEY).

                Examples:
                  cardbox suggestion refill Spanish
                  cardbox suggestion refill --images none --json
                  CARDBOX_AI_BASE_URL=http://127.0.0.1:8000/v1 cardbox suggestion refill --suggestions chat
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name); every deck with automatic suggestions when left out.")
        var deck: String?
        @Option(help: "Where suggestions come from: offline or chat.") var suggestions = "offline"
        @Option(help: "Where their images come from: drawn, openai or none.") var images = "drawn"

        struct Report: Encodable {
            var decks: [RefillReport]
            var images: ImagePipelineReport?
        }

        func run() async throws {
            let provider = try ProviderChoice.suggestions(suggestions)
            let imageProvider = try ProviderChoice.images(images)
            let store = try global.openStore()
            let workspace = StoreWorkspace(store)
            let decks: [DeckID]
            if let deck {
                decks = [try store.resolve(deck)]
            } else {
                decks = try await workspace.decksWithAutomaticSuggestions()
            }
            var report = Report(decks: [], images: nil)
            for deck in decks {
                report.decks.append(try await SuggestionMaintenance.refill(deck, in: workspace, provider: provider))
            }
            if let imageProvider {
                report.images = try await ImagePipeline.run(in: workspace, provider: imageProvider, limit: 1000)
            }
            try store.checkpoint()
            try Console.emit(report, json: output.json) { report in
                var lines =
                    report.decks.isEmpty
                    ? [
                        "no deck has automatic suggestions on (set one with: cardbox deck edit DECK --queued-suggestions 5)"
                    ]
                    : report.decks.map(Refill.describe)
                if let images = report.images { lines.append(Refill.describe(images)) }
                return lines.joined(separator: "\n")
            }
        }

        static func describe(_ report: RefillReport) -> String {
            var lines = [
                "\(report.deckName): \(report.added.count) added, \(report.queuedAfter) of \(report.target) queued"
            ]
            lines += report.added.map { "  + \(SuggestionCommand.describe($0))\n      \($0.context)" }
            if let note = report.note { lines.append("  (\(note))") }
            return lines.joined(separator: "\n")
        }

        static func describe(_ images: ImagePipelineReport) -> String {
            var lines = ["images: \(images.made.count) made, now visible"]
            lines += images.retrying.map { "  '\($0.front)' failed, tried again later: \($0.reason)" }
            lines += images.removed.map {
                "  '\($0.front)' removed after \(ImageRetry.maximumFailures) failures: \($0.reason)"
            }
            return lines.joined(separator: "\n")
        }
    }
}
