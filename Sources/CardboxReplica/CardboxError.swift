/// Every failure a person can cause or meet. Messages say what is wrong and, where it helps, what to do.
public enum CardboxError: Error, Equatable, Sendable {
    /// A value breaks a rule of the data model (`field` names the attribute, `reason` the rule).
    case invalid(field: String, reason: String)
    case notFound(kind: String, reference: String)
    case ambiguous(kind: String, reference: String, candidates: [String])
    case alreadyExists(kind: String, name: String)
    /// Seed 001's `CardLimitError.limitExceeded`, with its exact message.
    /// `adding` is how many cards the refused operation would have added (1 for a single card).
    case cardLimitExceeded(currentCount: Int, limit: Int, remainingCards: Int, adding: Int = 1)
    /// A suggestion that matches a rejected suggestion or an existing card (seed 000).
    case duplicateSuggestion(front: String, cardType: String, reason: DuplicateReason)
    /// Only visible suggestions (their image attached) can be reviewed.
    case suggestionNotReady(id: String)
    /// Something went wrong underneath (file system, database); the store is unchanged.
    case storage(String)

    public enum DuplicateReason: String, Sendable, Equatable {
        case rejectedBefore
        case existingCard
    }

    /// A second line for people, where the message (kept exactly as the seeds word it) leaves out what
    /// to do about it.
    public var detail: String? {
        guard let attempted else { return nil }
        return attempted + " 'cardbox plan set premium' lifts the limit; deleting cards makes room."
    }

    /// The card-limit error's "You tried to add N cards.", which every way of lifting it begins with.
    public var attempted: String? {
        guard case .cardLimitExceeded(_, _, _, let adding) = self else { return nil }
        return "You tried to add \(Wording.counted(adding, "card"))."
    }

    /// What went wrong, in a sentence (`LocalizedError`'s description natively).
    public var message: String {
        switch self {
        case .invalid(let field, let reason):
            return "\(field): \(reason)"
        case .notFound(let kind, let reference):
            return "no \(kind) matches '\(reference)'"
        case .ambiguous(let kind, let reference, let candidates):
            let shown = candidates.prefix(5).joined(separator: ", ")
            return "'\(reference)' matches several \(kind)s (\(shown)); give more of the id"
        case .alreadyExists(let kind, let name):
            return "a \(kind) named '\(name)' already exists"
        case .cardLimitExceeded(let currentCount, let limit, let remainingCards, _):
            return
                "Card limit exceeded. You have \(currentCount) cards out of \(limit) allowed. \(remainingCards) cards remaining."
        case .duplicateSuggestion(let front, let cardType, .rejectedBefore):
            return "suggestion '\(front)' (\(cardType)) was rejected before; reset rejected suggestions to allow it"
        case .duplicateSuggestion(let front, let cardType, .existingCard):
            return "the deck already has a card '\(front)' (\(cardType))"
        case .suggestionNotReady(let id):
            return "suggestion \(id) is not ready for review: its image is not made yet (seed 000)"
        case .storage(let message):
            return message
        }
    }
}
