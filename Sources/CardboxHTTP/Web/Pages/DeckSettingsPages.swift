import CardboxCore
import CardboxScheduling
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird

/// The deck page's settings form: name, suggestions kept queued, FSRS, and the fit of FSRS to
/// the deck's reviews.
struct DeckSettingsForm: Encodable {
    /// What the form shows beyond the deck's settings: a recommended retention (filled in, so Save
    /// keeps it), why there is none, or a fit waiting to be kept. Each opens the form.
    struct Shown {
        var recommendation: Double?
        var noRecommendation: String?
        var fit: FitResult?
    }

    /// The study settings as the form shows them: as stored, or as typed before a refusal.
    struct Study: Encodable {
        let desiredRetention: String
        let newCardsPerDay: String
        let reviewsPerDay: String
        let learningSteps: String
        let relearningSteps: String
        let maximumInterval: String
        let enableFuzz: Bool
    }

    struct Fit: Encodable {
        let reviews: Int
        let improves: Bool
        let logLossBefore: String
        let logLossAfter: String
        let rmseBefore: String
        let rmseAfter: String
        /// The fitted parameters, as the Keep button posts them.
        let parameters: String

        init(_ fit: FitResult) {
            reviews = fit.after.reviews
            improves = fit.improves
            let figure = { (value: Double) in String(format: "%.4f", value) }
            (logLossBefore, logLossAfter) = (figure(fit.before.logLoss), figure(fit.after.logLoss))
            (rmseBefore, rmseAfter) = (figure(fit.before.rmseBins), figure(fit.after.rmseBins))
            parameters = fit.parameters.map { String($0) }.joined(separator: ",")
        }
    }

    let deckName: String
    let queuedSuggestions: String
    let study: Study
    let recommendation: String?
    let noRecommendation: String?
    let fit: Fit?
    let open: Bool

    /// The form for `deck`; with `typed` (a refused form's fields), every field as it was typed,
    /// and the form open.
    init(_ deck: Deck, _ shown: Shown, typed: [String: String]? = nil) {
        let settings = deck.study
        let recommendation = shown.recommendation.map { String(format: "%.2f", $0) }
        func field(_ name: String, _ stored: some CustomStringConvertible) -> String {
            typed.map { $0[name] ?? "" } ?? stored.description
        }
        deckName = field("name", deck.name)
        queuedSuggestions = field("queuedSuggestions", deck.queuedSuggestions)
        study = Study(
            desiredRetention: recommendation ?? field("desiredRetention", settings.desiredRetention),
            newCardsPerDay: field("newCardsPerDay", settings.newCardsPerDay),
            reviewsPerDay: field("reviewsPerDay", settings.reviewsPerDay),
            learningSteps: field("learningSteps", settings.learningSteps),
            relearningSteps: field("relearningSteps", settings.relearningSteps),
            maximumInterval: field("maximumInterval", settings.maximumInterval),
            enableFuzz: typed.map { $0["enableFuzz"] == "true" } ?? settings.enableFuzz)
        self.recommendation = recommendation
        noRecommendation = shown.noRecommendation
        fit = shown.fit.map(Fit.init)
        open = typed != nil || shown.recommendation != nil || shown.noRecommendation != nil || shown.fit != nil
    }

    /// The form's labels, by the field names the rules refuse with: a refusal names the field as
    /// the page does ("Learning steps: '1 minute' is not a step like 1m, …").
    static let labels = [
        "name": "Name", "queuedSuggestions": "Suggestions to keep queued",
        "queued suggestions": "Suggestions to keep queued", "desired retention": "Desired retention",
        "new cards a day": "New cards a day", "reviews a day": "Reviews a day", "learning steps": "Learning steps",
        "relearning steps": "Relearning steps", "maximum interval": "Longest interval",
        "longest interval": "Longest interval",
    ]

    /// `error` with its field named by the form's label.
    static func labelled(_ error: CardboxError) -> CardboxError {
        guard case .invalid(let field, let reason) = error, let label = labels[field] else { return error }
        return .invalid(field: label, reason: reason)
    }
}

/// A deck's settings, its fitted FSRS parameters, and what acts on the whole deck.
extension WebApp {
    func addDeckSettingsRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.post("decks/:deck/settings") { request, context in
            try await changeSettings(request, context) { caller, deck, form in
                guard let queued = Int(form["queuedSuggestions"] ?? "") else {
                    throw CardboxError.invalid(field: "queued suggestions", reason: "must be a whole number")
                }
                try await actions.configureDeck(
                    caller, deck, name: form["name"] ?? "", queuedSuggestions: queued,
                    study: try Self.studySettings(form))
            }
        }
        pages.get("decks/:deck/recommended-retention") { request, context in
            try await recommendedRetention(request, context)
        }
        pages.post("decks/:deck/optimize") { request, context in try await optimize(request, context) }
        pages.post("decks/:deck/parameters") { request, context in
            try await changeSettings(request, context) { caller, deck, form in
                try await actions.keepParameters(caller, deck, form["parameters"] ?? "")
            }
        }
        pages.post("decks/:deck/merge") { _, context in
            try await change(context, then: { into in "/decks/\(into)" }) { caller, form in
                try await actions.mergeDeck(
                    caller, try Self.deckId(context), into: try Self.id(form["into"] ?? "", kind: "deck")
                ).id.description
            }
        }
        pages.post("decks/:deck/delete") { _, context in
            try await change(context, then: { _ in "/decks" }) { caller, _ in
                try await actions.deleteDeck(caller, try Self.deckId(context))
            }
        }
        pages.post("decks/:deck/flows/:flow") { _, context in
            try await change(context, then: { tab in try Self.tabPath(context, tab) }) { caller, form in
                let flow: AccountActions.DeckFlow = try Self.choice(context, "flow")
                _ = try await actions.run(caller, flow, in: try Self.deckId(context))
                return form["tab"] ?? ""
            }
        }
    }

    /// A change of the deck's settings: back to the deck, or its page with the refusal.
    private func changeSettings(
        _ request: Request, _ context: CardboxRequestContext,
        _ body: (Caller, DeckID, [String: String]) async throws -> Void
    ) async throws -> Response {
        let deck = try Self.deckId(context)
        do {
            return try await change(context, then: { _ in "/decks/\(deck)" }) { caller, form in
                try await body(caller, deck, form)
            }
        } catch let error as CardboxError {
            if case .notFound = error { throw error }
            var extras = DeckPageExtras(refusal: DeckSettingsForm.labelled(error))
            // The settings form's own fields (the Keep button posts only parameters).
            if context.formFields["name"] != nil { extras.typedSettings = context.formFields }
            return try await deckPage(request, context, extras).response
        }
    }

    /// A deck's study settings from its settings form (nil when the form has none of them).
    static func studySettings(_ form: [String: String]) throws -> StudySettings? {
        guard form["desiredRetention"] != nil else { return nil }
        func number<T: LosslessStringConvertible>(_ name: String, _ label: String) throws -> T {
            guard let value = form[name].flatMap({ T($0.trimmingCharacters(in: .whitespaces)) }) else {
                throw CardboxError.invalid(field: label, reason: "must be a number")
            }
            return value
        }
        var study = StudySettings()
        study.desiredRetention = try number("desiredRetention", "desired retention")
        study.newCardsPerDay = try number("newCardsPerDay", "new cards a day")
        study.reviewsPerDay = try number("reviewsPerDay", "reviews a day")
        study.learningSteps = form["learningSteps"] ?? ""
        study.relearningSteps = form["relearningSteps"] ?? ""
        study.maximumInterval = try number("maximumInterval", "longest interval")
        study.enableFuzz = form["enableFuzz"] == "true"
        return study
    }

    /// The deck page with the recommended desired retention filled into its settings (a year of
    /// study simulated: see `WorkloadSimulator.optimalRetention`). One at a time on a server: each
    /// is a few seconds of every core.
    private func recommendedRetention(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let (_, simulation) = try await actions.simulation(
            try context.pageCaller(), try Self.deckId(context), days: 365)
        // Without a card studied, the simulation knows nothing of this deck's memory and would
        // answer the lowest retention it may: say so instead.
        guard !simulation.existing.isEmpty else {
            var extras = DeckPageExtras()
            extras.settings.noRecommendation =
                "No reviews yet: study some of this deck's cards, then ask again."
            return try await deckPage(request, context, extras).response
        }
        guard recommending.take() else {
            return try await busy(request, context, "Another recommended retention is being worked out")
        }
        defer { recommending.release() }
        var extras = DeckPageExtras()
        extras.settings.recommendation = try await Self.offThePool {
            try simulation.simulator.optimalRetention(existing: simulation.existing)
        }
        return try await deckPage(request, context, extras).response
    }

    /// Fits FSRS to the deck's reviews and shows the old and new fit, with a button to keep the new
    /// parameters (nothing is kept before). One fit at a time on a server.
    private func optimize(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let (histories, start) = try await actions.fitInputs(try context.pageCaller(), try Self.deckId(context))
        guard fitting.take() else { return try await busy(request, context, "Another fit is being worked out") }
        defer { fitting.release() }
        do {
            var extras = DeckPageExtras()
            extras.settings.fit = try await Self.offThePool { try FSRSOptimizer().fit(histories, from: start) }
            return try await deckPage(request, context, extras).response
        } catch let error as SchedulingError {
            let refusal = CardboxError.invalid(field: "reviews", reason: error.localizedDescription)
            return try await deckPage(request, context, DeckPageExtras(refusal: refusal)).response
        }
    }

    /// The deck page saying that work done one at a time on a server is under way for someone else.
    private func busy(_ request: Request, _ context: CardboxRequestContext, _ what: String) async throws -> Response {
        var extras = DeckPageExtras()
        extras.error = "\(what) on this server: try again in a moment."
        return try await deckPage(request, context, extras).response
    }
}
