import CardboxServer
import Foundation
import GRDB

extension SQLiteServerDatabase {
    public func signInFailures(_ keys: [SignInFailureKey]) async throws -> [SignInFailureKey: SignInFailureCount] {
        try await translatingErrors {
            try await writer.read { db in
                var counts: [SignInFailureKey: SignInFailureCount] = [:]
                let statement = try db.cachedStatement(
                    sql: "SELECT count, firstAt, lastAt FROM serverSignInFailure WHERE kind = ? AND key = ?")
                for key in keys {
                    guard let row = try Row.fetchOne(statement, arguments: [key.kind.rawValue, key.key]) else {
                        continue
                    }
                    counts[key] = SignInFailureCount(
                        count: row[0], firstAt: Date(timeIntervalSince1970: row[1]),
                        lastAt: Date(timeIntervalSince1970: row[2]))
                }
                return counts
            }
        }
    }

    public func countSignInFailure(
        _ keys: [(key: SignInFailureKey, window: TimeInterval?)], now: Date, forgetBefore: Date
    ) async throws {
        try await translatingErrors {
            try await writer.write { db in
                try db.execute(
                    sql: "DELETE FROM serverSignInFailure WHERE lastAt < ?",
                    arguments: [forgetBefore.timeIntervalSince1970])
                let statement = try db.cachedStatement(sql: Self.countFailure)
                for (key, window) in keys {
                    try statement.execute(arguments: [
                        key.kind.rawValue, key.key, now.timeIntervalSince1970, window,
                    ])
                }
            }
        }
    }

    /// One more failure under a key; its count begins again when its window (kept with it) ended.
    private static let countFailure = """
        INSERT INTO serverSignInFailure (kind, key, count, firstAt, lastAt, windowSeconds)
        VALUES (?1, ?2, 1, ?3, ?3, ?4)
        ON CONFLICT (kind, key) DO UPDATE SET
            count = CASE WHEN windowSeconds IS NULL OR firstAt + windowSeconds > excluded.lastAt
                THEN count + 1 ELSE 1 END,
            firstAt = CASE WHEN windowSeconds IS NULL OR firstAt + windowSeconds > excluded.lastAt
                THEN firstAt ELSE excluded.lastAt END,
            lastAt = excluded.lastAt
        """

    public func clearSignInFailures(_ key: SignInFailureKey) async throws {
        try await translatingErrors {
            try await writer.write { db in
                try db.execute(
                    sql: "DELETE FROM serverSignInFailure WHERE kind = ? AND key = ?",
                    arguments: [key.kind.rawValue, key.key])
            }
        }
    }
}
