import CardboxCore
import CardboxSync
import GRDB

/// What `changes(since:)` returns, read a page at a time: a push of a whole collection (the first
/// upload of 100,000 cards) then holds one page in memory, not every record at once.
///
/// The pages hold what was written after `since` and up to `cursor`, the store's clock when
/// paging began: a record written while the pages are read (or written again after its page) has
/// a later clock, so it is left for the next push, which starts at `cursor`. Each page is read in
/// a transaction of its own. The order is the one a push sends in: tombstones, then each entity's
/// rows, then the rows held aside.
public struct ChangePages: Sendable {
    /// Where the next page starts.
    enum Place: Sendable, Equatable {
        /// Tombstones after this key (entity, row id), in key order.
        case tombstones(after: [String])
        /// Rows of `SyncedEntity.allCases[entity]` after this place in its storage order (its
        /// `storageOrder` columns; none at the start).
        case rows(entity: Int, after: [Int64])
        /// Held rows after this key (entity, row id), in key order.
        case heldRows(after: [String])
        case done
    }

    /// What the pages start after.
    public let since: HLCTimestamp
    /// What they end at: the cursor to pass next time, once every page is pushed.
    public let cursor: HLCTimestamp
    /// How many records they hold in all (as counted when paging began).
    public let total: Int
    var place = Place.tombstones(after: ["", ""])
    let pending: PendingCounts

    /// Whether every page has been read.
    public var isFinished: Bool { place == .done }
}

extension ChangePages {
    /// The pages of what was written after `cursor`, counted in `context`'s transaction.
    init(_ context: StoreContext, since cursor: HLCTimestamp) throws {
        let pending = try PendingCounts(context, since: cursor)
        self.init(
            since: cursor, cursor: try CardboxStore.clock(context.db).last, total: pending.total, pending: pending)
    }

    /// Adds the next records, up to `limit` in all, to `page`, read in `context`'s transaction.
    mutating func read(_ context: StoreContext, into page: inout ChangeSet, limit: Int) throws {
        let reading = PageReader(context: context, pages: self)
        while !isFinished, page.rows.count + page.tombstones.count < limit {
            place = try reading.read(place, into: &page, limit: limit)
        }
    }
}

/// What a device has to send: the pages of what changed since a cursor, the first already read.
public struct PendingChanges: Sendable {
    public var pages: ChangePages
    public var first: ChangeSet
}

extension CardboxStore {
    /// Starts reading what changed after `cursor` a page at a time (see `ChangePages`).
    public func changePages(since cursor: HLCTimestamp = .zero) throws -> ChangePages {
        try read { context in try ChangePages(context, since: cursor) }
    }

    /// The pages of what changed after `cursor`, with the first (up to `limit` records) read in the
    /// same transaction: the usual push is one page.
    public func pendingChanges(since cursor: HLCTimestamp, limit: Int) throws -> PendingChanges {
        try read { context in try pendingChanges(context, since: cursor, limit: limit) }
    }

    func pendingChanges(_ context: StoreContext, since cursor: HLCTimestamp, limit: Int) throws -> PendingChanges {
        precondition(limit > 0, "a page holds at least one record")
        var pages = try ChangePages(context, since: cursor)
        var first = ChangeSet(accountId: accountId, replicaId: replicaId)
        try pages.read(context, into: &first, limit: limit)
        return PendingChanges(pages: pages, first: first)
    }

    /// The next page of `pages`, at most `limit` records (empty once they are all read).
    public func nextPage(of pages: inout ChangePages, limit: Int) throws -> ChangeSet {
        precondition(limit > 0, "a page holds at least one record")
        return try read { context in
            var page = ChangeSet(accountId: accountId, replicaId: replicaId)
            try pages.read(context, into: &page, limit: limit)
            return page
        }
    }
}

/// Reads the records of one place of `ChangePages` into a page.
private struct PageReader {
    let context: StoreContext
    let pages: ChangePages

    private var versions: [DatabaseValue] {
        [pages.since.storageValue.databaseValue, pages.cursor.storageValue.databaseValue]
    }

    /// Adds what `place` holds to `page`, up to its limit; returns where the next read starts.
    func read(_ place: ChangePages.Place, into page: inout ChangeSet, limit: Int) throws -> ChangePages.Place {
        let room = limit - page.rows.count - page.tombstones.count
        switch place {
        case .tombstones(let after):
            guard pages.pending.tombstones > 0 else { return .rows(entity: 0, after: []) }
            let found = try tombstones(after: after, limit: room)
            page.tombstones += found
            guard found.count == room, let last = found.last else { return .rows(entity: 0, after: []) }
            return .tombstones(after: [last.entity.rawValue, last.id])
        case .rows(let index, let after):
            guard index < SyncedEntity.allCases.count else { return .heldRows(after: ["", ""]) }
            let entity = SyncedEntity.allCases[index]
            guard pages.pending.rows[entity, default: 0] > 0 else { return .rows(entity: index + 1, after: []) }
            let reader = RowReader(context: context)
            let written = "t.\(SyncColumns.version) > ? AND t.\(SyncColumns.version) <= ?"
            // All of them fit (the usual sync of a few changes): found by the version index, not by
            // a walk through the whole table. Rows written since the count only have later versions.
            if after.isEmpty, pages.pending.rows[entity, default: 0] <= room {
                page.rows += try reader.rows(entity, where: written, versions, index: entity.versionIndex)
                return .rows(entity: index + 1, after: [])
            }
            let afterPlace =
                after.isEmpty
                ? "" : " AND (\(entity.storageOrder(table: "t"))) > (\(after.map { _ in "?" }.joined(separator: ", ")))"
            let found = try reader.rows(
                entity, where: written + afterPlace, versions + after.map(\.databaseValue), inStorageOrder: room)
            page.rows += found.map(\.row)
            guard found.count == room, let last = found.last else { return .rows(entity: index + 1, after: []) }
            return .rows(entity: index, after: last.place)
        case .heldRows(let after):
            guard pages.pending.heldRows > 0 else { return .done }
            let found = try heldRows(after: after, limit: room)
            page.rows += found.map(\.row)
            guard found.count == room, let last = found.last else { return .done }
            return .heldRows(after: [last.entity, last.rowId])
        case .done:
            return .done
        }
    }

    private func tombstones(after key: [String], limit: Int) throws -> [Tombstone] {
        try Row.fetchAll(
            context.db.cachedStatement(
                sql: """
                    SELECT t.entity, t.rowId, t.hlc, r.id AS replicaId FROM tombstone t JOIN replica r ON r.key = t.replica
                    WHERE t.version > ? AND t.version <= ? AND (t.entity, t.rowId) > (?, ?)
                    ORDER BY t.entity, t.rowId LIMIT ?
                    """),
            arguments: StatementArguments(
                versions + key.map(\.databaseValue) + [limit.databaseValue])
        ).map(Tombstone.init(storedRow:))
    }

    private func heldRows(after key: [String], limit: Int) throws -> [(entity: String, rowId: String, row: RowChange)] {
        try Row.fetchAll(
            context.db.cachedStatement(
                sql: """
                    SELECT entity, rowId, row FROM heldRow
                    WHERE version > ? AND version <= ? AND (entity, rowId) > (?, ?)
                    ORDER BY entity, rowId LIMIT ?
                    """),
            arguments: StatementArguments(
                versions + key.map(\.databaseValue) + [limit.databaseValue])
        ).map { ($0["entity"], $0["rowId"], try HeldRow.decode($0["row"])) }
    }
}
