/// The account's plan: `free` allows a limited number of cards, `premium` is unlimited (seed 001,
/// where StoreKit's `premium_monthly`/`premium_yearly` purchases stand for premium).
public enum Plan: String, Codable, Sendable, CaseIterable {
    case free
    case premium

    public static func validate(_ raw: String) throws -> Plan {
        guard let plan = Plan(rawValue: raw.lowercased()) else {
            throw CardboxError.invalid(field: "plan", reason: "'\(raw)' is not one of free, premium")
        }
        return plan
    }

    /// The most cards an account on this plan may hold, as the server holds it to (seed 001's
    /// `freeCardLimit` on the free plan); nil: unlimited.
    public var serverCardLimit: Int? { self == .free ? Limits.freeCardLimit : nil }
}

/// Seed 001's card limit arithmetic, as a value: `cardLimit`, `wouldExceedLimit`, `remainingCards`.
public struct CardAllowance: Codable, Sendable, Equatable {
    public var plan: Plan
    /// Cards the account holds now (current and archived: both are cards the user keeps).
    public var cardCount: Int
    /// The free plan's limit; nil means unlimited.
    public var cardLimit: Int?

    public init(plan: Plan, cardCount: Int, freeCardLimit: Int) {
        self.plan = plan
        self.cardCount = cardCount
        self.cardLimit = plan == .premium ? nil : freeCardLimit
    }

    public var hasUnlimitedCards: Bool { cardLimit == nil }

    /// Seed 001: `max(0, cardLimit - cards.count)`; nil when unlimited.
    public var remainingCards: Int? { cardLimit.map { max(0, $0 - cardCount) } }

    /// Seed 001's `addCard`: refused once the count has reached the limit.
    public func checkCanAdd() throws {
        try checkCanAdd(batchOf: 1)
    }

    /// Seed 001's `addPresetCards`: a batch is checked whole, before anything is added.
    public func checkCanAdd(batchOf count: Int) throws {
        guard let cardLimit else { return }
        try Limits.checkCardLimit(cardCount: cardCount, limit: cardLimit, adding: count)
    }
}
