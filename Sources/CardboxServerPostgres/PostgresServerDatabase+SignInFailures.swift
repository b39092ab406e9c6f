import CardboxServer
import Foundation
import PostgresNIO

extension PostgresServerDatabase {
    public func signInFailures(_ keys: [SignInFailureKey]) async throws -> [SignInFailureKey: SignInFailureCount] {
        let (kinds, names) = (keys.map(\.kind.rawValue), keys.map(\.key))
        return try await translatingErrors {
            var counts: [SignInFailureKey: SignInFailureCount] = [:]
            for try await (kind, key, count, firstAt, lastAt) in try await client.query(
                """
                SELECT f.kind, f.key, f.count, f.first_at, f.last_at FROM sign_in_failure f
                JOIN unnest(\(kinds)::text[], \(names)::text[]) AS k (kind, key) USING (kind, key)
                """, logger: logger
            ).decode((String, String, Int, Double, Double).self) {
                guard let kind = SignInFailureKey.Kind(rawValue: kind) else { continue }
                counts[SignInFailureKey(kind: kind, key: key)] = SignInFailureCount(
                    count: count, firstAt: Date(timeIntervalSince1970: firstAt),
                    lastAt: Date(timeIntervalSince1970: lastAt))
            }
            return counts
        }
    }

    /// One statement for every key, so two servers counting at once both count: a key's count
    /// begins again when its window (kept with it) ended.
    public func countSignInFailure(
        _ keys: [(key: SignInFailureKey, window: TimeInterval?)], now: Date, forgetBefore: Date
    ) async throws {
        let kinds = keys.map(\.key.kind.rawValue)
        let names = keys.map(\.key.key)
        // A window that never ends is infinite: arrays of optionals are not sent.
        let windows = keys.map { $0.window ?? .infinity }
        let at = now.timeIntervalSince1970
        try await translatingErrors {
            try await client.query(
                "DELETE FROM sign_in_failure WHERE last_at < \(forgetBefore.timeIntervalSince1970)", logger: logger)
            try await client.query(
                """
                INSERT INTO sign_in_failure AS f (kind, key, count, first_at, last_at, window_seconds)
                SELECT kind, key, 1, \(at), \(at), window_seconds
                FROM unnest(\(kinds)::text[], \(names)::text[], \(windows)::double precision[])
                    AS k (kind, key, window_seconds)
                ON CONFLICT (kind, key) DO UPDATE SET
                    count = CASE WHEN f.window_seconds IS NULL OR f.first_at + f.window_seconds > excluded.last_at
                        THEN f.count + 1 ELSE 1 END,
                    first_at = CASE WHEN f.window_seconds IS NULL OR f.first_at + f.window_seconds > excluded.last_at
                        THEN f.first_at ELSE excluded.last_at END,
                    last_at = excluded.last_at
                """, logger: logger)
        }
    }

    public func clearSignInFailures(_ key: SignInFailureKey) async throws {
        try await translatingErrors {
            try await client.query(
                "DELETE FROM sign_in_failure WHERE kind = \(key.kind.rawValue) AND key = \(key.key)", logger: logger)
        }
    }
}
