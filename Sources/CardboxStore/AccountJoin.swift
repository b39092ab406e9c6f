import CardboxCore
import CardboxSync
import Foundation
import GRDB

extension CardboxStore {
    /// Moves everything this store holds into `account` (a server's account, at sign-in), in one
    /// transaction: every record keeps its id, fields and clocks, but for the ids derived from the
    /// account (tags, and the tag links naming them), which are derived again. Every record becomes
    /// this device's to send, so the first sync brings the store's data into the account, where it
    /// merges with what other devices sent. Images and history move along.
    ///
    /// Returns the store as the new account's (this value keeps seeing the old one, now empty).
    public func joinAccount(_ account: UUID) throws -> CardboxStore {
        guard account != accountId else { return self }
        try translatingErrors {
            try writer.write { db in
                let now = environment.now()
                var clock = try Self.clock(db)
                let timestamp = clock.tick(now: now)
                try Self.save(clock, db)
                let everything = try AccountMove.wholeState(
                    StoreContext(db: db, accountId: accountId, environment: environment), replicaId: replicaId)
                let moved = AccountMove(from: accountId, to: account).moved(everything)
                try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                try AccountMove.removeSyncedRows(db)
                try db.execute(
                    sql: "UPDATE storeInfo SET value = ? WHERE key = 'accountId'", arguments: [account.storage])
                let tx = WriteContext(
                    db: db, accountId: account, replicaId: replicaId, replicaKey: replicaKey, now: now,
                    timestamp: timestamp, environment: environment)
                var applier = try ChangeApplier(tx, for: moved)
                tx.batch.origin = "local"
                try applier.apply(moved)
                try AccountMove.markAllAsLocalWrites(db, at: timestamp)
                try tx.finish()
            }
        }
        return try CardboxStore(file: file, account: account, environment: environment)
    }
}

/// Renames one account's state into another's: the account id itself, and the ids derived from it.
struct AccountMove {
    let from: UUID
    let to: UUID

    /// The account's whole synced state as a change set: every row (held ones too) with every
    /// clock, and every tombstone, whoever wrote them.
    static func wholeState(_ context: StoreContext, replicaId: String) throws -> ChangeSet {
        let reader = RowReader(context: context)
        var changes = ChangeSet(accountId: context.accountId, replicaId: replicaId)
        for entity in SyncedEntity.allCases { changes.rows += try reader.rows(entity, where: "1", []) }
        for text in try String.fetchAll(
            context.db, sql: "SELECT row FROM heldRow ORDER BY entity, rowId")
        {
            changes.rows.append(try HeldRow.decode(text))
        }
        changes.tombstones = try Row.fetchAll(
            context.db,
            sql: """
                SELECT t.entity, t.rowId, t.hlc, r.id AS replicaId FROM tombstone t JOIN replica r ON r.key = t.replica
                ORDER BY t.entity, t.rowId
                """
        ).compactMap { row in
            SyncedEntity(rawValue: row["entity"]).map {
                Tombstone(
                    entity: $0, id: row["rowId"],
                    clock: WriteClock(HLCTimestamp(rawValue: UInt64(bitPattern: row["hlc"])), row["replicaId"]))
            }
        }
        return changes
    }

    /// The same state under the new account: ids derived from the account are derived again, and
    /// every mention of an old id (in ids, composite ids and field values) names the new one.
    func moved(_ changes: ChangeSet) -> ChangeSet {
        var renamed: [String: String] = [from.storage: to.storage]
        for row in changes.rows where row.entity == .tag {
            guard case .string(let name)? = row.fields["name"]?.value else { continue }
            renamed[row.id] = DeterministicID.tagID(accountId: to, normalizedName: TagName.normalize(name)).storage
        }
        func id(_ text: String) -> String {
            text.split(separator: "/", omittingEmptySubsequences: false).map { renamed[String($0)] ?? String($0) }
                .joined(separator: "/")
        }
        func value(_ json: JSONValue) -> JSONValue {
            switch json {
            case .string(let text): return .string(renamed[text] ?? text)
            case .array(let items): return .array(items.map(value))
            case .object(let members): return .object(members.mapValues(value))
            default: return json
            }
        }
        var moved = ChangeSet(accountId: to, replicaId: changes.replicaId)
        moved.rows = changes.rows.map { row in
            RowChange(
                entity: row.entity, id: id(row.id), created: row.created,
                fields: row.fields.mapValues { FieldChange(value: value($0.value), clock: $0.clock) })
        }
        moved.tombstones = changes.tombstones.map { Tombstone(entity: $0.entity, id: id($0.id), clock: $0.clock) }
        return moved
    }

    /// Deletes the old account's synced rows and their sync records; they come back renamed. What
    /// is not synced (image bytes, history, usage events) stays as it is: the file is the account.
    static func removeSyncedRows(_ db: Database) throws {
        for table in ["fieldClock", "tombstone", "heldRow"] { try db.execute(sql: "DELETE FROM \(table)") }
        for entity in SyncedEntity.allCases.reversed() { try db.execute(sql: "DELETE FROM \(entity.table)") }
    }

    /// Every row, tombstone and held row becomes a local write at `timestamp`: the account has never
    /// seen them, so the next sync sends them all.
    static func markAllAsLocalWrites(_ db: Database, at timestamp: HLCTimestamp) throws {
        for table in SyncedEntity.allCases.map(\.table) {
            try db.execute(sql: "UPDATE \(table) SET \(SyncColumns.version) = ?", arguments: [timestamp.storageValue])
        }
        for table in ["tombstone", "heldRow"] {
            try db.execute(sql: "UPDATE \(table) SET version = ?", arguments: [timestamp.storageValue])
        }
    }
}
