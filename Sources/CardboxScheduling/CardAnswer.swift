import CardboxCore
import Foundation

/// What answering a card decides: its next scheduling state and the facts its review-log entry keeps.
/// The one place this is computed, for studying and for replaying imported reviews alike; the store
/// only loads the card and saves the result.
public struct CardAnswer: Sendable, Equatable {
    /// The card as it was.
    public var before: Card
    /// The card after the answer (scheduling fields only; the store stamps `modifiedAt`).
    public var after: Card
    public var rating: Rating
    public var reviewedAt: Date
    /// Whole days since the card's previous review (0 for its first).
    public var elapsedDays: Int
}

extension Card {
    /// The card answered with `rating` at `date` by `scheduler`. With `fuzz`, day intervals are spread
    /// by an amount drawn from the card's id and review count, so a rating button's preview is what
    /// the answer does.
    public func answered(_ rating: Rating, at date: Date, by scheduler: Scheduler, fuzz: Bool) -> CardAnswer {
        let next = scheduler.review(memoryState(now: date), rating: rating, at: date, fuzz: intervalFuzz(enabled: fuzz))
        var after = self
        after.state = CardState(rawValue: next.phase.rawValue) ?? .review
        after.step = next.step
        after.stability = next.stability
        after.difficulty = next.difficulty
        after.dueAt = next.due
        after.lastReviewAt = date
        after.reps = StudyBounds.counted(reps, adding: 1)
        after.lapses = StudyBounds.counted(
            lapses, adding: StudyBounds.isLapse(rating: rating.rawValue, stateBefore: state.rawValue) ? 1 : 0)
        return CardAnswer(
            before: self, after: after, rating: rating, reviewedAt: date,
            elapsedDays: StudyBounds.elapsedDays(
                since: lastReviewAt?.timeIntervalSince1970, at: date.timeIntervalSince1970))
    }

    /// The fuzz for the card's next answer, when the deck uses fuzz.
    public func intervalFuzz(enabled: Bool) -> ((ClosedRange<Int>) -> Int)? {
        enabled ? IntervalFuzz.picker(cardId: id, reps: reps) : nil
    }

    /// The card as the scheduler sees it.
    public func memoryState(now: Date) -> MemoryState {
        switch state {
        case .new: return .new(at: now)
        case .learning, .review, .relearning:
            return MemoryState(
                phase: SchedulingPhase(rawValue: state.rawValue) ?? .review, step: step, stability: stability,
                difficulty: difficulty, due: dueAt ?? now, lastReview: lastReviewAt)
        }
    }
}

extension Scheduler {
    /// The scheduler a deck's settings describe, each clamped into the range the engine works in
    /// (`StudySettings.clampedForStudy`): a deck an older store or another device holds is studied,
    /// never refused. Setters check settings with `StudySettings.validate()` before they are stored.
    public init(_ settings: StudySettings) throws {
        let settings = settings.clampedForStudy
        do {
            try self.init(
                parameters: FSRSParameters(settings.fsrsParameters ?? FSRSParameters.defaultValues),
                desiredRetention: settings.desiredRetention,
                learningSteps: StepList.parse(settings.learningSteps, field: "learningSteps"),
                relearningSteps: StepList.parse(settings.relearningSteps, field: "relearningSteps"),
                maximumInterval: settings.maximumInterval)
        } catch let error as SchedulingError {
            throw CardboxError.invalid(field: "study settings", reason: error.localizedDescription)
        }
    }
}
