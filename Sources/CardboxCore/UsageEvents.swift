import Foundation

/// Usage events kept in a local log (seed 001's `AnalyticsService`): what happened, never card content.
public enum UsageEventName: String, Codable, Sendable, CaseIterable {
    case cardAdded
    case cardDeleted
    case cardFavorited
    case cardUnfavorited
    case cardArchived
    case cardRestored
    case deckCreated
    case deckDeleted
    case presetDeckAdded
    case suggestionAdded
    case suggestionAccepted
    case suggestionRejected
    case suggestionSkipped
}

/// The properties seed 001 tracks with card events: the language, whether it has tags, how many.
public struct UsageEvent: Codable, Sendable, Equatable {
    public var name: UsageEventName
    public var occurredAt: Date
    public var cardLanguage: String?
    public var hasTags: Bool?
    public var tagCount: Int?

    public init(
        name: UsageEventName, occurredAt: Date, cardLanguage: String? = nil, hasTags: Bool? = nil, tagCount: Int? = nil
    ) {
        self.name = name
        self.occurredAt = occurredAt
        self.cardLanguage = cardLanguage
        self.hasTags = hasTags
        self.tagCount = tagCount
    }
}

/// How many times each event happened.
public struct UsageEventCount: Codable, Sendable, Equatable {
    public var name: UsageEventName
    public var count: Int
    public var lastOccurredAt: Date

    public init(name: UsageEventName, count: Int, lastOccurredAt: Date) {
        self.name = name
        self.count = count
        self.lastOccurredAt = lastOccurredAt
    }
}
