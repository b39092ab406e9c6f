import ArgumentParser
import CardboxCore
import CardboxScheduling
import Foundation

struct FSRSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fsrs",
        abstract:
            "The FSRS-6 scheduler on its own: replay review histories, fit its parameters, simulate the workload ahead.",
        discussion:
            "Example:\n  echo '{\"card\":\"c1\",\"rating\":3,\"time\":\"2025-01-01T09:00:00Z\"}' | cardbox fsrs replay",
        subcommands: [Replay.self, Optimize.self, Simulate.self, OptimalRetention.self])

    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replay",
            abstract: "Replay reviews (JSON Lines on stdin) and print each card's state after each review.",
            discussion: Help.paragraphs(
                """
                Input, one review a line (cards independent; each card's lines in time order):
                  {"card":"c1","rating":3,"time":"2025-01-01T09:00:00Z"}
                Output, one line per review: the state after it, and the retrievability just before it:
                  {"card","state","step","stability","difficulty","due","retrievability"}
                Ratings: 1 again, 2 hard, 3 good, 4 easy. Fuzz is off.

                Example:
                  cardbox fsrs replay --desired-retention 0.85 --learning-steps 1m,10m,1h < reviews.jsonl
                """))

        @Option(help: "The 21 FSRS-6 parameters, comma-separated (default: FSRS-6's defaults).")
        var parameters: String?
        @Option(help: "Desired retention, between 0 and 1.") var desiredRetention = 0.9
        @Option(help: "Learning steps, e.g. 1m,10m (an empty string for none).") var learningSteps = "1m,10m"
        @Option(help: "Relearning steps, e.g. 10m (an empty string for none).") var relearningSteps = "10m"
        @Option(help: "The longest interval, in days.") var maximumInterval = 36_500

        func run() throws {
            var replayer = ReviewReplayer(scheduler: try scheduler())
            var lineNumber = 0
            while let line = Terminal.current.readLine() {
                lineNumber += 1
                if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                Terminal.current.print(try replayer.replay(line: line, lineNumber: lineNumber))
            }
        }

        func scheduler() throws -> Scheduler {
            return try Scheduler(
                parameters: parameters.map(FSRSParameters.init(parsing:)) ?? .defaults,
                desiredRetention: desiredRetention,
                learningSteps: StepList.parse(learningSteps, field: "learning steps"),
                relearningSteps: StepList.parse(relearningSteps, field: "relearning steps"),
                maximumInterval: maximumInterval)
        }
    }
}
