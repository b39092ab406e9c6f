import ArgumentParser
import CardboxCore
import CardboxStore
import Foundation

struct TagCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag", abstract: "List, rename and delete tags.",
        discussion: "Examples:\n  cardbox tag list\n  cardbox tag rename verb verbs",
        subcommands: [List.self, Rename.self, Delete.self])

    struct List: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List tags with how many cards carry each.", discussion: "Example:\n  cardbox tag list")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(store: CardboxStore) throws {
            try Console.emit(try store.tags(), json: output.json) { tags in
                tags.isEmpty
                    ? "no tags"
                    : Console.table(tags.map { [$0.name, "\($0.cardCount)"] }, header: ["TAG", "CARDS"])
            }
        }
    }

    struct Rename: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Rename a tag (merging into an existing tag of that name).",
            discussion: "Example:\n  cardbox tag rename verb verbs")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The tag's name (case-insensitive).") var tag: String
        @Argument(help: "Its new name.") var newName: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.renameTag(tag, to: newName), json: output.json) {
                "renamed tag to \($0.name) (\(Wording.counted($0.cardCount, "card")))"
            }
        }
    }

    struct Delete: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a tag; its cards stay.", discussion: "Example:\n  cardbox tag delete verbs")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The tag's name (case-insensitive).") var tag: String

        func run(store: CardboxStore) throws {
            try store.deleteTag(tag)
            Terminal.current.print("deleted tag \(tag)")
        }
    }
}

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Show or set the account's plan and card limit.",
        discussion: "Examples:\n  cardbox plan show\n  cardbox plan set premium",
        subcommands: [Show.self, Set.self])

    static func describe(_ allowance: CardAllowance) -> String {
        guard let limit = allowance.cardLimit else {
            return "plan: premium — unlimited cards (\(Wording.counted(allowance.cardCount, "card")))"
        }
        return "plan: free — \(allowance.cardCount) of \(limit) cards used, \(allowance.remainingCards ?? 0) remaining"
    }

    struct Show: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the plan, cards used and cards remaining.", discussion: "Example:\n  cardbox plan show")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(store: CardboxStore) throws {
            try Console.emit(try store.allowance(), json: output.json, PlanCommand.describe)
        }
    }

    struct Set: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set the plan: free (limited cards) or premium (unlimited).",
            discussion: Help.paragraphs(
                """
                'plan set free' sets the free plan's limit to 25 cards (seed 001's) unless --free-limit
                gives another. Cards past the limit are kept, but none can be added until there is room.

                Examples:
                  cardbox plan set premium
                  cardbox plan set free --free-limit 50
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "free or premium.") var plan: String
        @Option(help: "The free plan's card limit (default 25).") var freeLimit: Int?

        func run(store: CardboxStore) throws {
            let plan = try Plan.validate(plan)
            if let link = try store.syncLink() {
                throw CardboxError.invalid(
                    field: "plan",
                    reason:
                        "this store is signed in to \(link.server) as \(link.user), where the plan is the account's "
                        + "and each sync takes it: the server's administrator sets it with "
                        + "'cardbox admin user set-plan \(link.user) \(plan.rawValue)'")
            }
            let limit = plan == .free ? (freeLimit ?? Limits.freeCardLimit) : freeLimit
            let allowance = try store.setPlan(plan, freeCardLimit: limit)
            if let cardLimit = allowance.cardLimit, allowance.cardCount > cardLimit {
                Terminal.current.writeError(
                    Data(
                        ("warning: you have \(Wording.counted(allowance.cardCount, "card")), more than the free plan's \(cardLimit): "
                            + "they are kept, but no card can be added until there are fewer than \(cardLimit)\n")
                            .utf8))
            }
            try Console.emit(allowance, json: output.json, PlanCommand.describe)
        }
    }
}

struct EventsCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Show the local usage-event log: counts per event (no card content).",
        discussion: "Examples:\n  cardbox events\n  cardbox events --recent 20 --json")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "List the most recent events instead of counts.") var recent: Int?

    func validate() throws {
        if let recent, recent < 1 { throw ValidationError("--recent must be 1 or more") }
    }

    func run(store: CardboxStore) throws {
        if let recent {
            try Console.emit(try store.usageEvents(limit: recent), json: output.json) { events in
                Console.table(
                    events.map {
                        [
                            Console.date($0.occurredAt), $0.name.rawValue, $0.cardLanguage ?? "",
                            $0.tagCount.map { "\($0)" } ?? "",
                        ]
                    }, header: ["TIME", "EVENT", "LANGUAGE", "TAGS"])
            }
            return
        }
        try Console.emit(try store.usageEventCounts(), json: output.json) { counts in
            counts.isEmpty
                ? "no events yet"
                : Console.table(
                    counts.map { [$0.name.rawValue, "\($0.count)", Console.date($0.lastOccurredAt)] },
                    header: ["EVENT", "COUNT", "LAST"])
        }
    }
}

struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Show or change the user's settings.",
        discussion: "Examples:\n  cardbox settings show\n  cardbox settings set showCrossedOutItems true",
        subcommands: [Show.self, Set.self])

    static func describe(_ settings: UserSettings) -> String {
        """
        showCrossedOutItems: \(settings.showCrossedOutItems)
        exportPreferences: \(settings.exportPreferences.jsonText)
        rejectedSuggestionRetentionDays: \(settings.rejectedSuggestionRetentionDays)
        dayStartHour: \(settings.dayStartHour)
        timeZone: \(settings.timeZone ?? "none (each device's own)")
        """
    }

    struct Show: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the settings.", discussion: "Example:\n  cardbox settings show --json")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run(store: CardboxStore) throws {
            try Console.emit(try store.settings(), json: output.json, SettingsCommand.describe)
        }
    }

    struct Set: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change one setting.",
            discussion: Help.paragraphs(
                """
                Keys: showCrossedOutItems (true/false), exportPreferences (a JSON object),
                rejectedSuggestionRetentionDays (days), dayStartHour (0–23, when a study day begins),
                timeZone (e.g. Europe/Madrid: where study days begin on the server's copy, for the web app;
                each device counts them in its own zone).

                Example:
                  cardbox settings set showCrossedOutItems true
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The setting's name.") var key: String
        @Argument(help: "Its new value.") var value: String

        func run(store: CardboxStore) throws {
            try Console.emit(try store.setSetting(key, to: value), json: output.json, SettingsCommand.describe)
        }
    }
}
