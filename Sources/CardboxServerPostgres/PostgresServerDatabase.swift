import CardboxCore
import CardboxServer
import CardboxSync
import Foundation
import Logging
import PostgresNIO

/// The sync state in PostgreSQL, for servers that share one database (several `cardbox serve`
/// processes) or outgrow a file. The tables are those of `SQLiteServerDatabase`; every primary key starts
/// with the account id and every statement names one account, so the tables can be distributed by
/// account (Citus: `SELECT create_distributed_table('sync_row', 'account_id')`, and so on).
///
/// Pushes to one account are serialized by locking its `sync_account` row, so sequence numbers are
/// handed out and committed in order: a pull never sees number n + 1 before n. Pushes to different
/// accounts never wait for each other.
public final class PostgresServerDatabase: ServerDatabase {
    let client: PostgresClient
    private let running: Task<Void, Never>
    let logger: Logger

    /// Connects to `url` (`postgres://user:password@host:port/database`, `?sslmode=disable|prefer|require`)
    /// and brings its tables up to date.
    public static func open(url: String, logger: Logger = Logger(label: "cardbox.postgres")) async throws
        -> PostgresServerDatabase
    {
        let state = PostgresServerDatabase(
            client: PostgresClient(configuration: try Self.configuration(url), backgroundLogger: logger), logger: logger
        )
        do {
            try await state.migrate()
        } catch {
            await state.close()
            throw error
        }
        return state
    }

    private init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
        running = Task { await client.run() }
    }

    deinit { running.cancel() }

    /// Closes every connection.
    public func close() async {
        running.cancel()
        await running.value
    }

    static func configuration(_ url: String) throws -> PostgresClient.Configuration {
        func invalid(_ reason: String) -> CardboxError { .invalid(field: "--database", reason: reason) }
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme),
            let host = parts.host, !host.isEmpty
        else { throw invalid("'\(url)' is not a postgres://user:password@host:port/database address") }
        let user = parts.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        let database = String(parts.path.drop { $0 == "/" })
        let tls: PostgresClient.Configuration.TLS
        switch parts.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer" {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        case let other: throw invalid("sslmode '\(other)' is not one of disable, prefer, require")
        }
        return PostgresClient.Configuration(
            host: host, port: parts.port ?? 5432, username: user,
            password: parts.password.flatMap { $0.removingPercentEncoding },
            database: database.isEmpty ? nil : database, tls: tls)
    }

    /// Each migration, once, in order; an advisory lock keeps two servers starting together apart.
    static let migrations: [[String]] = [
        [
            "CREATE TABLE sync_account (account_id uuid PRIMARY KEY, last_seq bigint NOT NULL)",
            """
            CREATE TABLE sync_row (
                account_id uuid NOT NULL, entity text NOT NULL, row_id text NOT NULL, record text NOT NULL,
                seq bigint NOT NULL, PRIMARY KEY (account_id, entity, row_id))
            """,
            "CREATE INDEX sync_row_by_seq ON sync_row (account_id, seq)",
            """
            CREATE TABLE sync_tombstone (
                account_id uuid NOT NULL, entity text NOT NULL, row_id text NOT NULL, hlc bigint NOT NULL,
                replica text NOT NULL, seq bigint NOT NULL, PRIMARY KEY (account_id, entity, row_id))
            """,
            "CREATE INDEX sync_tombstone_by_seq ON sync_tombstone (account_id, seq)",
            """
            CREATE TABLE sync_batch (
                account_id uuid NOT NULL, batch_id uuid NOT NULL, receipt_cursor bigint NOT NULL,
                PRIMARY KEY (account_id, batch_id))
            """,
        ],
        [
            """
            CREATE TABLE server_account (
                account_id uuid PRIMARY KEY, name text NOT NULL, password_hash text NOT NULL, plan text NOT NULL,
                created_at timestamptz NOT NULL)
            """,
            "CREATE TABLE server_account_name (name_key text PRIMARY KEY, account_id uuid NOT NULL)",
            """
            CREATE TABLE server_device (
                account_id uuid NOT NULL, device_id uuid NOT NULL, name text NOT NULL, token_hash text NOT NULL,
                created_at timestamptz NOT NULL, last_seen_at timestamptz, revoked_at timestamptz,
                PRIMARY KEY (account_id, device_id))
            """,
        ],
        [
            """
            CREATE TABLE server_image (
                account_id uuid NOT NULL, sha256 text NOT NULL, mime_type text NOT NULL, data bytea NOT NULL,
                PRIMARY KEY (account_id, sha256))
            """
        ],
    ]

    private func migrate() async throws {
        try await translatingErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(20261123)", logger: logger)
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS cardbox_migration (version integer PRIMARY KEY)", logger: logger)
                var done = 0
                for try await version in try await connection.query(
                    "SELECT coalesce(max(version), 0) FROM cardbox_migration", logger: logger
                ).decode(Int.self) {
                    done = version
                }
                for (index, statements) in Self.migrations.enumerated().dropFirst(done) {
                    for sql in statements {
                        try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO cardbox_migration (version) VALUES (\(index + 1))", logger: logger)
                }
            }
        }
    }

    public func push(_ changes: ChangeSet, batch: UUID, account: UUID, cardLimit: Int?, now: Date) async throws
        -> PushReceipt
    {
        try Self.check(changes, account: account, now: now)
        let keys = PushPlan.keys(of: changes)
        return try await translatingErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    "INSERT INTO sync_account (account_id, last_seq) VALUES (\(account), 0) ON CONFLICT DO NOTHING",
                    logger: logger)
                var lastSeq: Int64 = 0
                for try await seq in try await connection.query(
                    "SELECT last_seq FROM sync_account WHERE account_id = \(account) FOR UPDATE", logger: logger
                ).decode(Int64.self) {
                    lastSeq = seq
                }
                // Checked under the account's lock: a retry racing its first attempt waits for it.
                for try await cursor in try await connection.query(
                    "SELECT receipt_cursor FROM sync_batch WHERE account_id = \(account) AND batch_id = \(batch)",
                    logger: logger
                ).decode(Int64.self) {
                    return PushReceipt(cursor: cursor, wasRetry: true)
                }
                let plan = try await self.plan(changes, keys: keys, account: account, lastSeq: lastSeq, connection)
                if cardLimit != nil {
                    var cards = 0
                    for try await count in try await connection.query(
                        "SELECT count(*) FROM sync_row WHERE account_id = \(account) AND entity = 'card'",
                        logger: logger
                    ).decode(Int.self) {
                        cards = count
                    }
                    try plan.checkCardLimit(cardLimit, cardsBefore: cards)
                }
                try await self.write(plan, account: account, connection)
                try await connection.query(
                    """
                    INSERT INTO sync_batch (account_id, batch_id, receipt_cursor) VALUES (\(account), \(batch), \(plan.lastSeq))
                    """, logger: logger)
                return PushReceipt(cursor: plan.lastSeq, wasRetry: false)
            }
        }
    }

    /// Reads the records the push names, all at once, and plans the merge.
    private func plan(
        _ changes: ChangeSet, keys: [RecordKey], account: UUID, lastSeq: Int64, _ connection: PostgresConnection
    ) async throws -> PushPlan {
        let entities = keys.map(\.entity.rawValue)
        let ids = keys.map(\.id)
        var rows: [RecordKey: RowChange] = [:]
        for try await (_, _, record) in try await connection.query(
            """
            SELECT entity, row_id, record FROM sync_row
            WHERE account_id = \(account) AND (entity, row_id) IN (SELECT * FROM unnest(\(entities)::text[], \(ids)::text[]))
            """, logger: logger
        ).decode((String, String, String).self) {
            let row = try RowChange(recordJSON: record, field: "sync_row")
            rows[RecordKey(row.entity, row.id)] = row
        }
        var tombstones: [RecordKey: Tombstone] = [:]
        for try await (entity, id, hlc, replica) in try await connection.query(
            """
            SELECT entity, row_id, hlc, replica FROM sync_tombstone
            WHERE account_id = \(account) AND (entity, row_id) IN (SELECT * FROM unnest(\(entities)::text[], \(ids)::text[]))
            """, logger: logger
        ).decode((String, String, Int64, String).self) {
            guard let entity = SyncedEntity(rawValue: entity) else {
                throw CardboxError.storage("the sync state holds a tombstone of an unknown entity '\(entity)'")
            }
            tombstones[RecordKey(entity, id)] = Tombstone(RecordKey(entity, id), hlc: hlc, replica: replica)
        }
        return PushPlan(changes, storedRows: rows, storedTombstones: tombstones, lastSeq: lastSeq)
    }

    /// Writes a plan with one statement per kind of write, whatever its size.
    private func write(_ plan: PushPlan, account: UUID, _ connection: PostgresConnection) async throws {
        if !plan.tombstones.isEmpty {
            let tombstones = plan.tombstones.map(\.tombstone)
            let entities = tombstones.map(\.entity.rawValue)
            let ids = tombstones.map(\.id)
            let hlcs = tombstones.map { $0.clock.timestamp.storageValue }
            let replicas = tombstones.map(\.clock.replicaId)
            let seqs = plan.tombstones.map(\.seq)
            try await connection.query(
                """
                INSERT INTO sync_tombstone (account_id, entity, row_id, hlc, replica, seq)
                SELECT \(account), * FROM unnest(\(entities)::text[], \(ids)::text[], \(hlcs)::int8[], \(replicas)::text[], \(seqs)::int8[])
                ON CONFLICT (account_id, entity, row_id) DO UPDATE
                SET hlc = excluded.hlc, replica = excluded.replica, seq = excluded.seq
                """, logger: logger)
        }
        if !plan.deletedRows.isEmpty {
            let entities = plan.deletedRows.map(\.entity.rawValue)
            let ids = plan.deletedRows.map(\.id)
            try await connection.query(
                """
                DELETE FROM sync_row WHERE account_id = \(account)
                AND (entity, row_id) IN (SELECT * FROM unnest(\(entities)::text[], \(ids)::text[]))
                """, logger: logger)
        }
        if !plan.rows.isEmpty {
            let rows = plan.rows.map(\.row)
            let entities = rows.map(\.entity.rawValue)
            let ids = rows.map(\.id)
            let records = rows.map(\.recordJSON)
            let seqs = plan.rows.map(\.seq)
            try await connection.query(
                """
                INSERT INTO sync_row (account_id, entity, row_id, record, seq)
                SELECT \(account), * FROM unnest(\(entities)::text[], \(ids)::text[], \(records)::text[], \(seqs)::int8[])
                ON CONFLICT (account_id, entity, row_id) DO UPDATE SET record = excluded.record, seq = excluded.seq
                """, logger: logger)
        }
        try await connection.query(
            "UPDATE sync_account SET last_seq = \(plan.lastSeq) WHERE account_id = \(account)", logger: logger)
    }

    public func cursor(account: UUID) async throws -> Int64 {
        try await translatingErrors {
            for try await seq in try await client.query(
                "SELECT last_seq FROM sync_account WHERE account_id = \(account)", logger: logger
            ).decode(Int64.self) {
                return seq
            }
            return 0
        }
    }

    public func pull(account: UUID, after cursor: Int64, limit: Int) async throws -> PullPage {
        try Self.checkPage(cursor, limit)
        return try await translatingErrors {
            var records: [PulledRecord] = []
            // One statement, so rows and tombstones come from one snapshot.
            for try await (seq, entity, id, record, hlc, replica) in try await client.query(
                """
                SELECT seq, entity, row_id, record, NULL::bigint, NULL::text FROM sync_row
                WHERE account_id = \(account) AND seq > \(cursor)
                UNION ALL
                SELECT seq, entity, row_id, NULL::text, hlc, replica FROM sync_tombstone
                WHERE account_id = \(account) AND seq > \(cursor)
                ORDER BY 1 LIMIT \(limit + 1)
                """, logger: logger
            ).decode((Int64, String, String, String?, Int64?, String?).self) {
                records.append(
                    try PulledRecord(seq: seq, entity: entity, id: id, record: record, hlc: hlc, replica: replica))
            }
            return PullPage(records, account: account, after: cursor, limit: limit)
        }
    }

    func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            // A transaction's own error (a refusal made inside it) is the one to report.
            if let refusal = error.closureError, !(refusal is PSQLError) { throw refusal }
            let failure = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError
            throw Self.storageError(failure)
        } catch let error as PSQLError {
            throw Self.storageError(error)
        }
    }

    private static func storageError(_ error: (any Error)?) -> CardboxError {
        let message =
            (error as? PSQLError).map { $0.serverInfo?[.message] ?? "\($0.code)" } ?? "\(error.map { "\($0)" } ?? "")"
        return CardboxError.storage("the server database (PostgreSQL) failed: \(message)")
    }
}
