import CardboxCore
import CardboxScheduling
import CardboxStore
import CardboxWire
import Foundation
import Hummingbird

/// Study with no network: what a page keeps of a deck's day, and the answers it gave meanwhile.
extension WebAPI {
    /// The most answers one request may carry (a day of study fits many times over).
    static let answersPerRequest = 1_000

    func addOfflineRoutes(to api: RouterGroup<CardboxRequestContext>) {
        api.get("decks/:deck/offline") { _, context in
            let study = try await actions.offlineStudy(try context.requireCaller(), try WebApp.deckId(context))
            return EncodedJSON(try OfflineStudyAnswer(study))
        }
        api.post("decks/:deck/answers") { request, context in
            let body = try await request.decodeBody(GivenAnswersRequest.self, context, limit: 1 << 20)
            let outcomes = try await actions.applyGivenAnswers(
                try context.requireCaller(), in: try WebApp.deckId(context), try Self.givenAnswers(body))
            return EncodedJSON(OutcomesReply(outcomes: outcomes.map(\.rawValue)))
        }
    }

    /// The answers of a request's body, each field checked, naming the answer that is wrong.
    static func givenAnswers(_ body: GivenAnswersRequest) throws -> [GivenAnswer] {
        guard body.answers.count <= answersPerRequest else {
            throw CardboxError.invalid(field: "answers", reason: "at most \(answersPerRequest) in one request")
        }
        return try body.answers.enumerated().map { index, answer in
            do {
                return try givenAnswer(answer)
            } catch CardboxError.invalid(let name, let reason) {
                throw CardboxError.invalid(field: "answers[\(index)].\(name)", reason: reason)
            }
        }
    }

    private static func givenAnswer(_ answer: GivenAnswersRequest.Answer) throws -> GivenAnswer {
        func id<Record>(_ text: String, _ name: String) throws -> TypedID<Record> {
            guard let id = TypedID<Record>(text) else {
                throw CardboxError.invalid(field: name, reason: "must be a UUID")
            }
            return id
        }
        guard let time = ISOTime.parse(answer.answeredAt) else {
            throw CardboxError.invalid(field: "answeredAt", reason: "must be an ISO 8601 time")
        }
        return GivenAnswer(
            id: try id(answer.id, "id"), card: try id(answer.card, "card"), rating: answer.rating, answeredAt: time,
            durationMs: answer.durationMs)
    }
}

/// A deck's day for offline study, as `scheduler.js` takes it: the scheduler's times are seconds
/// since 1970.
struct OfflineStudyAnswer: Encodable {
    struct Deck: Encodable {
        var id: String
        var name: String
    }

    /// The deck's study settings, resolved: what `CardboxScheduler.configure` takes, and the fuzz.
    struct Settings: Encodable {
        var weights: [Double]
        var desiredRetention: Double
        var maximumInterval: Int
        var learningSteps: [Double]
        var relearningSteps: [Double]
        var fuzz: Bool
    }

    struct Card: Encodable {
        var id: String
        /// new, learning, review or relearning.
        var state: String
        var step: Int?
        var stability: Double?
        var difficulty: Double?
        var due: Double?
        var lastReview: Double?
        var reps: Int
        /// The question as the study page shows it (HTML: a cloze card's deletion hidden), the
        /// question revealed, the answer and the notes (text).
        var question: String
        var revealed: String
        var back: String
        var notes: String
        var isCloze: Bool
        /// The picture's thumbnail, by hash (`/images/HASH/thumbnail`).
        var image: String?

        init(_ card: CardboxCore.Card) {
            id = card.id.description
            state = card.state.rawValue
            (step, stability, difficulty, reps) = (card.step, card.stability, card.difficulty, card.reps)
            due = card.dueAt?.timeIntervalSince1970
            lastReview = card.lastReviewAt?.timeIntervalSince1970
            question = WebText.cardSide(card, revealed: false)
            revealed = WebText.cardSide(card, revealed: true)
            (back, notes, isCloze, image) = (card.back, card.notes, card.isCloze, card.imageHash)
        }
    }

    var deck: Deck
    var settings: Settings
    var cards: [Card]
    var dayEnds: Double

    init(_ study: OfflineStudy) throws {
        // As the scheduler here takes them: a value out of its range is clamped, not a failure.
        let settings = study.deck.study.clampedForStudy
        deck = Deck(id: study.deck.id.description, name: study.deck.name)
        self.settings = Settings(
            weights: settings.fsrsParameters ?? FSRSParameters.defaultValues,
            desiredRetention: settings.desiredRetention, maximumInterval: settings.maximumInterval,
            learningSteps: try StepList.parse(settings.learningSteps, field: "learningSteps"),
            relearningSteps: try StepList.parse(settings.relearningSteps, field: "relearningSteps"),
            fuzz: settings.enableFuzz)
        cards = study.cards.map(Card.init)
        dayEnds = study.dayEnds.timeIntervalSince1970
    }
}
