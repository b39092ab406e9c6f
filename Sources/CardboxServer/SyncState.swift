import CardboxCore
import CardboxSync
import Foundation

/// The server's merged sync state, per account: the latest value of every field with its clock,
/// tombstones, and a sequence number per account that devices pull from (the CloudKit change
/// token's role). The server relays changes without the domain schema: it merges them with the
/// same rules as every device (`RowChange.merged(with:)`), and devices decide the rules that span
/// rows from the merged state. One seam, one implementation per database, one contract-test suite.
///
/// Its methods are async: the server calls them from request handlers, which must not block a
/// thread while the database works.
public protocol SyncState: Sendable {
    /// Merges a device's change set into the account's state, in one transaction: all of it or,
    /// when anything is wrong with it (malformed, another account, stamped more than five minutes
    /// ahead of `now`), none. A batch id seen before returns its first receipt and changes nothing.
    ///
    /// `cardLimit` is the account's plan's limit on cards (nil: unlimited): a push that would take
    /// the account's merged state past it is refused whole with seed 001's message.
    func push(_ changes: ChangeSet, batch: UUID, account: UUID, cardLimit: Int?, now: Date) async throws
        -> PushReceipt

    /// A push whose caller is still being checked: `verified` waits for the check of the token
    /// (which names `account`) and gives the account's card limit, or throws. An implementation may
    /// read what the push names meanwhile (`expectingCardLimit`: whether the account had a limit
    /// when last seen, so whether to count its cards), but writes nothing before `verified` has
    /// returned, and reads only `account`.
    func push(
        _ changes: ChangeSet, batch: UUID, account: UUID, now: Date, expectingCardLimit: Bool,
        verified: @escaping @Sendable () async throws -> Int?
    ) async throws -> PushReceipt

    /// The account's newest cursor: what a device that has pulled everything holds.
    func cursor(account: UUID) async throws -> Int64

    /// Records changed after `cursor` (0: everything), at most `limit` of them, oldest change first.
    func pull(account: UUID, after cursor: Int64, limit: Int) async throws -> PullPage
}

extension SyncState {
    /// A push with no card limit (a premium account, or the sync state on its own).
    public func push(_ changes: ChangeSet, batch: UUID, account: UUID, now: Date) async throws -> PushReceipt {
        try await push(changes, batch: batch, account: account, cardLimit: nil, now: now)
    }

    /// The check first, then the push: a database on this machine (SQLite) answers the check sooner
    /// than a read could be overlapped with it.
    public func push(
        _ changes: ChangeSet, batch: UUID, account: UUID, now: Date, expectingCardLimit: Bool,
        verified: @escaping @Sendable () async throws -> Int?
    ) async throws -> PushReceipt {
        let cardLimit = try await verified()
        return try await push(changes, batch: batch, account: account, cardLimit: cardLimit, now: now)
    }

    /// The checks every implementation makes before it merges anything.
    package static func check(_ changes: ChangeSet, account: UUID, now: Date) throws {
        try changes.validate()
        guard changes.accountId == account else {
            throw CardboxError.invalid(
                field: "changes.accountId", reason: "is not the account this device is signed in to")
        }
        var clock = HybridLogicalClock()
        _ = try clock.receive(changes.newestTimestamp, now: now)
    }

    package static func checkPage(_ cursor: Int64, _ limit: Int) throws {
        guard cursor >= 0 else { throw CardboxError.invalid(field: "cursor", reason: "must be 0 or more") }
        guard (1...10_000).contains(limit) else {
            throw CardboxError.invalid(field: "limit", reason: "must be 1 to 10000, got \(limit)")
        }
    }
}

/// One record of a pull as a database returns it: a row (its JSON) or a tombstone (its clock).
package struct PulledRecord {
    package var seq: Int64
    package var change: Change
    /// About how many bytes it takes in a page's answer.
    package var bytes: Int

    package enum Change {
        case row(RowChange)
        case tombstone(Tombstone)
    }

    package init(seq: Int64, entity: String, id: String, record: String?, hlc: Int64?, replica: String?) throws {
        self.seq = seq
        bytes = (record?.utf8.count ?? 0) + id.utf8.count + 64
        if let record {
            change = .row(try RowChange(recordJSON: record, field: "syncRow"))
        } else if let hlc, let replica, let entity = SyncedEntity(rawValue: entity) {
            change = .tombstone(Tombstone(RecordKey(entity, id), hlc: hlc, replica: replica))
        } else {
            throw CardboxError.storage("the sync state holds a malformed tombstone of \(entity) \(id)")
        }
    }
}

extension PullPage {
    /// The most a page's records take, about: a device reads a page's answer whole (up to twice a
    /// change set's limit), and `limit` counts records, however long their texts.
    package static let maximumBytes = ChangeSet.maximumBytes / 2

    /// A page from up to `limit + 1` records ordered by sequence number (the extra one only says
    /// that more follow), ending early once it holds `maximumBytes`.
    package init(
        _ records: [PulledRecord], account: UUID, after cursor: Int64, limit: Int,
        maximumBytes: Int = PullPage.maximumBytes
    ) {
        var (count, bytes) = (0, 0)
        for record in records.prefix(limit) {
            if count > 0 && bytes + record.bytes > maximumBytes { break }
            (count, bytes) = (count + 1, bytes + record.bytes)
        }
        let page = records.prefix(count)
        var changes = ChangeSet(accountId: account, replicaId: serverReplicaId)
        for record in page {
            switch record.change {
            case .row(let row): changes.rows.append(row)
            case .tombstone(let tombstone): changes.tombstones.append(tombstone)
            }
        }
        self.init(changes: changes, cursor: page.last?.seq ?? cursor, hasMore: records.count > count)
    }
}

extension Tombstone {
    /// A stored tombstone: the clock as the databases keep it (the timestamp's bits as a signed integer).
    package init(_ key: RecordKey, hlc: Int64, replica: String) {
        self.init(
            entity: key.entity, id: key.id, clock: WriteClock(HLCTimestamp(rawValue: UInt64(bitPattern: hlc)), replica))
    }
}
