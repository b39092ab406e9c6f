/// A study day's bounds, in milliseconds since 1970: it starts at the account's day-start hour of
/// local time. The page works them out (its calendar knows the time zone); the queue and the
/// daily limits count within them.
public struct StudyDayBounds: Equatable, Sendable {
    public var start: Int64
    public var end: Int64

    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }
}

/// Studying on a replica that holds records by name (the browser's), with the rules and field
/// values a device's `StudyStore` writes: the queue's order (`StudyQueueOrder`), the FSRS step with
/// the card's own fuzz (`DeckStudy.answered`), the review log entry with the schedule it replaced,
/// and undo.
extension ReplicaRecords {
    var cardEntity: NamedEntity { schema.entity(named: "card")! }
    var deckEntity: NamedEntity { schema.entity(named: "deck")! }
    var reviewEntity: NamedEntity { schema.entity(named: "reviewLog")! }

    /// A card in the queue: its id, due time and when it was made (new cards come oldest first).
    struct QueueCandidate {
        let id: String
        let due: Int64?
        let created: Int64
    }

    func visibleDeck(_ id: String) throws(CardboxError) -> ReplicaRow<NamedEntity> {
        let key = Key(deckEntity, id)
        guard isVisible(key), let row = records.rows[key] else {
            throw CardboxError.notFound(kind: "deck", reference: id)
        }
        return row
    }

    /// The fields naming the deck of a card and of a review log entry.
    private var deckOfCard: ReplicaSchema.Parent { schema.parents(of: cardEntity).first { $0.entity == "deck" }! }
    private var deckOfReview: ReplicaSchema.Parent { schema.parents(of: reviewEntity).first { $0.entity == "deck" }! }

    /// The deck's cards a person studies: visible and not archived (or, `includingArchived`, every
    /// card a person sees). The deck is visible (its caller found it so), so a card is visible when
    /// it is live.
    func forEachStudiedCard(
        ofDeck deckId: String, includingArchived: Bool = false, _ body: (ReplicaRow<NamedEntity>) -> Void
    ) {
        let (entity, parent) = (cardEntity, deckOfCard)
        forEachRow(of: entity, naming: ParentReference(entity: deckEntity.rawValue, id: deckId)) { card in
            if parent.parentId(in: card) == deckId, records.isLive(Key(entity, card.id)),
                includingArchived || !Self.isArchived(card)
            {
                body(card)
            }
        }
    }

    static func isArchived(_ card: ReplicaRow<NamedEntity>) -> Bool {
        if case .object(let archive)? = card.fields["archive"]?.value { return archive["isArchived"] == .bool(true) }
        return false
    }

    static func schedule(of card: ReplicaRow<NamedEntity>) -> CardSchedule {
        CardSchedule(card.fields["schedule"]?.value)
    }

    static func time(_ row: ReplicaRow<NamedEntity>, _ field: String) -> Int64 {
        if case .int(let milliseconds)? = row.fields[field]?.value { return milliseconds }
        return 0
    }

    /// The deck's latest answer a person sees (by answer time, then id).
    func latestAnswer(inDeck deckId: String) -> ReplicaRow<NamedEntity>? {
        var latest: (at: Int64, row: ReplicaRow<NamedEntity>)?
        let (entity, parent) = (reviewEntity, deckOfReview)
        forEachRow(of: entity, naming: ParentReference(entity: deckEntity.rawValue, id: deckId)) { review in
            let at = Self.time(review, "reviewedAt")
            if let latest, (at, review.id) < (latest.at, latest.row.id) { return }
            guard parent.parentId(in: review) == deckId, isVisible(Key(entity, review.id)) else { return }
            latest = (at, review)
        }
        return latest?.row
    }

    /// New cards and reviews answered within `day` (learning steps count against neither). The
    /// time is read first: most of a long history is not today's.
    func answered(inDeck deckId: String, on day: StudyDayBounds) -> (new: Int, review: Int) {
        var counts = (new: 0, review: 0)
        let (entity, parent) = (reviewEntity, deckOfReview)
        forEachRow(of: entity, naming: ParentReference(entity: deckEntity.rawValue, id: deckId)) { review in
            let at = Self.time(review, "reviewedAt")
            guard day.start <= at, at < day.end, parent.parentId(in: review) == deckId,
                isVisible(Key(entity, review.id))
            else { return }
            switch review.fields["stateBefore"]?.value {
            case .string("new")?: counts.new += 1
            case .string("review")?: counts.review += 1
            default: break
            }
        }
        return counts
    }

    /// What a deck's study screen is computed from, read in one pass over its cards and one over
    /// its review log: the candidates of each part of the queue and what is left of the day's limits.
    struct DeckDay {
        var learning: [QueueCandidate] = []
        var reviews: [QueueCandidate] = []
        var new: [QueueCandidate] = []
        /// Learning cards due within the learn-ahead limit.
        var learningCount = 0
        var left: (new: Int, review: Int)
        let now: Int64
    }

    func deckDay(deck deckId: String, now: Int64, day: StudyDayBounds) throws(CardboxError) -> DeckDay {
        let settings = DeckStudy(try visibleDeck(deckId))
        var study = DeckDay(
            left: StudyQueueOrder.allowance(
                newCardsPerDay: settings.newCardsPerDay, reviewsPerDay: settings.reviewsPerDay,
                answeredToday: answered(inDeck: deckId, on: day)), now: now)
        let horizon = now + Int64(StudyQueueOrder.learnAheadSeconds) * 1000
        forEachStudiedCard(ofDeck: deckId) { card in
            let schedule = Self.schedule(of: card)
            let candidate = QueueCandidate(id: card.id, due: schedule.dueAt, created: Self.time(card, "createdAt"))
            switch schedule.state {
            case "learning", "relearning":
                if let due = schedule.dueAt, due <= horizon { study.learning.append(candidate) }
            case "review":
                if let due = schedule.dueAt, due < day.end { study.reviews.append(candidate) }
            case "new": study.new.append(candidate)
            default: break
            }
        }
        study.learningCount = study.learning.count
        return study
    }

    /// The first `limit` cards of a deck's queue at `now`, each with its part: as a device's
    /// `dueQueue` orders them: by due time or, for new cards, by when they were made, ties broken by
    /// id (`Schema.orderTiesById`).
    public func studyQueue(deck deckId: String, now: Int64, day: StudyDayBounds, limit: Int) throws(CardboxError)
        -> [(id: String, part: StudyQueuePart)]
    {
        Self.queue(of: try deckDay(deck: deckId, now: now, day: day), limit: limit)
    }

    static func queue(of study: DeckDay, limit: Int) -> [(id: String, part: StudyQueuePart)] {
        let byDue = { (a: QueueCandidate, b: QueueCandidate) in (a.due ?? 0, a.id) < (b.due ?? 0, b.id) }
        let chosen = StudyQueueOrder.queue(
            limit: limit, now: study.now, due: { $0.due },
            learning: { Array(study.learning.sorted(by: byDue).prefix(limit)) },
            reviews: { room in Array(study.reviews.sorted(by: byDue).prefix(min(room, study.left.review))) },
            new: { room in
                Array(study.new.sorted { ($0.created, $0.id) < ($1.created, $1.id) }.prefix(min(room, study.left.new)))
            })
        return chosen.map { ($0.card.id, $0.part) }
    }

    /// How many cards are left today in each part of a deck's queue.
    public func studyCounts(deck deckId: String, now: Int64, day: StudyDayBounds) throws(CardboxError)
        -> (learning: Int, review: Int, new: Int)
    {
        Self.counts(of: try deckDay(deck: deckId, now: now, day: day))
    }

    static func counts(of study: DeckDay) -> (learning: Int, review: Int, new: Int) {
        (study.learningCount, min(study.reviews.count, study.left.review), min(study.new.count, study.left.new))
    }

    /// A card of the deck being studied, as a device's web answer checks it: a card that is not
    /// one of the deck's makes the answer wrong.
    func cardOfDeck(_ cardId: String, deck deckId: String) throws(CardboxError) -> ReplicaRow<NamedEntity> {
        _ = try visibleDeck(deckId)
        let key = Key(cardEntity, cardId)
        guard isVisible(key), let card = records.rows[key], deckOfCard.parentId(in: card) == deckId else {
            throw CardboxError.invalid(field: "card", reason: "\(cardId) is not a card of this deck")
        }
        return card
    }

    /// When the card would next be due after each rating (1…4) at `now`: what the buttons show is
    /// what the answer does.
    public func nextDue(card cardId: String, deck deckId: String, now: Int64) throws(CardboxError) -> [Int64?] {
        let card = try cardOfDeck(cardId, deck: deckId)
        let settings = DeckStudy(try visibleDeck(deckId))
        var due: [Int64?] = []
        for rating in 1...4 {
            due.append(settings.answered(Self.schedule(of: card), cardId: cardId, rating: rating, at: now).dueAt)
        }
        return due
    }

    /// Answers a card of the deck being studied, as review `reviewId`: its new schedule, and a review
    /// log entry keeping the one it replaced, in one write. Refused as a device refuses it: a rating
    /// other than 1…4, a duration past a day, an archived card, a card of another deck.
    public mutating func answer(
        card cardId: String, deck deckId: String, rating: Int, durationMs: Int?, reviewId: String,
        at milliseconds: Int64
    ) throws(CardboxError) {
        try StudyBounds.checkAnswer(rating: rating, durationMs: durationMs)
        try Self.requireStoredId(reviewId, of: reviewEntity)
        let card = try cardOfDeck(cardId, deck: deckId)
        guard !Self.isArchived(card) else {
            throw CardboxError.invalid(field: "card", reason: "archived cards are not studied; restore it first")
        }
        let before = Self.schedule(of: card)
        let after = DeckStudy(try visibleDeck(deckId)).answered(
            before, cardId: cardId, rating: rating, at: milliseconds)
        let clock = tick(UInt64(milliseconds))
        update(Key(cardEntity, cardId), ["schedule": after.fieldValue, "modifiedAt": .int(milliseconds)], at: clock)
        create(
            reviewEntity, id: reviewId,
            [
                "cardId": .string(cardId), "deckId": .string(deckId), "rating": .int(Int64(rating)),
                "reviewedAt": .int(milliseconds), "stateBefore": .string(before.state),
                "stateAfter": .string(after.state),
                "elapsedDays": .int(
                    Int64(
                        StudyBounds.elapsedDays(
                            since: before.lastReviewAt.map { Double($0) / 1000 }, at: Double(milliseconds) / 1000))),
                "durationMs": durationMs.map { .int(Int64($0)) } ?? .null,
                "previous": .string(before.snapshotText),
            ], at: clock)
    }

    /// Answers a card only while it is the first of the deck's queue on `day`: a page still showing
    /// a card another tab answered meanwhile is refused, and the card is not answered twice.
    public mutating func answerFirst(
        card cardId: String, deck deckId: String, rating: Int, durationMs: Int?, reviewId: String,
        at milliseconds: Int64, day: StudyDayBounds
    ) throws(CardboxError) {
        guard try studyQueue(deck: deckId, now: milliseconds, day: day, limit: 1).first?.id == cardId else {
            throw CardboxError.invalid(field: "card", reason: "is no longer the next card to study")
        }
        try answer(
            card: cardId, deck: deckId, rating: rating, durationMs: durationMs, reviewId: reviewId, at: milliseconds)
    }

    /// Takes back the deck's latest answer (by answer time, then id): the card returns exactly to its
    /// schedule before, and the answer leaves the review log. An answer kept only for the history (a
    /// device's `historyOnly`) changed no schedule: it only leaves the log. Answers the card's id.
    @discardableResult
    public mutating func undoLastAnswer(deck deckId: String, at milliseconds: Int64) throws(CardboxError) -> String {
        _ = try visibleDeck(deckId)
        guard let latest = latestAnswer(inDeck: deckId) else {
            throw CardboxError.invalid(field: "undo", reason: "there is no answer to undo")
        }
        guard case .string(let cardId)? = latest.fields["cardId"]?.value else {
            throw CardboxError.storage("review log \(latest.id) names no card")
        }
        guard case .string(let text)? = latest.fields["previous"]?.value,
            case .object(let previous)? = try? JSONParser.parse(text)
        else { throw CardboxError.storage("review log \(latest.id) has no previous state") }
        let clock = tick(UInt64(milliseconds))
        if previous["historyOnly"] != .bool(true) {
            let schedule = CardSchedule(.object(previous))
            update(
                Key(cardEntity, cardId), ["schedule": schedule.fieldValue, "modifiedAt": .int(milliseconds)], at: clock)
        }
        delete(Key(reviewEntity, latest.id), at: clock)
        return cardId
    }
}
