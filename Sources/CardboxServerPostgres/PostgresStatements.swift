import Foundation
import PostgresNIO

// The statements every sync runs, prepared once per connection. Sent as unnamed statements, each
// was parsed and planned again on every call: PostgreSQL's own log showed 0.2-0.5 ms of parse and
// bind (planning) beside 0.02-0.1 ms of execution, most of a push of one card.
//
// Prepared, they are still planned again at every call unless PostgreSQL takes their generic plan,
// and for the push's read and write, whose arrays of records it cannot size in advance, it never
// did. So the server's connections use generic plans only (`plan_cache_mode`, set at connection):
// each statement here is a lookup by account and key, or a walk of the account's sequence index in
// order, and is written so that its best plan does not depend on the values.

/// The device a token names, its account, and the account's sync cursor (`signedInDevice`).
struct SignedInDeviceStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT d.name, d.token_hash, d.created_at, d.last_seen_at, d.revoked_at, a.name, a.plan, a.created_at,
            a.is_administrator, COALESCE((SELECT last_seq FROM sync_account s WHERE s.account_id = d.account_id), 0)
        FROM server_device d JOIN server_account a ON a.account_id = d.account_id
        WHERE d.account_id = $1 AND d.device_id = $2
        """
    typealias Row = (String, String, Date, Date?, Date?, String, String, Date, Bool, Int64)

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

/// Up to `limit` records changed after `cursor`, rows and tombstones from one snapshot. Each side
/// takes its own first `limit` in order, so that its plan is the walk of its sequence index
/// whatever the cursor and limit: a generic plan of the merged sides alone chose to sort them.
struct PullStatement: PostgresPreparedStatement {
    static let sql = """
        (SELECT seq, entity, row_id, record, NULL::bigint, NULL::text FROM sync_row
        WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3)
        UNION ALL
        (SELECT seq, entity, row_id, NULL::text, hlc, replica FROM sync_tombstone
        WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3)
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
struct LockAccountStatement: PostgresPreparedStatement {
    static let sql = """
        INSERT INTO sync_account (account_id, last_seq) VALUES ($1, 0)
        ON CONFLICT (account_id) DO UPDATE SET last_seq = sync_account.last_seq
        RETURNING last_seq
        """
    typealias Row = Int64

    var account: UUID

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(account)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int64.self) }
}

/// What a push needs to know of the account: the batch's receipt if it was applied before, the
/// stored rows and tombstones the push names, (when `countingCards`) how many cards it holds, and
/// its last sequence number (none before its first push), all from one snapshot.
///
/// Each record named is looked up by its key (`LIMIT 1` keeps the lookup a subquery of its own):
/// as a join, a plan made while an account had few tombstones read all of them at every push.
struct StoredRecordsStatement: PostgresPreparedStatement {
    static let sql = """
        WITH named AS (SELECT * FROM unnest($1::text[], $2::text[]) AS named (entity, row_id))
        SELECT 'batch', NULL, NULL, NULL, receipt_cursor, NULL FROM sync_batch
        WHERE account_id = $3 AND batch_id = $4
        UNION ALL
        SELECT 'row', named.entity, named.row_id, stored.record, NULL, NULL FROM named, LATERAL (
            SELECT record FROM sync_row r
            WHERE r.account_id = $3 AND r.entity = named.entity AND r.row_id = named.row_id LIMIT 1) stored
        UNION ALL
        SELECT 'tombstone', named.entity, named.row_id, NULL, stored.hlc, stored.replica FROM named, LATERAL (
            SELECT hlc, replica FROM sync_tombstone t
            WHERE t.account_id = $3 AND t.entity = named.entity AND t.row_id = named.row_id LIMIT 1) stored
        UNION ALL
        SELECT 'cards', NULL, NULL, NULL, count(*), NULL FROM sync_row
        WHERE $5 AND account_id = $3 AND entity = 'card'
        UNION ALL
        SELECT 'cursor', NULL, NULL, NULL, last_seq, NULL FROM sync_account WHERE account_id = $3
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
/// statement, whatever the plan's size (empty arrays write nothing), if the account's last sequence
/// number is still `expectedSeq` (0 for an account that has none yet): the plan was made from the
/// state that number names, and every change to the account's records moves it. Returns whether it
/// wrote; when it did not, another push came between and nothing was changed.
///
/// The account's row is written first, and everything else only once that write has returned its
/// row: it waits for a push holding that row's lock, then sees that push's number, so the check
/// and the write are one step. Without a transaction this is one round trip, and one commit. (A
/// batch sent twice at once that changes nothing passes the check twice: its receipt is kept once.)
struct WritePlanStatement: PostgresPreparedStatement {
    static let sql = """
        WITH moved AS (
            INSERT INTO sync_account (account_id, last_seq) VALUES ($1, $13)
            ON CONFLICT (account_id) DO UPDATE SET last_seq = excluded.last_seq
            WHERE sync_account.last_seq = $15
            RETURNING account_id
        ), tombstones AS (
            INSERT INTO sync_tombstone (account_id, entity, row_id, hlc, replica, seq)
            SELECT moved.account_id, t.* FROM moved,
                unnest($2::text[], $3::text[], $4::int8[], $5::text[], $6::int8[]) AS t
            ON CONFLICT (account_id, entity, row_id) DO UPDATE
            SET hlc = excluded.hlc, replica = excluded.replica, seq = excluded.seq
        ), deleted AS (
            DELETE FROM sync_row USING moved WHERE sync_row.account_id = moved.account_id
            AND (entity, row_id) IN (SELECT * FROM unnest($7::text[], $8::text[]))
        ), written AS (
            INSERT INTO sync_row (account_id, entity, row_id, record, seq)
            SELECT moved.account_id, r.* FROM moved, unnest($9::text[], $10::text[], $11::text[], $12::int8[]) AS r
            ON CONFLICT (account_id, entity, row_id) DO UPDATE SET record = excluded.record, seq = excluded.seq
        ), receipt AS (
            INSERT INTO sync_batch (account_id, batch_id, receipt_cursor) SELECT account_id, $14, $13 FROM moved
            ON CONFLICT DO NOTHING
        )
        SELECT count(*) FROM moved
        """
    typealias Row = Int64

    var account: UUID
    var tombstones: (entities: [String], ids: [String], hlcs: [Int64], replicas: [String], seqs: [Int64])
    var deleted: (entities: [String], ids: [String])
    var rows: (entities: [String], ids: [String], records: [String], seqs: [Int64])
    var lastSeq: Int64
    var batch: UUID
    var expectedSeq: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 15)
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
        bindings.append(expectedSeq)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int64.self) }
}
