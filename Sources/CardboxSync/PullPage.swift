import CardboxCore

/// One page of a pull: the latest state of every record changed after the cursor asked for (whole
/// rows, each field with its newest value and clock, and tombstones), the cursor to ask with next,
/// and whether more pages follow.
public struct PullPage: Sendable, Equatable {
    public var changes: ChangeSet
    public var cursor: Int64
    public var hasMore: Bool
    /// The account's plan, as the server keeps it: what every page answered to a device carries
    /// (the sync state's own pages leave it out).
    public var plan: Plan?

    public init(changes: ChangeSet, cursor: Int64, hasMore: Bool, plan: Plan? = nil) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
        self.plan = plan
    }
}
