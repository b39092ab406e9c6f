import CardboxCore
import CardboxServer
import Foundation
import NIOCore
import PostgresNIO

extension PostgresServerDatabase {
    public func replaceSetupToken(hash: String, expiresAt: Date) async throws {
        try await translatingErrors {
            try await client.query(
                """
                INSERT INTO server_setup_token (only_row, token_hash, expires_at) VALUES (true, \(hash), \(expiresAt))
                ON CONFLICT (only_row) DO UPDATE SET token_hash = excluded.token_hash, expires_at = excluded.expires_at
                """, logger: logger)
        }
    }

    public func isSetupToken(hash: String, now: Date) async throws -> Bool {
        try await translatingErrors {
            try await Self.isSetupToken(hash: hash, now: now, client.query(Self.setupTokenQuery, logger: logger))
        }
    }

    private static let setupTokenQuery: PostgresQuery = "SELECT token_hash, expires_at FROM server_setup_token"

    private static func isSetupToken(hash: String, now: Date, _ rows: PostgresRowSequence) async throws -> Bool {
        for try await (kept, expiresAt) in rows.decode((String, Date).self) {
            return constantTimeEqual(kept, hash) && now < expiresAt
        }
        return false
    }

    /// The key of the transaction lock that makes "no account yet, so add this one" one step for
    /// every server sharing the database.
    private static let firstAccountLock: Int64 = 0x6361_7264_626f_7801

    /// `onlyIfFirst`: the setup link's token hash, checked with "no account yet" in the same
    /// transaction and then used up.
    public func addAccount(name: String, passwordHash: String, plan: Plan, now: Date, onlyIfFirst: String?)
        async throws -> ServerAccount
    {
        let name = try Self.checkName(name)
        let id = UUID()
        let key = Self.nameKey(name)
        let isAdministrator = try await translatingErrors {
            try await client.withTransaction(logger: logger) { connection -> Bool in
                // Whether this is the first account (the administrator) is decided under the lock,
                // so two servers adding accounts to an empty database make one administrator.
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.firstAccountLock))", logger: logger)
                let existing = try await connection.query(
                    "SELECT 1 FROM server_account LIMIT 1", logger: logger
                ).collect()
                if let setupTokenHash = onlyIfFirst {
                    guard existing.isEmpty else { throw SetupClosed() }
                    let kept = try await connection.query(Self.setupTokenQuery, logger: logger)
                    guard try await Self.isSetupToken(hash: setupTokenHash, now: now, kept) else {
                        throw SetupLinkRefused()
                    }
                    try await connection.query("DELETE FROM server_setup_token", logger: logger)
                }
                // The name's row decides a race between two servers adding one name.
                let claimed = try await connection.query(
                    """
                    INSERT INTO server_account_name (name_key, account_id) VALUES (\(key), \(id))
                    ON CONFLICT DO NOTHING RETURNING account_id
                    """, logger: logger
                ).collect()
                guard !claimed.isEmpty else { throw CardboxError.alreadyExists(kind: "account", name: name) }
                try await connection.query(
                    """
                    INSERT INTO server_account (account_id, name, password_hash, plan, created_at, is_administrator)
                    VALUES (\(id), \(name), \(passwordHash), \(plan.rawValue), \(now), \(existing.isEmpty))
                    """, logger: logger)
                return existing.isEmpty
            }
        }
        return ServerAccount(id: id, name: name, plan: plan, createdAt: now, isAdministrator: isAdministrator)
    }

    public func accounts() async throws -> [ServerAccount] {
        try await translatingErrors {
            var accounts: [ServerAccount] = []
            for try await (id, name, plan, createdAt, isAdministrator) in try await client.query(
                "SELECT account_id, name, plan, created_at, is_administrator FROM server_account ORDER BY name",
                logger: logger
            ).decode((UUID, String, String, Date, Bool).self) {
                accounts.append(try Self.account(id, name, plan, createdAt, isAdministrator))
            }
            return accounts
        }
    }

    public func account(named name: String) async throws -> (account: ServerAccount, passwordHash: String)? {
        let key = Self.nameKey(name)
        return try await translatingErrors {
            for try await (id, name, plan, createdAt, isAdministrator, hash) in try await client.query(
                """
                SELECT a.account_id, a.name, a.plan, a.created_at, a.is_administrator, a.password_hash
                FROM server_account_name n JOIN server_account a ON a.account_id = n.account_id
                WHERE n.name_key = \(key)
                """, logger: logger
            ).decode((UUID, String, String, Date, Bool, String).self) {
                return (try Self.account(id, name, plan, createdAt, isAdministrator), hash)
            }
            return nil
        }
    }

    public func account(_ id: UUID) async throws -> ServerAccount? {
        try await translatingErrors {
            for try await (id, name, plan, createdAt, isAdministrator) in try await client.query(
                """
                SELECT account_id, name, plan, created_at, is_administrator FROM server_account
                WHERE account_id = \(id)
                """, logger: logger
            ).decode((UUID, String, String, Date, Bool).self) {
                return try Self.account(id, name, plan, createdAt, isAdministrator)
            }
            return nil
        }
    }

    public func removeAccount(_ id: UUID) async throws {
        try await translatingErrors {
            try await client.withTransaction(logger: logger) { connection in
                // One statement per table, each naming the account.
                for table in [
                    "server_account_name", "server_device", "sync_row", "sync_tombstone", "sync_batch", "sync_account",
                    "server_image", "server_device_sync", "server_account",
                ] {
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE account_id = $1", binds: Self.binds(id)),
                        logger: logger)
                }
                try await connection.query(PostgresQuery(unsafeSQL: Self.administratorLeft), logger: logger)
            }
        }
    }

    /// A server whose administrator went has its oldest account as administrator.
    static let administratorLeft = """
        UPDATE server_account SET is_administrator = true
        WHERE account_id = (SELECT account_id FROM server_account ORDER BY created_at, account_id LIMIT 1)
        AND NOT EXISTS (SELECT 1 FROM server_account WHERE is_administrator)
        """

    public func setAdministrator(_ account: UUID) async throws {
        try await translatingErrors {
            try await client.withTransaction(logger: logger) { connection in
                let found = try await connection.query(
                    "SELECT 1 FROM server_account WHERE account_id = \(account)", logger: logger
                ).collect()
                guard !found.isEmpty else {
                    throw CardboxError.notFound(kind: "account", reference: account.uuidString.lowercased())
                }
                try await connection.query(
                    "UPDATE server_account SET is_administrator = (account_id = \(account))", logger: logger)
            }
        }
    }

    private static func binds(_ id: UUID) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(id)
        return binds
    }

    public func setPasswordHash(_ hash: String, account: UUID, keeping device: UUID?, now: Date) async throws {
        // One statement: a data-modifying WITH runs whole whether or not the query reads it.
        try await updated(
            """
            WITH changed AS (
                UPDATE server_account SET password_hash = \(hash) WHERE account_id = \(account) RETURNING account_id
            ), revoked AS (
                UPDATE server_device SET revoked_at = coalesce(revoked_at, \(now))
                WHERE account_id IN (SELECT account_id FROM changed) AND device_id IS DISTINCT FROM \(device)
                RETURNING device_id
            )
            SELECT account_id FROM changed
            """, account)
    }

    public func setPlan(_ plan: Plan, account: UUID) async throws {
        try await updated(
            "UPDATE server_account SET plan = \(plan.rawValue) WHERE account_id = \(account) RETURNING account_id",
            account)
    }

    private func updated(_ query: PostgresQuery, _ account: UUID) async throws {
        try await translatingErrors {
            guard try await !client.query(query, logger: logger).collect().isEmpty else {
                throw CardboxError.notFound(kind: "account", reference: account.uuidString.lowercased())
            }
        }
    }

    public func addDevice(_ id: UUID, account: UUID, name: String, tokenHash: String, now: Date) async throws
        -> ServerDevice
    {
        let device = ServerDevice(
            id: id, accountId: account, name: name, createdAt: now, lastSeenAt: now, revokedAt: nil)
        _ = try await translatingErrors {
            try await client.query(
                """
                INSERT INTO server_device (account_id, device_id, name, token_hash, created_at, last_seen_at)
                VALUES (\(account), \(device.id), \(name), \(tokenHash), \(now), \(now))
                """, logger: logger)
        }
        return device
    }

    public func devices(account: UUID) async throws -> [ServerDevice] {
        try await translatingErrors {
            var devices: [ServerDevice] = []
            for try await (id, name, createdAt, lastSeenAt, revokedAt) in try await client.query(
                """
                SELECT device_id, name, created_at, last_seen_at, revoked_at FROM server_device
                WHERE account_id = \(account) ORDER BY created_at, device_id
                """, logger: logger
            ).decode((UUID, String, Date, Date?, Date?).self) {
                devices.append(
                    ServerDevice(
                        id: id, accountId: account, name: name, createdAt: createdAt, lastSeenAt: lastSeenAt,
                        revokedAt: revokedAt))
            }
            return devices
        }
    }

    public func signedInDevice(_ id: UUID, account: UUID, seenAt now: Date) async throws -> SignedInDevice? {
        try await translatingErrors {
            var found: SignedInDevice?
            for try await (
                name, hash, createdAt, lastSeenAt, revokedAt, accountName, plan, accountCreatedAt, isAdministrator,
                cursor
            ) in try await client.execute(SignedInDeviceStatement(account: account, device: id), logger: logger) {
                found = SignedInDevice(
                    device: ServerDevice(
                        id: id, accountId: account, name: name, createdAt: createdAt, lastSeenAt: lastSeenAt,
                        revokedAt: revokedAt),
                    tokenHash: hash,
                    account: try Self.account(account, accountName, plan, accountCreatedAt, isAdministrator),
                    cursor: cursor)
            }
            guard var found else { return nil }
            // A write only when the seen-time is a minute old (one more round trip, once a minute).
            if found.device.revokedAt == nil, found.device.lastSeenAt.map({ now.timeIntervalSince($0) >= 60 }) ?? true {
                try await client.query(
                    """
                    UPDATE server_device SET last_seen_at = \(now)
                    WHERE account_id = \(account) AND device_id = \(id) AND revoked_at IS NULL
                    """, logger: logger)
                found.device.lastSeenAt = now
            }
            return found
        }
    }

    public func recordSync(device: UUID, account: UUID, pulledTo cursor: Int64?, refusal: String??, now: Date)
        async throws
    {
        let (setsError, error) = (refusal != nil, refusal ?? nil)
        let errorAt: Date? = error == nil ? nil : now
        _ = try await translatingErrors {
            try await client.query(
                """
                INSERT INTO server_device_sync (account_id, device_id, last_sync_at, pulled_cursor, last_error, last_error_at)
                VALUES (\(account), \(device), \(now), \(cursor), \(error), \(errorAt))
                ON CONFLICT (account_id, device_id) DO UPDATE SET
                  last_sync_at = excluded.last_sync_at,
                  pulled_cursor = coalesce(excluded.pulled_cursor, server_device_sync.pulled_cursor),
                  last_error = CASE WHEN \(setsError) THEN excluded.last_error ELSE server_device_sync.last_error END,
                  last_error_at = CASE WHEN \(setsError) THEN excluded.last_error_at ELSE server_device_sync.last_error_at END
                WHERE excluded.last_sync_at >= server_device_sync.last_sync_at
                """, logger: logger)
        }
    }

    public func syncStatus(account: UUID) async throws -> [UUID: DeviceSyncStatus] {
        try await translatingErrors {
            var status: [UUID: DeviceSyncStatus] = [:]
            for try await (device, lastSyncAt, cursor, error, errorAt) in try await client.query(
                """
                SELECT device_id, last_sync_at, pulled_cursor, last_error, last_error_at
                FROM server_device_sync WHERE account_id = \(account)
                """, logger: logger
            ).decode((UUID, Date, Int64?, String?, Date?).self) {
                status[device] = DeviceSyncStatus(
                    lastSyncAt: lastSyncAt, pulledCursor: cursor, lastError: error, lastErrorAt: errorAt)
            }
            return status
        }
    }

    public func revokeDevice(_ id: UUID, account: UUID, now: Date) async throws -> Bool {
        try await translatingErrors {
            try await !client.query(
                """
                UPDATE server_device SET revoked_at = coalesce(revoked_at, \(now))
                WHERE account_id = \(account) AND device_id = \(id) RETURNING device_id
                """, logger: logger
            ).collect().isEmpty
        }
    }

    public func revokeDevices(account: UUID, keeping device: UUID?, now: Date) async throws -> Int {
        try await translatingErrors {
            try await client.query(
                """
                UPDATE server_device SET revoked_at = \(now)
                WHERE account_id = \(account) AND device_id IS DISTINCT FROM \(device) AND revoked_at IS NULL
                RETURNING device_id
                """, logger: logger
            ).collect().count
        }
    }

    public func renameDevice(_ id: UUID, account: UUID, name: String) async throws -> Bool {
        try await translatingErrors {
            try await !client.query(
                """
                UPDATE server_device SET name = \(name)
                WHERE account_id = \(account) AND device_id = \(id) RETURNING device_id
                """, logger: logger
            ).collect().isEmpty
        }
    }

    private static func account(
        _ id: UUID, _ name: String, _ plan: String, _ createdAt: Date, _ isAdministrator: Bool
    ) throws -> ServerAccount {
        guard let plan = Plan(rawValue: plan) else {
            throw CardboxError.storage("the server database holds an account with an unknown plan '\(plan)'")
        }
        return ServerAccount(id: id, name: name, plan: plan, createdAt: createdAt, isAdministrator: isAdministrator)
    }

    public func putImage(_ image: CheckedImage, account: UUID) async throws {
        let bytes = ByteBuffer(bytes: image.data)
        _ = try await translatingErrors {
            try await client.query(
                """
                INSERT INTO server_image (account_id, sha256, mime_type, data)
                VALUES (\(account), \(image.sha256), \(image.mimeType), \(bytes))
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }

    public func image(_ sha256: String, account: UUID) async throws -> CheckedImage? {
        try await translatingErrors {
            for try await (mimeType, bytes) in try await client.query(
                "SELECT mime_type, data FROM server_image WHERE account_id = \(account) AND sha256 = \(sha256)",
                logger: logger
            ).decode((String, ByteBuffer).self) {
                return CheckedImage(sha256: sha256, mimeType: mimeType, data: Data(bytes.readableBytesView))
            }
            return nil
        }
    }

    public func missingImages(_ hashes: [String], account: UUID) async throws -> [String] {
        try await translatingErrors {
            var present = Set<String>()
            for try await hash in try await client.query(
                "SELECT sha256 FROM server_image WHERE account_id = \(account) AND sha256 = ANY(\(hashes)::text[])",
                logger: logger
            ).decode(String.self) {
                present.insert(hash)
            }
            return hashes.filter { !present.contains($0) }
        }
    }
}
