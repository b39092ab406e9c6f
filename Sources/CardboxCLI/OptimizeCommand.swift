import ArgumentParser
import CardboxCore
import CardboxScheduling
import CardboxStore
import Foundation

extension FSRSCommand {
    struct Optimize: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "optimize",
            abstract: "Fit the 21 FSRS parameters to your own review history.",
            discussion: Help.paragraphs(
                """
                Reports log loss and RMSE(bins) before and after, and stores the fitted parameters on the
                deck (on every deck without DECK) when they predict your reviews better. Needs at least
                400 reviews made a day or more after the card's previous one.
                --input fits reviews in fsrs replay's JSON Lines format instead (nothing is stored).

                Examples:
                  cardbox fsrs optimize Spanish
                  cardbox fsrs optimize --input reviews.jsonl --json
                """))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The deck (id or name); every deck's reviews when left out.") var deck: String?
        @Option(help: "Fit reviews from this JSON Lines file instead of the store.") var input: String?
        @Flag(help: "Report without storing the parameters.") var dryRun = false

        struct Report: Encodable {
            var before: ModelMetrics
            var after: ModelMetrics
            var parameters: [Double]
            var stored: Bool
        }

        func validate() throws {
            if input != nil && deck != nil { throw ValidationError("use either DECK or --input") }
        }

        func run() throws {
            if let input {
                try report(
                    fit(try ReviewLine.histories(fromFile: input), start: FSRSParameters.defaultValues), stored: false)
            } else {
                try run(store: global.openStore())
            }
        }

        func run(store: CardboxStore) throws {
            let decks = try deck.map { [try store.deck(try store.resolve($0))] } ?? store.decks()
            let start =
                decks.count == 1
                ? decks[0].study.fsrsParameters ?? FSRSParameters.defaultValues : FSRSParameters.defaultValues
            let result = try fit(try store.reviewHistories(in: deck == nil ? nil : decks[0].id), start: start)
            let stored = dryRun ? false : try store.storeFittedParameters(result, in: deck == nil ? nil : [decks[0].id])
            try report(result, stored: stored)
        }

        private func fit(_ histories: [ReviewHistory], start: [Double]) throws -> FitResult {
            do {
                return try FSRSOptimizer().fit(histories, from: start) { epoch, epochs in
                    if Terminal.current.errorIsTerminal {
                        Terminal.current.writeError(Data("\r\u{1B}[Kfitting: epoch \(epoch)/\(epochs)".utf8))
                    }
                }
            } catch let error as SchedulingError {
                throw CardboxError.invalid(field: "reviews", reason: error.localizedDescription)
            }
        }

        private func report(_ result: FitResult, stored: Bool) throws {
            if Terminal.current.errorIsTerminal { Terminal.current.writeError(Data("\r\u{1B}[K".utf8)) }
            let report = Report(
                before: result.before, after: result.after, parameters: result.parameters, stored: stored)
            try Console.emit(report, json: output.json) { report in
                let metrics = Console.table(
                    [
                        [
                            "log loss", String(format: "%.4f", report.before.logLoss),
                            String(format: "%.4f", report.after.logLoss),
                        ],
                        [
                            "RMSE (bins)", String(format: "%.4f", report.before.rmseBins),
                            String(format: "%.4f", report.after.rmseBins),
                        ],
                    ], header: [Wording.counted(report.before.reviews, "review"), "BEFORE", "AFTER"])
                let parameters = report.parameters.map { String(format: "%.4f", $0) }.joined(separator: ",")
                let verdict =
                    report.stored
                    ? "stored the fitted parameters"
                    : (result.improves ? "not stored" : "kept the current parameters: the fit is no better")
                return metrics + "\n\nparameters: " + parameters + "\n" + verdict
            }
        }
    }
}
