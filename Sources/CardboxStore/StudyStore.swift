import CardboxCore
import CardboxScheduling
import Foundation
import GRDB

/// The card to study next, with what each button would do.
public struct StudyCard: Codable, Sendable, Equatable {
    public var card: Card
    /// Which part of today's queue it comes from: learning, review or new.
    public var queue: String
    /// When the card would next be due after each rating ("1"…"4").
    public var nextDue: [String: Date]
    public var remaining: StudyCounts
    /// The time the preview was made (the intervals count from it).
    public var at: Date
}

/// An answer as it was stored.
public struct StudyAnswer: Codable, Sendable, Equatable {
    public var card: Card
    public var log: ReviewLogEntry
}

extension CardboxStore {
    /// Today's queue for a deck (or every deck): learning and relearning cards that are due, then
    /// review cards due today, then new cards, within each deck's daily limits. Archived cards never
    /// come up.
    public func dueQueue(in deckReference: DeckID?, limit: Int = 1_000) throws -> [Card] {
        try read { context in try context.studyQueue(deckReference, now: environment.now(), limit: limit).map(\.card) }
    }

    /// How many cards are left today in each part of the queue.
    public func studyCounts(in deckReference: DeckID?) throws -> StudyCounts {
        try read { context in try context.studyCounts(deckReference, now: environment.now()) }
    }

    /// The next card to study, with each rating's next due time; nil when nothing is left today.
    public func nextStudyCard(in deckReference: DeckID?) throws -> StudyCard? {
        let now = environment.now()
        return try read { context in
            guard let (card, queue) = try context.studyQueue(deckReference, now: now, limit: 1).first else {
                return nil
            }
            let deck = try context.deck(card.deckId.storage)
            let scheduler = try Scheduler(deck.study)
            var nextDue: [String: Date] = [:]
            for rating in Rating.allCases {
                // The answer itself, computed ahead: what a button shows is what it does.
                nextDue[String(rating.rawValue)] =
                    card.answered(rating, at: now, by: scheduler, fuzz: deck.study.enableFuzz).after.dueAt
            }
            return StudyCard(
                card: card, queue: queue, nextDue: nextDue,
                remaining: try context.studyCounts(deckReference, now: now), at: now)
        }
    }

    /// Answers a card: its new FSRS state and a review-log entry are written in one transaction.
    public func answer(_ cardReference: CardID, rating: Int, durationMs: Int? = nil) throws -> StudyAnswer {
        let rating = try Self.checkedRating(rating, durationMs: durationMs)
        return try write { tx in
            try tx.answer(try tx.context.card(cardReference.storage), rating: rating, durationMs: durationMs)
        }
    }

    /// Answers a card of the deck being studied (the web app's study page), checked in the same
    /// transaction: a deck that is not there is not found; a card that is not one of its cards (or
    /// not there at all) makes the answer wrong.
    public func answer(_ cardReference: CardID, inDeck deckReference: DeckID, rating: Int, durationMs: Int? = nil)
        throws -> StudyAnswer
    {
        let rating = try Self.checkedRating(rating, durationMs: durationMs)
        return try write { tx in
            _ = try tx.context.existing(deckReference, .deck)
            let card: Card
            do {
                card = try tx.context.card(cardReference.storage)
            } catch CardboxError.notFound {
                throw CardboxError.invalid(field: "card", reason: "\(cardReference) is not a card of this deck")
            }
            guard card.deckId == deckReference else {
                throw CardboxError.invalid(field: "card", reason: "\(cardReference) is not a card of this deck")
            }
            return try tx.answer(card, rating: rating, durationMs: durationMs)
        }
    }

    /// The rating as the scheduler takes it, once it and the duration are checked.
    static func checkedRating(_ value: Int, durationMs: Int?) throws -> Rating {
        try StudyBounds.checkAnswer(rating: value, durationMs: durationMs)
        return Rating(rawValue: value)!
    }

    /// Takes back the latest answer (in a deck, or anywhere): the card returns exactly to its state
    /// before, and the answer leaves the review log.
    public func undoLastAnswer(in deckReference: DeckID? = nil) throws -> Card {
        try write { tx in
            let (scope, arguments) = try tx.context.deckScope(deckReference, of: .reviewLog)
            let card = Entity.reviewLog.selectExpression("cardId", table: "reviewLog")
            let sql = "SELECT id, \(card) AS cardId, previous FROM reviewLog WHERE \(scope)"
            guard
                let row = try Row.fetchOne(
                    tx.db.cachedStatement(sql: sql + " ORDER BY reviewedAt DESC, id DESC LIMIT 1"), arguments: arguments
                )
            else { throw CardboxError.invalid(field: "undo", reason: "there is no answer to undo") }
            let log = TableRow<Columns.ReviewLog>(row)
            let cardId: String = log[.cardId]
            guard case .object(let previous) = try JSONValue.parse(log[.previous], field: "reviewLog.previous") else {
                throw CardboxError.storage("review log \(log.id) has no previous state")
            }
            if previous[WriteContext.historyOnlyMark] == .bool(true) {
                try tx.delete(.reviewLog, id: log.id)
                return try tx.context.card(cardId)
            }
            let fields: Assignments<Columns.Card> = Columns.Card.schedule.map { column in
                (column, previous[column.name].map(Self.databaseValue))
            }
            try tx.update(.card, id: cardId, fields + [(.modifiedAt, tx.nowMillis)])
            try tx.delete(.reviewLog, id: log.id)
            return try tx.context.card(cardId)
        }
    }

    /// A deck's review history, oldest first.
    public func reviewLog(in deckReference: DeckID?) throws -> [ReviewLogEntry] {
        try read { context in
            let (scope, arguments) = try context.deckScope(deckReference, of: .reviewLog)
            let sql = "SELECT \(Entity.reviewLog.allColumns(table: "reviewLog")) FROM reviewLog WHERE " + scope
            return try Row.fetchAll(
                context.db.cachedStatement(sql: sql + " ORDER BY reviewedAt, id"), arguments: arguments
            )
            .map(ReviewLogEntry.init(row:))
        }
    }

    /// Changes a deck's study settings; each is checked the way the scheduler will use it.
    public func setStudySettings(_ deckReference: DeckID, _ settings: StudySettings) throws -> Deck {
        try configureDeck(deckReference, study: settings)
    }
}

extension CardboxStore {
    /// Refuses study settings outside the engine's ranges (`StudyRanges`), naming the setting.
    static func check(_ settings: StudySettings) throws {
        try settings.validate()
    }

    /// Stores a fit's parameters on the decks (every deck when `decks` is nil) when they predict the
    /// reviews better, all in one transaction; returns whether they were stored.
    @discardableResult
    public func storeFittedParameters(_ fit: FitResult, in decks: [DeckID]?) throws -> Bool {
        guard fit.improves else { return false }
        return try write { tx in
            let ids =
                try decks.map { try $0.map { try tx.context.existing($0, .deck) } }
                ?? String.fetchAll(
                    tx.db.cachedStatement(sql: "SELECT id FROM deck ORDER BY id"),
                    arguments: [])
            for id in ids {
                guard let settings = fit.adopted(by: try tx.context.deck(id).study) else { return false }
                try tx.saveStudySettings(settings, deck: id)
            }
            return true
        }
    }
}

extension Columns.Card {
    /// The card columns an answer changes, which undo restores: the registry's `schedule` field.
    static let schedule: [Self] = Entity.card.field(named: "schedule")!.columns.map { Self(rawValue: $0.name)! }
}

extension WriteContext {
    /// Answers `card` now, or (an answer given offline) at `time`, as review `id`.
    func answer(_ card: Card, rating: Rating, durationMs: Int?, at time: Date? = nil, id: ReviewID? = nil) throws
        -> StudyAnswer
    {
        guard !card.isArchived else {
            throw CardboxError.invalid(field: "card", reason: "archived cards are not studied; restore it first")
        }
        let deck = try context.deck(card.deckId.storage)
        let time = time ?? now
        let answer = card.answered(rating, at: time, by: try Scheduler(deck.study), fuzz: deck.study.enableFuzz)
        try keepDayAnswerCounts(deck: card.deckId.storage)
        try saveSchedule(answer.after, stamped: true)
        let log = try logReview(
            id ?? ReviewID(newUUID()), of: card, rating: rating, at: time, after: answer.after,
            elapsedDays: answer.elapsedDays, durationMs: durationMs)
        var answered = answer.after
        answered.modifiedAt = Date(storageMillis: nowMillis)
        return StudyAnswer(card: answered, log: log)
    }

    /// Gives `deckDayAnswers` the deck's counts for today, counted from the log, when its row's window
    /// (if any) does not hold this moment, so the triggers keep them from the answer about to be
    /// logged on. Most answers find the row and do nothing more: working out the study day (a
    /// calendar's arithmetic) only comes with the day's first answer. (A row whose window holds this
    /// moment but is not today's, after the day's start hour or time zone changed, is not renewed
    /// until its window ends; until then readers count from the log.)
    func keepDayAnswerCounts(deck deckId: String) throws {
        let kept = try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT 1 FROM deckDayAnswers
                    WHERE deckKey = (SELECT key FROM deck WHERE id = ?) AND dayStart <= ? AND ? < dayEnd
                    """), arguments: [deckId, nowMillis, nowMillis])
        guard kept == nil else { return }
        let day = try context.studyDay(now: now)
        let counts = try context.countAnswers(deckId, on: day)
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO deckDayAnswers (deckKey, dayStart, dayEnd, newAnswered, reviewsAnswered)
                SELECT key, ?, ?, ?, ? FROM deck WHERE id = ?
                """
        ).execute(arguments: [day.start.storageMillis, day.end.storageMillis, counts.new, counts.review, deckId])
    }

    /// Adds review `id` of `card` to the review log: the card's schedule before it (what undo
    /// restores) and its state after. A review kept for its `historyOnly` (given offline before the
    /// card's latest review) changed no schedule: undoing it only takes it out of the history.
    @discardableResult
    func logReview(
        _ id: ReviewID, of card: Card, rating: Rating, at time: Date, after: Card, elapsedDays: Int, durationMs: Int?,
        historyOnly: Bool = false
    ) throws -> ReviewLogEntry {
        let reviewedAt = Self.millis(time)
        let previous =
            historyOnly ? JSONValue.object([Self.historyOnlyMark: .bool(true)]).jsonText : Self.schedulingSnapshot(card)
        let log = ReviewLogEntry(
            id: id, cardId: card.id, deckId: card.deckId, rating: rating.rawValue,
            reviewedAt: Date(storageMillis: reviewedAt), stateBefore: card.state, stateAfter: after.state,
            elapsedDays: elapsedDays, durationMs: durationMs)
        try insert(
            .reviewLog, id: log.id.storage,
            [
                (.cardId, card.id.storage), (.deckId, card.deckId.storage), (.rating, rating.rawValue),
                (.reviewedAt, reviewedAt), (.stateBefore, card.state.rawValue),
                (.stateAfter, after.state.rawValue), (.elapsedDays, elapsedDays), (.durationMs, durationMs),
                (.previous, previous),
            ])
        return log
    }

    /// The key of a review log entry's `previous` that marks a history-only review.
    static let historyOnlyMark = "historyOnly"

    /// A moment to the nearest millisecond, as the review log keeps it.
    static func millis(_ date: Date) -> Int64 {
        StoredTime.clampedMilliseconds(date, rounding: .toNearestOrAwayFromZero)
    }

    /// Writes a deck's study settings (already checked).
    func saveStudySettings(_ settings: StudySettings, deck id: String) throws {
        let parameters = settings.fsrsParameters.map { JSONValue.array($0.map(JSONValue.double)).jsonText }
        try update(
            .deck, id: id,
            [
                (.desiredRetention, settings.desiredRetention), (.learningSteps, settings.learningSteps),
                (.relearningSteps, settings.relearningSteps), (.maximumInterval, settings.maximumInterval),
                (.newCardsPerDay, settings.newCardsPerDay), (.reviewsPerDay, settings.reviewsPerDay),
                (.fsrsParameters, parameters), (.enableFuzz, settings.enableFuzz.storage), (.modifiedAt, nowMillis),
            ])
    }

    /// Writes a card's scheduling fields (one synced field: `schedule`).
    func saveSchedule(_ card: Card, stamped: Bool) throws {
        var fields = Self.scheduleFields(card)
        if stamped { fields.append((.modifiedAt, nowMillis)) }
        try update(.card, id: card.id.storage, fields)
    }

    static func scheduleFields(_ card: Card) -> Assignments<Columns.Card> {
        [
            (.state, card.state.rawValue), (.step, card.step), (.stability, card.stability),
            (.difficulty, card.difficulty), (.dueAt, card.dueAt?.storageMillis),
            (.lastReviewAt, card.lastReviewAt?.storageMillis), (.reps, card.reps), (.lapses, card.lapses),
        ]
    }
}

extension WriteContext {
    /// A card's scheduling fields as a review-log entry keeps them (what undo restores), in the text
    /// every replica writes (`CardSchedule.snapshotText`).
    static func schedulingSnapshot(_ card: Card) -> String {
        CardSchedule(
            state: card.state.rawValue, step: card.step, stability: card.stability, difficulty: card.difficulty,
            dueAt: card.dueAt?.storageMillis, lastReviewAt: card.lastReviewAt?.storageMillis, reps: card.reps,
            lapses: card.lapses
        ).snapshotText
    }

    /// Logs the replayed past answers of a card this transaction imported (no fuzz), each as a
    /// review-log entry; the card was inserted, under `cardKey`, in the state they lead to. The
    /// entries name the card and its deck by the keys the import holds: finding them again by
    /// their ids was a fifth of logging an imported review.
    func logReplayed(
        _ answers: [ReplayedAnswer], cardKey: Int64, deckKey: Int64, into reviews: TableInserter<Columns.ReviewLog>
    ) throws {
        for answer in answers {
            let before = answer.before
            try reviews.insert(
                id: newID(),
                [
                    (.cardKey, cardKey.databaseValue), (.deckKey, deckKey.databaseValue),
                    (.rating, answer.rating.rawValue.databaseValue),
                    (.reviewedAt, answer.review.at.storageMillis.databaseValue),
                    (.stateBefore, before.state.rawValue.databaseValue),
                    (.stateAfter, answer.stateAfter.rawValue.databaseValue),
                    (.elapsedDays, answer.elapsedDays.databaseValue),
                    (.durationMs, answer.review.durationMs.databaseValue),
                    (.previous, Self.schedulingSnapshot(before).databaseValue),
                ])
        }
    }
}

/// One past answer of an imported card, replayed through its deck's scheduler.
struct ReplayedAnswer {
    var before: Card
    var rating: Rating
    var review: ReviewImport
    var stateAfter: CardState
    var elapsedDays: Int

    /// Replays a new card's past answers in the order given, oldest first (no fuzz): the card as they
    /// leave it, and each answer to log. An answer whose rating is not one of the four is left out.
    static func replay(_ reviews: [ReviewImport], on card: Card, scheduler: Scheduler) -> (Card, [ReplayedAnswer]) {
        var current = card
        var answers: [ReplayedAnswer] = []
        for review in reviews.sorted(by: { $0.at < $1.at }) {
            guard let rating = Rating(rawValue: review.rating) else { continue }
            let answer = current.answered(rating, at: review.at, by: scheduler, fuzz: false)
            answers.append(
                ReplayedAnswer(
                    before: current, rating: rating, review: review, stateAfter: answer.after.state,
                    elapsedDays: answer.elapsedDays))
            current = answer.after
        }
        return (current, answers)
    }
}

extension StoreContext {
    func scheduler(for deckId: String) throws -> Scheduler { try Scheduler(deck(deckId).study) }

    func studyDay(now: Date) throws -> StudyDay {
        let settings = try settings()
        return StudyDay(containing: now, startHour: settings.dayStartHour, timeZone: studyTimeZone(settings))
    }

    private func studyDecks(_ deckReference: DeckID?) throws -> [Deck] {
        if let deckReference { return [try deck(existing(deckReference, .deck))] }
        return try db.cachedStatement(sql: "SELECT \(Columns.Deck.record) FROM deck ORDER BY nameKey")
            .records([], Deck.init(row:))
    }

    /// What a deck has left under its daily limits today, from the answers logged since the day began.
    private func allowance(_ deck: Deck, day: StudyDay) throws -> DailyAllowance {
        StudyQueuePolicy.allowance(deck.study, answeredToday: try answered(deck.id.storage, on: day))
    }

    /// A deck's new cards and reviews answered on `day`: as `deckDayAnswers` keeps them when it holds
    /// this day's window (every study step reads them), else counted from the log.
    func answered(_ deckId: String, on day: StudyDay) throws -> (new: Int, review: Int) {
        let kept = try db.cachedStatement(
            sql: """
                SELECT newAnswered, reviewsAnswered FROM deckDayAnswers
                WHERE deckKey = (SELECT key FROM deck WHERE id = ?) AND dayStart = ? AND dayEnd = ?
                """
        ).records([deckId, day.start.storageMillis, day.end.storageMillis], Self.newAndReviews)
        if let kept = kept.first { return kept }
        return try countAnswers(deckId, on: day)
    }

    /// A row of two counts: new cards, then reviews.
    private static func newAndReviews(_ row: SteppedRow) -> (new: Int, review: Int) { (row[0], row[1]) }

    /// A deck's new cards and reviews answered on `day`, counted from the log: two ranges of the
    /// `(deckKey, stateBefore, reviewedAt)` index. The deck was read from this account, so its id
    /// alone scopes the count.
    func countAnswers(_ deckId: String, on day: StudyDay) throws -> (new: Int, review: Int) {
        let counts = try db.cachedStatement(
            sql: """
                SELECT COALESCE(SUM(stateBefore = 'new'), 0), COALESCE(SUM(stateBefore = 'review'), 0)
                FROM reviewLog INDEXED BY reviewLogAnswersByDeck
                WHERE deckKey = (SELECT key FROM deck WHERE id = ?) AND stateBefore IN ('new', 'review')
                  AND reviewedAt >= ? AND reviewedAt < ?
                """
        ).records([deckId, day.start.storageMillis, day.end.storageMillis], Self.newAndReviews)
        return counts.first ?? (0, 0)
    }

    /// The queue `StudyQueuePolicy` decides, fetching each deck's candidates only as it asks. A
    /// candidate is its key and due time, read off the `cardQueue`/`cardNew` indexes alone (the decks
    /// were read from this account, so their ids scope the search); only the cards chosen are read
    /// whole.
    func studyQueue(_ deckReference: DeckID?, now: Date, limit: Int) throws -> [(card: Card, queue: String)] {
        let day = try studyDay(now: now)
        let decks = try studyDecks(deckReference).map { (deck: $0, left: try allowance($0, day: day)) }
        func candidates(
            _ condition: String, order: String, _ values: StatementArguments, limit: (DailyAllowance) -> Int
        ) throws -> [(key: Int64, due: Date?)] {
            var found: [(key: Int64, due: Date?)] = []
            for (deck, left) in decks where limit(left) > 0 {
                found += try db.cachedStatement(
                    sql: """
                        SELECT key, \(order == "dueAt" ? "dueAt" : "NULL") AS due FROM card
                        WHERE \(Entity.card.binding("deckId")) AND isArchived = 0 AND \(condition)
                        ORDER BY \(order), uid LIMIT ?
                        """
                ).records([deck.id.storage] + values + [limit(left)]) {
                    ($0[0], ($0[1] as Int64?).map(Date.init(storageMillis:)))
                }
            }
            return found
        }
        let chosen = try StudyQueuePolicy.queue(
            limit: limit, now: now, due: \.due,
            learning: {
                try candidates(
                    "state IN ('learning', 'relearning') AND dueAt <= ?", order: "dueAt",
                    [StudyQueuePolicy.learningHorizon(now: now).storageMillis]
                ) { _ in limit }
            },
            reviews: { room in
                try candidates(
                    "state = 'review' AND dueAt < ?", order: "dueAt",
                    [StudyQueuePolicy.reviewHorizon(day).storageMillis]
                ) { min(room, $0.review) }
            },
            new: { room in try candidates("state = 'new'", order: "createdAt", []) { min(room, $0.new) } })
        let cards = try self.cards(keys: chosen.map(\.card.key))
        return zip(cards, chosen).map { ($0, $1.part.rawValue) }
    }

    func studyCounts(_ deckReference: DeckID?, now: Date) throws -> StudyCounts {
        let day = try studyDay(now: now)
        var counts = StudyCounts()
        for deck in try studyDecks(deckReference) {
            let left = try allowance(deck, day: day)
            // Counted off the indexes alone: the deck was read from this account.
            let scope: StatementArguments = [deck.id.storage]
            let base = "SELECT COUNT(*) FROM card WHERE \(Entity.card.binding("deckId")) AND isArchived = 0"
            counts.learning += try count(
                base + " AND state IN ('learning', 'relearning') AND dueAt <= ?",
                scope + [StudyQueuePolicy.learningHorizon(now: now).storageMillis])
            counts.review += min(
                left.review,
                try count(
                    base + " AND state = 'review' AND dueAt < ?",
                    scope + [StudyQueuePolicy.reviewHorizon(day).storageMillis]
                ))
            counts.new += min(left.new, try count(base + " AND state = 'new'", scope))
        }
        return counts
    }
}

extension ReviewLogEntry {
    init(row: Row) throws {
        let row = TableRow<Columns.ReviewLog>(row)
        self.init(
            id: try .init(stored: row.id), cardId: try .init(stored: row[.cardId]),
            deckId: try .init(stored: row[.deckId]), rating: row[.rating],
            reviewedAt: Date(storageMillis: row[.reviewedAt]),
            stateBefore: CardState(rawValue: row[.stateBefore]) ?? .new,
            stateAfter: CardState(rawValue: row[.stateAfter]) ?? .review, elapsedDays: row[.elapsedDays],
            durationMs: row[.durationMs])
    }
}

extension CardboxStore {
    /// Each card's answers in a deck (or every deck), in order, for fitting FSRS parameters.
    public func reviewHistories(in deckReference: DeckID?) throws -> [ReviewHistory] {
        try read { context in
            let (scope, arguments) = try context.deckScope(deckReference, of: .reviewLog)
            let cardId = Entity.reviewLog.selectExpression("cardId", table: "reviewLog")
            let sql = "SELECT \(cardId) AS cardId, rating, elapsedDays FROM reviewLog WHERE " + scope
            var histories: [ReviewHistory] = []
            var current: String?
            for row in try Row.fetchAll(
                context.db.cachedStatement(sql: sql + " ORDER BY cardId, reviewedAt, id"), arguments: arguments)
            {
                let log = TableRow<Columns.ReviewLog>(row)
                let cardId: String = log[.cardId]
                if cardId != current {
                    histories.append(ReviewHistory([]))
                    current = cardId
                }
                let rating = Rating(rawValue: log[.rating]) ?? .good
                histories[histories.count - 1].reviews.append((log[.elapsedDays], rating))
            }
            return histories
        }
    }
}
