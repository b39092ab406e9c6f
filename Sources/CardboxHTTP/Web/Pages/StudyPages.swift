import CardboxCore
import CardboxScheduling
import CardboxServer
import CardboxStore
import Foundation
import Hummingbird

/// A deck's stats page: charts of its reviews, retention, cards coming due and workload ahead.
struct StatsPage: Encodable {
    struct Span: Encodable {
        let days: Int
        let selected: Bool
    }

    struct StateCount: Encodable {
        let name: String
        let count: Int
    }

    struct Workload: Encodable {
        let reviews: String
        let newCards: String
        let hours: String
        let memorized: String
        let retention: String
    }

    let deck: DeckHeading
    let days: Int
    let spans: [Span]
    let reviewTotal: Int
    let reviewsChart: String
    let retentionRecent: String
    let retentionAll: String
    let retentionChart: String
    let forecastTotal: Int
    let forecastChart: String
    let cardCounts: [StateCount]
    let workload: Workload
    let workloadChart: String
}

/// Study and the study figures.
extension WebApp {
    /// Spans the stats page offers, in study days.
    static let statsSpans = [7, 30, 90, 365]

    func addStudyRoutes(to pages: RouterGroup<CardboxRequestContext>) {
        pages.get("decks/:deck/study") { request, context in try await studyPage(request, context) }
        pages.post("decks/:deck/study") { _, context in
            let deckId = try Self.deckId(context)
            guard let card = context.formFields["card"].flatMap(CardID.init) else {
                throw CardboxError.invalid(field: "card", reason: "the form names no card")
            }
            _ = try await actions.answer(
                try context.pageCaller(), in: deckId, card: card, rating: Int(context.formFields["rating"] ?? "") ?? 0)
            return WebPage.redirect("/decks/\(deckId)/study?answered")
        }
        pages.post("decks/:deck/study/undo") { _, context in
            let deckId = try Self.deckId(context)
            _ = try await actions.undo(try context.pageCaller(), in: deckId)
            return WebPage.redirect("/decks/\(deckId)/study")
        }
        pages.get("decks/:deck/stats") { request, context in try await statsPage(request, context) }
    }

    /// The next card of the deck; `?answered` (after an answer) offers to undo it.
    private func studyPage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let (deck, next) = try await actions.nextCard(try context.pageCaller(), in: try Self.deckId(context))
        let page = Self.studyPageModel(deck, next, canUndo: request.uri.queryParameters["answered"] != nil)
        return WebPage.html(.study, title: "Study \(deck.name)", page, context: context)
    }

    /// A deck's study page with its next card, as the browser's replica makes it offline.
    static func studyPageModel(_ deck: Deck, _ next: StudyCard?, canUndo: Bool) -> JSONValue {
        WebPageModels.study(
            deck: .init(id: deck.id.description, name: deck.name),
            next: next.map { next in
                let card = next.card
                return WebPageModels.StudyCard(
                    id: card.id.description, front: card.front, back: card.back, notes: card.notes,
                    clozeNumber: card.clozeNumber, imageHash: card.imageHash,
                    intervals: (1...4).map { rating in
                        next.nextDue[String(rating)].map { StudyInterval.label(from: next.at, to: $0) } ?? ""
                    },
                    remaining: (next.remaining.new, next.remaining.learning, next.remaining.review))
            }, canUndo: canUndo)
    }

    /// A deck's study figures as charts: reviews per day, retention, and the cards coming due.
    private func statsPage(_ request: Request, _ context: CardboxRequestContext) async throws -> Response {
        let days = Int(request.uri.queryParameters["days"].map(String.init) ?? "") ?? 30
        guard Self.statsSpans.contains(days) else {
            throw CardboxError.invalid(field: "days", reason: "must be one of 7, 30, 90 or 365")
        }
        let (deck, stats, timeZone) = try await actions.stats(
            try context.pageCaller(), try Self.deckId(context), days: days)
        let percent = { (retention: Retention) in retention.rate.map { "\(Int(($0 * 100).rounded())) %" } ?? "none yet"
        }
        let dayBars = { (counts: [DayCount], noun: String) in
            counts.map {
                // A study day starts at the account's local time (the dayStartHour setting, in its
                // time zone): its date is the local one.
                let day = PageText.day($0.day, timeZone)
                return SVGChart.Bar(
                    label: String(day.dropFirst(5)), value: Double($0.count), title: "\($0.count) \(noun) \(day)")
            }
        }
        let retention = [("last \(days) days", stats.retentionRecent), ("all time", stats.retentionAllTime)].map {
            SVGChart.Bar(
                label: $0.0, value: $0.1.rate ?? 0,
                title: "\(percent($0.1)) remembered, \($0.1.passed) of \($0.1.reviews) reviews, \($0.0)")
        }
        let (workload, workloadChart) = try await workload(context, deck, days: days, timeZone: timeZone)
        let page = StatsPage(
            deck: DeckHeading(deck), days: days, spans: Self.statsSpans.map { .init(days: $0, selected: $0 == days) },
            reviewTotal: stats.reviewsPerDay.reduce(0) { $0 + $1.count },
            reviewsChart: SVGChart.bars(
                dayBars(stats.reviewsPerDay, "reviews on"), description: "Reviews on each of the last \(days) days",
                id: "reviews-chart"),
            retentionRecent: percent(stats.retentionRecent), retentionAll: percent(stats.retentionAllTime),
            retentionChart: SVGChart.bars(
                retention, description: "Share of reviews remembered", maximum: 1, id: "retention-chart"),
            forecastTotal: stats.dueForecast.reduce(0) { $0 + $1.count },
            forecastChart: SVGChart.bars(
                dayBars(stats.dueForecast, "cards due on"), description: "Cards due on each of the next \(days) days",
                id: "forecast-chart"),
            cardCounts: ["new", "learning", "review", "relearning", "archived"].map {
                .init(name: $0, count: stats.cardCounts[$0] ?? 0)
            },
            workload: workload, workloadChart: workloadChart)
        return WebPage.html(.stats, title: "Stats: \(deck.name)", page, context: context)
    }

    /// The workload simulator's view of the next `days` at the deck's desired retention: the
    /// totals, and minutes a day as a chart.
    private func workload(
        _ context: CardboxRequestContext, _ deck: Deck, days: Int, timeZone: TimeZone
    ) async throws -> (StatsPage.Workload, chart: String) {
        let (_, simulation) = try await actions.simulation(try context.pageCaller(), deck.id, days: days)
        let result = try await Self.offThePool {
            try simulation.simulator.simulate(
                desiredRetention: deck.study.desiredRetention, existing: simulation.existing)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = simulation.firstDay ?? calendar.startOfDay(for: options.now())
        let bars = result.seconds.enumerated().map { index, seconds in
            let day = PageText.day(calendar.date(byAdding: .day, value: index, to: today) ?? today, timeZone)
            let minutes = Int((seconds / 60).rounded())
            return SVGChart.Bar(
                label: String(day.dropFirst(5)), value: seconds / 60,
                title: "\(minutes) min on \(day): \(result.reviews[index]) reviews, \(result.newCards[index]) new")
        }
        let totals = StatsPage.Workload(
            reviews: result.reviews.reduce(0, +).formatted(), newCards: result.newCards.reduce(0, +).formatted(),
            hours: String(format: "%.1f", result.seconds.reduce(0, +) / 3600),
            memorized: String(format: "%.0f", result.memorized.last ?? 0),
            retention: String(format: "%.2f", deck.study.desiredRetention))
        let chart = SVGChart.bars(
            bars, description: "Expected study minutes on each of the next \(days) days", id: "workload-chart")
        return (totals, chart)
    }
}
