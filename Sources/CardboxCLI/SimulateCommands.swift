import ArgumentParser
import CardboxCore
import CardboxScheduling
import CardboxStore
import Foundation

/// What `fsrs simulate` and `fsrs optimal-retention` share: the deck (or fsrs-rs's default deck of
/// 10,000 new cards) and the simulation's horizon and pace.
struct SimulationOptions: ParsableArguments {
    @Argument(help: "The deck (id or name); fsrs-rs's default deck of 10,000 new cards when left out.")
    var deck: String?
    @Option(help: "Days to simulate (1 to 3650).") var days = 365
    @Option(help: "New cards a day (default: the deck's limit; no limit without a deck).") var newPerDay: Int?
    @Option(help: "New cards to add to the deck's own (without a deck: the deck's size).") var cards: Int?
    @Option(help: "Study minutes a day, past which the day's remaining cards wait.") var minutesPerDay = 30.0

    func validate() throws {
        guard (1...3_650).contains(days) else { throw ValidationError("--days must be 1 to 3650, got \(days)") }
        if let newPerDay, newPerDay < 0 { throw ValidationError("--new-per-day must be 0 or more, got \(newPerDay)") }
        if let cards, cards < 0 || (deck == nil && cards == 0) {
            throw ValidationError("--cards must be \(deck == nil ? "1" : "0") or more, got \(cards)")
        }
        guard minutesPerDay > 0 else { throw ValidationError("--minutes-per-day must be more than 0") }
    }

    /// The simulation, the deck's desired retention, and the deck's name ("a deck of N new cards").
    func simulation(_ global: GlobalOptions) throws -> (DeckSimulation, retention: Double, name: String) {
        var (simulation, retention, name): (DeckSimulation, Double, String)
        if let deck {
            (simulation, retention, name) = try global.withStore { store in
                let (deck, simulation) = try store.simulation(
                    of: try store.resolve(deck), days: days, newPerDay: newPerDay, extraNewCards: cards ?? 0)
                return (simulation, deck.study.desiredRetention, deck.name)
            }
        } else {
            var settings = SimulationSettings()
            settings.days = days
            settings.newPerDay = newPerDay
            settings.deckSize = cards ?? settings.deckSize
            let simulator = try WorkloadSimulator(parameters: .defaults, settings: settings)
            simulation = DeckSimulation(simulator: simulator, existing: [])
            (retention, name) = (0.9, "a deck of \(settings.deckSize.formatted()) new cards")
        }
        var settings = simulation.simulator.settings
        settings.maximumSecondsPerDay = minutesPerDay * 60
        simulation.simulator = try WorkloadSimulator(parameters: simulation.simulator.parameters, settings: settings)
        return (simulation, retention, name)
    }
}

extension FSRSCommand {
    struct Simulate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate",
            abstract: "Simulate the workload ahead: reviews, new cards, time and cards memorized, day by day.",
            discussion: Help.paragraphs(
                """
                FSRS's workload simulator, as Anki's deck options run it: each day's due reviews, then new
                cards, until a limit or the day's minutes run out; each answer drawn from the card's
                retrievability. A deck's own parameters, limits and cards are used, with the odds and
                costs of answers measured from its reviews (fsrs-rs's defaults where it has few).
                Memorized is the sum of every studied card's chance of recall that day.

                With several --seed, each seed is a run of its own, and the report gives each run's
                totals and their mean: one command compares a deck over several runs.

                Examples:
                  cardbox fsrs simulate Spanish --desired-retention 0.85
                  cardbox fsrs simulate --days 90 --new-per-day 20 --json
                  cardbox fsrs simulate --cards 500 --days 90 --seed 42 --seed 43 --seed 44
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var options: SimulationOptions
        @Option(help: "Desired retention, 0.7 to 0.99 (default: the deck's).") var desiredRetention: Double?
        @Option(help: "The random seed: the same seed gives the same run. Repeat it for several runs.")
        var seed: [UInt64] = [42]

        struct Report: Encodable {
            var deck: String
            var desiredRetention: Double
            var days: Int
            var totals: Totals
            var perDay: SimulationResult
        }

        struct Totals: Encodable {
            var reviews: Int
            var newCards: Int
            var minutes: Double
            var memorized: Double

            init(_ result: SimulationResult) {
                reviews = result.reviews.reduce(0, +)
                newCards = result.newCards.reduce(0, +)
                minutes = result.seconds.reduce(0, +) / 60
                memorized = result.memorized.last ?? 0
            }

            /// The mean of several runs' totals (reviews and new cards rounded).
            init(mean runs: [Totals]) {
                let count = Double(max(1, runs.count))
                reviews = Int((Double(runs.map(\.reviews).reduce(0, +)) / count).rounded())
                newCards = Int((Double(runs.map(\.newCards).reduce(0, +)) / count).rounded())
                minutes = runs.map(\.minutes).reduce(0, +) / count
                memorized = runs.map(\.memorized).reduce(0, +) / count
            }
        }

        /// Several seeds: each run's totals and days, and the mean of the totals.
        struct Runs: Encodable {
            struct Run: Encodable {
                var seed: UInt64
                var totals: Totals
                var perDay: SimulationResult
            }

            var deck: String
            var desiredRetention: Double
            var days: Int
            var runs: [Run]
            var mean: Totals
        }

        func validate() throws {
            if let desiredRetention, !(0.7...0.99).contains(desiredRetention) {
                throw ValidationError("--desired-retention must be 0.7 to 0.99, got \(desiredRetention)")
            }
            guard seed.count <= 100 else { throw ValidationError("--seed may be given at most 100 times") }
        }

        func run() throws {
            let (simulation, deckRetention, name) = try options.simulation(global)
            let retention = desiredRetention ?? deckRetention
            let runs = try seed.map { seed in
                let result = try simulation.simulator.simulate(
                    desiredRetention: retention, existing: simulation.existing, seed: seed)
                return Runs.Run(seed: seed, totals: Totals(result), perDay: result)
            }
            if let only = runs.first, runs.count == 1 {
                let report = Report(
                    deck: name, desiredRetention: retention, days: options.days, totals: only.totals,
                    perDay: only.perDay)
                try Console.emit(report, json: output.json) { report in Self.describe(report) }
            } else {
                let report = Runs(
                    deck: name, desiredRetention: retention, days: options.days, runs: runs,
                    mean: Totals(mean: runs.map(\.totals)))
                try Console.emit(report, json: output.json) { report in Self.describe(report) }
            }
        }

        static func describe(_ report: Runs) -> String {
            let rows = report.runs.map { run in
                [String(run.seed)] + Self.cells(run.totals)
            }
            return [
                "\(report.deck), \(Wording.counted(report.days, "day")) at desired retention \(String(format: "%.2f", report.desiredRetention)), \(Wording.counted(report.runs.count, "run")):",
                "",
                Console.table(
                    rows + [["mean"] + Self.cells(report.mean)],
                    header: ["seed", "reviews", "new", "hours", "memorized"]),
            ].joined(separator: "\n")
        }

        private static func cells(_ totals: Totals) -> [String] {
            [
                totals.reviews.formatted(), totals.newCards.formatted(), String(format: "%.1f", totals.minutes / 60),
                String(format: "%.0f", totals.memorized),
            ]
        }

        static func describe(_ report: Report) -> String {
            let result = report.perDay
            let weeks = stride(from: 0, to: report.days, by: 7).map { start in start..<min(start + 7, report.days) }
            let rows = weeks.enumerated().map { index, days in
                [
                    String(index + 1), String(days.reduce(0) { $0 + result.reviews[$1] }),
                    String(days.reduce(0) { $0 + result.newCards[$1] }),
                    String(format: "%.0f", days.reduce(0) { $0 + result.seconds[$1] } / 60),
                    String(format: "%.0f", result.memorized[days.upperBound - 1]),
                ]
            }
            let minutes = weeks.map { days in days.reduce(0) { $0 + result.seconds[$1] } / 60 / Double(days.count) }
            let memorized = weeks.map { result.memorized[$0.upperBound - 1] }
            return [
                "\(report.deck), \(Wording.counted(report.days, "day")) at desired retention \(String(format: "%.2f", report.desiredRetention)):",
                "  \(report.totals.reviews.formatted()) reviews, \(report.totals.newCards.formatted()) new cards, "
                    + "\(String(format: "%.1f", report.totals.minutes / 60)) hours; "
                    + "\(String(format: "%.0f", report.totals.memorized)) cards memorized at the end",
                "  minutes a day  \(Chart.sparkline(minutes))  (a mark a week, at most \(String(format: "%.1f", minutes.max() ?? 0)))",
                "  memorized      \(Chart.sparkline(memorized))  (at most \(String(format: "%.0f", memorized.max() ?? 0)))",
                "",
                Console.table(rows, header: ["week", "reviews", "new", "minutes", "memorized"]),
            ].joined(separator: "\n")
        }
    }

    struct OptimalRetention: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "optimal-retention",
            abstract: "The desired retention that costs least study time per card memorized.",
            discussion: Help.paragraphs(
                """
                Simulates the deck (see fsrs simulate) at desired retentions from 0.70 to 0.95, several
                seeded runs each, and finds the one with the least study time per card memorized at the
                end of the horizon, as fsrs-rs's optimal_retention does. Set it with
                cardbox deck edit DECK --desired-retention R.

                Examples:
                  cardbox fsrs optimal-retention Spanish
                  cardbox fsrs optimal-retention --days 180 --json
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var options: SimulationOptions

        struct Report: Encodable {
            var deck: String
            var desiredRetention: Double
            var current: Double
            var days: Int
        }

        func run() throws {
            let (simulation, current, name) = try options.simulation(global)
            var tried = 0
            let best = try simulation.simulator.optimalRetention(existing: simulation.existing) { retention in
                tried += 1
                if Terminal.current.errorIsTerminal {
                    Terminal.current.writeError(
                        Data("\r\u{1B}[Ksimulating: try \(tried), retention \(String(format: "%.3f", retention))".utf8))
                }
            }
            if Terminal.current.errorIsTerminal { Terminal.current.writeError(Data("\r\u{1B}[K".utf8)) }
            let report = Report(deck: name, desiredRetention: best, current: current, days: options.days)
            try Console.emit(report, json: output.json) { report in
                "\(report.deck): recommended desired retention \(String(format: "%.2f", report.desiredRetention)) "
                    + "(now \(String(format: "%.2f", report.current))), the least study time per card memorized "
                    + "over \(Wording.counted(report.days, "day"))"
            }
        }
    }
}

extension Chart {
    /// One block a value, its height in eighths of the largest (the lowest mark for none).
    static func sparkline(_ values: [Double]) -> String {
        let top = values.max() ?? 0
        return String(values.map { levels[1 + (top > 0 ? min(Int($0 / top * 7.999), 7) : 0)] })
    }
}
