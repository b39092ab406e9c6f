/// What a push did, as the server answers it and a device reads it: the account's cursor after it,
/// and whether it was a batch already applied (a retry after a lost answer), which changes nothing.
public struct PushReceipt: Sendable, Equatable {
    public var cursor: Int64
    public var wasRetry: Bool
    /// The account's cursor just before this push was merged (nil for a retry, answered from its
    /// first receipt). When it is the cursor the pusher had pulled to, nobody else pushed between:
    /// the records after it are the pusher's own changes, merged into a state it already held, so
    /// they are what it holds now and it may move its cursor to `cursor` without pulling them back.
    public var previousCursor: Int64?

    public init(cursor: Int64, wasRetry: Bool, previousCursor: Int64? = nil) {
        self.cursor = cursor
        self.wasRetry = wasRetry
        self.previousCursor = previousCursor
    }

    /// Whether a pusher that had pulled everything up to `cursor` holds everything up to this
    /// receipt's cursor now (see `previousCursor`).
    public func isOwnEcho(after pulled: Int64) -> Bool { !wasRetry && previousCursor == pulled }
}
