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
    private let optimisticAttempts: Int
    let logger: Logger
    /// This server, among those sharing the database: the news it announces carries it, so it
    /// ignores its own.
    let origin = UUID()
    /// Opens once the server listens for the others' news.
    let listening = Latch()

    /// Connects to `url` (`postgres://user:password@host:port/database`, `?sslmode=disable|prefer|require`)
    /// and brings its tables up to date.
    public static func open(url: String, logger: Logger = Logger(label: "cardbox.postgres")) async throws
        -> PostgresServerDatabase
    {
        try await open(url: url, optimisticAttempts: 3, logger: logger)
    }

    /// `open`, with the number of times a push tries without a lock before it takes one (`push`):
    /// tests also run with none.
    /// `migratingThrough`: the last migration to make (tests make an older database so).
    package static func open(
        url: String, optimisticAttempts: Int, migratingThrough: Int = migrations.count,
        logger: Logger = Logger(label: "cardbox.postgres")
    ) async throws -> PostgresServerDatabase {
        let state = PostgresServerDatabase(
            client: PostgresClient(configuration: try Self.configuration(url), backgroundLogger: logger),
            optimisticAttempts: optimisticAttempts, logger: logger)
        await state.started.first { _ in true }
        do {
            try await state.migrate(through: migratingThrough)
        } catch {
            await state.close()
            throw error
        }
        return state
    }

    private init(client: PostgresClient, optimisticAttempts: Int, logger: Logger) {
        self.client = client
        self.optimisticAttempts = optimisticAttempts
        self.logger = logger
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        self.started = started
        running = Task {
            starting.yield()
            starting.finish()
            await client.run()
        }
    }

    /// Says when the pool's task has begun, right before it runs the pool: work given the pool
    /// before that waits for it all the same, but the pool logs a warning for it.
    private let started: AsyncStream<Void>

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
        var configuration = PostgresClient.Configuration(
            host: host, port: parts.port ?? 5432, username: user,
            password: parts.password.flatMap { $0.removingPercentEncoding },
            database: database.isEmpty ? nil : database, tls: tls)
        // See PostgresStatements.swift: planned once per connection, not at every call.
        configuration.options.additionalStartupParameters = [("plan_cache_mode", "force_generic_plan")]
        return configuration
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
        [
            """
            CREATE TABLE server_device_sync (
                account_id uuid NOT NULL, device_id uuid NOT NULL, last_sync_at timestamptz NOT NULL,
                pulled_cursor bigint, last_error text, last_error_at timestamptz,
                PRIMARY KEY (account_id, device_id))
            """
        ],
        [
            // One row at most: the setup link the server that started last printed.
            """
            CREATE TABLE server_setup_token (
                only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), token_hash text NOT NULL,
                expires_at timestamptz NOT NULL)
            """
        ],
        [
            // The first account is the administrator, on a server made before there was one too.
            "ALTER TABLE server_account ADD COLUMN is_administrator boolean NOT NULL DEFAULT false",
            PostgresServerDatabase.administratorLeft,
        ],
        [
            // Counted here rather than in a server's memory, so every server sharing the database
            // counts the same failures (`SignInThrottle`).
            """
            CREATE TABLE sign_in_failure (
                kind text NOT NULL, key text NOT NULL, count integer NOT NULL, first_at double precision NOT NULL,
                last_at double precision NOT NULL, window_seconds double precision, PRIMARY KEY (kind, key))
            """,
            "CREATE INDEX sign_in_failure_by_last_at ON sign_in_failure (last_at)",
        ],
    ]

    private func migrate(through last: Int) async throws {
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
                for (index, statements) in Self.migrations.enumerated().prefix(last).dropFirst(done) {
                    for sql in statements {
                        try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO cardbox_migration (version) VALUES (\(index + 1))", logger: logger)
                }
            }
        }
    }

    /// A push is two statements outside any transaction, read then write, each a round trip to the
    /// database (most of what a small push costs): read what the push names and the account's last
    /// sequence number; plan; write the plan if that number has not moved since
    /// (`WritePlanStatement`). When another push came between, it reads and plans again; after
    /// `optimisticAttempts` such tries (a busy account), it locks the account's row for a
    /// transaction, so it cannot lose again: five round trips, BEGIN and COMMIT among them.
    public func push(_ changes: ChangeSet, batch: UUID, account: UUID, cardLimit: Int?, now: Date) async throws
        -> PushReceipt
    {
        try Self.check(changes, account: account, now: now)
        return try await pushChecked(
            changes, PushPlan.keys(of: changes), batch: batch, account: account, cardLimit: cardLimit)
    }

    /// The push's first read runs while the caller's token is checked (two round trips to the
    /// database at once, on two connections, instead of one after the other); its connection goes
    /// back to the pool before waiting for the check, which may need one. Once the check has passed,
    /// the plan is written as after any read; when the read did not count the account's cards and
    /// the account turns out to have a limit, it is read again.
    public func push(
        _ changes: ChangeSet, batch: UUID, account: UUID, now: Date, expectingCardLimit: Bool,
        verified: @escaping @Sendable () async throws -> Int?
    ) async throws -> PushReceipt {
        try Self.check(changes, account: account, now: now)
        let keys = PushPlan.keys(of: changes)
        let stored = try await translatingErrors {
            try await client.withConnection { connection in
                try await self.stored(
                    keys, batch: batch, account: account, countingCards: expectingCardLimit, connection)
            }
        }
        let cardLimit = try await verified()
        if cardLimit == nil || expectingCardLimit,
            let written = try await translatingErrors({
                try await client.withConnection { connection in
                    try await self.push(
                        changes, stored, batch: batch, account: account, cardLimit: cardLimit, connection)
                }
            })
        {
            return written
        }
        return try await pushChecked(changes, keys, batch: batch, account: account, cardLimit: cardLimit)
    }

    /// A push once its change set has been checked.
    private func pushChecked(_ changes: ChangeSet, _ keys: [RecordKey], batch: UUID, account: UUID, cardLimit: Int?)
        async throws -> PushReceipt
    {
        try await translatingErrors {
            for _ in 0..<optimisticAttempts {
                let written = try await client.withConnection { connection in
                    try await self.push(changes, keys, batch: batch, account: account, cardLimit: cardLimit, connection)
                }
                if let written { return written }
            }
            return try await client.withTransaction(logger: logger) { connection in
                // The upsert locks the account's row (as FOR UPDATE would) and makes it the first time.
                for try await _ in try await connection.execute(LockAccountStatement(account: account), logger: logger)
                {}
                // Read under the account's lock: a retry racing its first attempt waits for it.
                guard
                    let written = try await self.push(
                        changes, keys, batch: batch, account: account, cardLimit: cardLimit, connection)
                else { throw CardboxError.storage("the account's sequence number moved while it was locked") }
                return written
            }
        }
    }

    /// Reads what the push names, plans, and writes the plan unless another push came between
    /// (nil). A batch applied before answers with its first receipt.
    private func push(
        _ changes: ChangeSet, _ keys: [RecordKey], batch: UUID, account: UUID, cardLimit: Int?,
        _ connection: PostgresConnection
    ) async throws -> PushReceipt? {
        let stored = try await self.stored(
            keys, batch: batch, account: account, countingCards: cardLimit != nil, connection)
        return try await push(changes, stored, batch: batch, account: account, cardLimit: cardLimit, connection)
    }

    /// Plans the push from what was read of the account and writes the plan unless another push came
    /// between (nil).
    private func push(
        _ changes: ChangeSet, _ stored: StoredRecords, batch: UUID, account: UUID, cardLimit: Int?,
        _ connection: PostgresConnection
    ) async throws -> PushReceipt? {
        if let cursor = stored.receipt { return PushReceipt(cursor: cursor, wasRetry: true) }
        let plan = PushPlan(
            changes, storedRows: stored.rows, storedTombstones: stored.tombstones, lastSeq: stored.lastSeq)
        if cardLimit != nil { try plan.checkCardLimit(cardLimit, cardsBefore: stored.cards) }
        guard try await self.write(plan, batch: batch, account: account, connection) else { return nil }
        return PushReceipt(cursor: plan.lastSeq, wasRetry: false, previousCursor: plan.previousSeq)
    }

    /// What a push needs to know of the account, in one statement: the batch's receipt if it was
    /// applied before, the stored rows and tombstones the push names, (for a plan with a card
    /// limit) how many cards the account holds, and its last sequence number.
    private func stored(
        _ keys: [RecordKey], batch: UUID, account: UUID, countingCards: Bool, _ connection: PostgresConnection
    ) async throws -> StoredRecords {
        var result = StoredRecords()
        let statement = StoredRecordsStatement(
            entities: keys.map(\.entity.rawValue), ids: keys.map(\.id), account: account, batch: batch,
            countingCards: countingCards)
        for try await (kind, entity, id, record, number, replica) in try await connection.execute(
            statement, logger: logger)
        {
            switch (kind, entity.flatMap(SyncedEntity.init(rawValue:)), id, record, number, replica) {
            case ("batch", _, _, _, let cursor?, _):
                result.receipt = cursor
            case ("row", _, _, let record?, _, _):
                let row = try RowChange(recordJSON: record, field: "sync_row")
                result.rows[RecordKey(row.entity, row.id)] = row
            case ("tombstone", let entity?, let id?, _, let hlc?, let replica?):
                result.tombstones[RecordKey(entity, id)] = Tombstone(RecordKey(entity, id), hlc: hlc, replica: replica)
            case ("cards", _, _, _, let count?, _):
                result.cards = Int(count)
            case ("cursor", _, _, _, let seq?, _):
                result.lastSeq = seq
            default:
                throw CardboxError.storage("the sync state holds a malformed \(kind) of \(entity ?? "?") \(id ?? "?")")
            }
        }
        return result
    }

    /// Writes a plan, the account's new last sequence number and the batch's receipt in one
    /// statement, whatever the plan's size (an empty list of records writes none), unless the
    /// account's last sequence number has moved since the plan was made (false).
    private func write(_ plan: PushPlan, batch: UUID, account: UUID, _ connection: PostgresConnection) async throws
        -> Bool
    {
        let tombstones = plan.tombstones.map(\.tombstone)
        let rows = plan.rows.map(\.row)
        let statement = WritePlanStatement(
            account: account,
            tombstones: (
                tombstones.map(\.entity.rawValue), tombstones.map(\.id),
                tombstones.map { $0.clock.timestamp.storageValue },
                tombstones.map(\.clock.replicaId), plan.tombstones.map(\.seq)
            ),
            deleted: (plan.deletedRows.map(\.entity.rawValue), plan.deletedRows.map(\.id)),
            rows: (rows.map(\.entity.rawValue), rows.map(\.id), rows.map(\.recordJSON), plan.rows.map(\.seq)),
            lastSeq: plan.lastSeq, batch: batch, expectedSeq: plan.previousSeq)
        for try await written in try await connection.execute(statement, logger: logger) { return written == 1 }
        return false
    }

    public func cursor(account: UUID) async throws -> Int64 {
        try await translatingErrors {
            for try await seq in try await client.execute(CursorStatement(account: account), logger: logger) {
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
            let statement = PullStatement(account: account, cursor: cursor, limit: Int64(limit) + 1)
            for try await (seq, entity, id, record, hlc, replica) in try await client.execute(statement, logger: logger)
            {
                records.append(
                    try PulledRecord(seq: seq, entity: entity, id: id, record: record, hlc: hlc, replica: replica))
            }
            return PullPage(records, account: account, after: cursor, limit: limit)
        }
    }

    /// What a push reads of the account (`stored`).
    private struct StoredRecords {
        var receipt: Int64?
        var rows: [RecordKey: RowChange] = [:]
        var tombstones: [RecordKey: Tombstone] = [:]
        var cards = 0
        var lastSeq: Int64 = 0
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
