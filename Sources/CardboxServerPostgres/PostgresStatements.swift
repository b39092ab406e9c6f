import Foundation
import PostgresNIO

// The statements every sync runs, prepared once per connection. Sent as unnamed statements, each
// was parsed and planned again on every call: PostgreSQL's own log showed 0.2-0.5 ms of parse and
// bind (planning) beside 0.02-0.1 ms of execution, most of a push of one card.

/// The device a token names, its account, and the account's sync cursor (`signedInDevice`).
struct SignedInDeviceStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT d.name, d.token_hash, d.created_at, d.last_seen_at, d.revoked_at, a.name, a.plan, a.created_at,
            COALESCE((SELECT last_seq FROM sync_account s WHERE s.account_id = d.account_id), 0)
        FROM server_device d JOIN server_account a ON a.account_id = d.account_id
        WHERE d.account_id = $1 AND d.device_id = $2
        """
    typealias Row = (String, String, Date, Date?, Date?, String, String, Date, Int64)

    var account: UUID
    var device: UUID

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(account)
        bindings.append(device)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// The account's last sequence number.
struct CursorStatement: PostgresPreparedStatement {
    static let sql = "SELECT last_seq FROM sync_account WHERE account_id = $1"
    typealias Row = Int64

    var account: UUID

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(account)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int64.self) }
}

/// Up to `limit` records changed after `cursor`, rows and tombstones from one snapshot.
struct PullStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT seq, entity, row_id, record, NULL::bigint, NULL::text FROM sync_row
        WHERE account_id = $1 AND seq > $2
        UNION ALL
        SELECT seq, entity, row_id, NULL::text, hlc, replica FROM sync_tombstone
        WHERE account_id = $1 AND seq > $2
        ORDER BY 1 LIMIT $3
        """
    typealias Row = (Int64, String, String, String?, Int64?, String?)

    var account: UUID
    var cursor: Int64
    var limit: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(account)
        bindings.append(cursor)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// Makes the account's sync row the first time and locks it (as FOR UPDATE would) for the rest of
/// a push's transaction; returns its last sequence number.
///
/// It also makes the rest of the push's transaction use generic plans (`set_config(…, true)` lasts
/// until the transaction ends): PostgreSQL plans a prepared statement anew for its parameters until
/// it finds a generic plan no dearer, and for the push's read and write, whose arrays of records it
/// cannot size in advance, it never did. Planning cost 0.2-0.35 ms of each, most of a push of one
/// card; their plans (lookups by account and key) do not depend on the values. Only the push: the
/// pull's range over sequence numbers is planned best for its cursor.
struct LockAccountStatement: PostgresPreparedStatement {
    static let sql = """
        INSERT INTO sync_account (account_id, last_seq) VALUES ($1, 0)
        ON CONFLICT (account_id) DO UPDATE SET last_seq = sync_account.last_seq
        RETURNING last_seq, set_config('plan_cache_mode', 'force_generic_plan', true)
        """
    typealias Row = Int64

    var account: UUID

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(account)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((Int64, String).self).0 }
}

/// What a push needs to know of the account: the batch's receipt if it was applied before, the
/// stored rows and tombstones the push names, and (when `countingCards`) how many cards it holds.
struct StoredRecordsStatement: PostgresPreparedStatement {
    static let sql = """
        WITH named AS (SELECT * FROM unnest($1::text[], $2::text[]) AS named (entity, row_id))
        SELECT 'batch', NULL, NULL, NULL, receipt_cursor, NULL FROM sync_batch
        WHERE account_id = $3 AND batch_id = $4
        UNION ALL
        SELECT 'row', entity, row_id, record, NULL, NULL FROM sync_row
        WHERE account_id = $3 AND (entity, row_id) IN (SELECT * FROM named)
        UNION ALL
        SELECT 'tombstone', entity, row_id, NULL, hlc, replica FROM sync_tombstone
        WHERE account_id = $3 AND (entity, row_id) IN (SELECT * FROM named)
        UNION ALL
        SELECT 'cards', NULL, NULL, NULL, count(*), NULL FROM sync_row
        WHERE $5 AND account_id = $3 AND entity = 'card'
        """
    typealias Row = (String, String?, String?, String?, Int64?, String?)

    var entities: [String]
    var ids: [String]
    var account: UUID
    var batch: UUID
    var countingCards: Bool

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(entities)
        bindings.append(ids)
        bindings.append(account)
        bindings.append(batch)
        bindings.append(countingCards)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// Writes a push's plan, the account's new last sequence number and the batch's receipt in one
/// statement, whatever the plan's size (empty arrays write nothing).
struct WritePlanStatement: PostgresPreparedStatement {
    static let sql = """
        WITH tombstones AS (
            INSERT INTO sync_tombstone (account_id, entity, row_id, hlc, replica, seq)
            SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int8[], $5::text[], $6::int8[])
            ON CONFLICT (account_id, entity, row_id) DO UPDATE
            SET hlc = excluded.hlc, replica = excluded.replica, seq = excluded.seq
        ), deleted AS (
            DELETE FROM sync_row WHERE account_id = $1 AND (entity, row_id) IN (
                SELECT * FROM unnest($7::text[], $8::text[]))
        ), written AS (
            INSERT INTO sync_row (account_id, entity, row_id, record, seq)
            SELECT $1, * FROM unnest($9::text[], $10::text[], $11::text[], $12::int8[])
            ON CONFLICT (account_id, entity, row_id) DO UPDATE SET record = excluded.record, seq = excluded.seq
        ), moved AS (
            UPDATE sync_account SET last_seq = $13 WHERE account_id = $1
        )
        INSERT INTO sync_batch (account_id, batch_id, receipt_cursor) VALUES ($1, $14, $13)
        """
    typealias Row = ()

    var account: UUID
    var tombstones: (entities: [String], ids: [String], hlcs: [Int64], replicas: [String], seqs: [Int64])
    var deleted: (entities: [String], ids: [String])
    var rows: (entities: [String], ids: [String], records: [String], seqs: [Int64])
    var lastSeq: Int64
    var batch: UUID

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 14)
        bindings.append(account)
        bindings.append(tombstones.entities)
        bindings.append(tombstones.ids)
        bindings.append(tombstones.hlcs)
        bindings.append(tombstones.replicas)
        bindings.append(tombstones.seqs)
        bindings.append(deleted.entities)
        bindings.append(deleted.ids)
        bindings.append(rows.entities)
        bindings.append(rows.ids)
        bindings.append(rows.records)
        bindings.append(rows.seqs)
        bindings.append(lastSeq)
        bindings.append(batch)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {}
}
