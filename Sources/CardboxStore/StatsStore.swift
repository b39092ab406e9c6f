import CardboxCore
import CardboxScheduling
import Foundation
import GRDB

/// A count for one study day.
public struct DayCount: Codable, Sendable, Equatable {
    /// The study day's start (local time; the day starts at the `dayStartHour` setting).
    public var day: Date
    public var count: Int
}

/// Share of reviews of review-state cards that were remembered (rated Hard, Good or Easy): Anki's
/// "true retention".
public struct Retention: Encodable, Sendable, Equatable {
    public var reviews: Int
    public var passed: Int
    public var rate: Double? { reviews == 0 ? nil : Double(passed) / Double(reviews) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reviews, forKey: .reviews)
        try container.encode(passed, forKey: .passed)
        try container.encode(rate, forKey: .rate)
    }

    enum CodingKeys: String, CodingKey { case reviews, passed, rate }
}

public struct StudyStats: Encodable, Sendable, Equatable {
    /// How many study days the recent figures cover (30 unless asked otherwise).
    public var days: Int
    /// Reviews on each of the last `days` study days, oldest first (today last).
    public var reviewsPerDay: [DayCount]
    /// True retention over the last `days` study days.
    public var retentionRecent: Retention
    public var retentionAllTime: Retention
    /// Cards coming due on each of the next `days` study days (today first, overdue cards included in it).
    public var dueForecast: [DayCount]
    /// Cards by state (new, learning, review, relearning) and archived.
    public var cardCounts: [String: Int]
}

extension CardboxStore {
    /// The time zone this store counts study days in: its environment's, or the account's setting
    /// where the store follows it (see `StoreEnvironment.followsAccountTimeZone`).
    public func studyTimeZone() throws -> TimeZone {
        try read { context in context.studyTimeZone(try context.settings()) }
    }

    /// A deck as the workload simulator starts from it now: its cards, its review log and its study
    /// days' time zone (see `DeckSimulation`).
    public func simulation(
        of deckReference: DeckID, days: Int, newPerDay: Int? = nil, extraNewCards: Int = 0
    ) throws -> (deck: Deck, simulation: DeckSimulation) {
        let deck = try deck(deckReference)
        let now = environment.now()
        let simulation = try DeckSimulation(
            study: deck.study, cards: try cards(in: deck.id), reviews: try reviewLog(in: deck.id),
            now: now, today: try read { try $0.studyDay(now: now).start }, timeZone: try studyTimeZone(), days: days,
            newPerDay: newPerDay, extraNewCards: extraNewCards)
        return (deck, simulation)
    }

    public func stats(in deckReference: DeckID?, days: Int = 30) throws -> StudyStats {
        guard (1...3_650).contains(days) else {
            throw CardboxError.invalid(field: "days", reason: "must be 1 to 3650, got \(days)")
        }
        let now = environment.now()
        return try read { context in
            let timeZone = context.studyTimeZone(try context.settings())
            let (scope, arguments) = try context.deckScope(deckReference, of: .reviewLog)
            let cardScope = try context.deckScope(deckReference, of: .card).sql
            let today = try context.studyDay(now: now)
            let starts = (0...days).map { today.start(offsetBy: $0 - days + 1, timeZone: timeZone) }
            let future = (0...days).map { today.start(offsetBy: $0, timeZone: timeZone) }

            let reviews = try Row.fetchAll(
                context.db.cachedStatement(
                    sql: "SELECT reviewedAt, rating, stateBefore FROM reviewLog WHERE \(scope) AND reviewedAt >= ?"),
                arguments: arguments + [starts[0].storageMillis])
            let reviewTimes = reviews.map { Date(storageMillis: $0["reviewedAt"]) }
            let recent = reviews.filter { ($0["stateBefore"] as String) == CardState.review.rawValue }
            let allTime = try Row.fetchOne(
                context.db.cachedStatement(
                    sql: """
                        SELECT COUNT(*) AS reviews, COALESCE(SUM(CASE WHEN rating > 1 THEN 1 ELSE 0 END), 0) AS passed
                        FROM reviewLog WHERE \(scope) AND stateBefore = 'review'
                        """), arguments: arguments)
            let dueTimes = try Int64.fetchAll(
                context.db.cachedStatement(
                    sql: """
                        SELECT dueAt FROM card WHERE \(cardScope) AND isArchived = 0 AND state <> 'new' AND dueAt < ?
                        """), arguments: arguments + [future[days].storageMillis]
            ).map(Date.init(storageMillis:))

            var cardCounts = Dictionary(uniqueKeysWithValues: CardState.allCases.map { ($0.rawValue, 0) })
            for row in try Row.fetchAll(
                context.db.cachedStatement(
                    sql:
                        "SELECT state, COUNT(*) AS count FROM card WHERE \(cardScope) AND isArchived = 0 GROUP BY state"
                ),
                arguments: arguments)
            {
                cardCounts[row["state"]] = row["count"]
            }
            cardCounts["archived"] = try context.count(
                "SELECT COUNT(*) FROM card WHERE \(cardScope) AND isArchived = 1", arguments)

            return StudyStats(
                days: days, reviewsPerDay: Self.bucket(reviewTimes, into: starts),
                retentionRecent: Retention(
                    reviews: recent.count, passed: recent.filter { ($0["rating"] as Int) > 1 }.count),
                retentionAllTime: Retention(reviews: allTime?["reviews"] ?? 0, passed: allTime?["passed"] ?? 0),
                dueForecast: Self.bucket(dueTimes, into: future, overdueIntoFirst: true), cardCounts: cardCounts)
        }
    }

    /// Counts `times` per interval [starts[i], starts[i+1]); earlier times go to the first when asked.
    static func bucket(_ times: [Date], into starts: [Date], overdueIntoFirst: Bool = false) -> [DayCount] {
        var counts = [Int](repeating: 0, count: starts.count - 1)
        for time in times {
            guard time < starts[starts.count - 1] else { continue }
            if time < starts[0] {
                if overdueIntoFirst { counts[0] += 1 }
                continue
            }
            let index = starts.lastIndex { $0 <= time }!
            counts[index] += 1
        }
        return zip(starts, counts).map { DayCount(day: $0, count: $1) }
    }
}
