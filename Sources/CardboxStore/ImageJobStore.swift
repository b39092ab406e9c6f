import CardboxCore
import Foundation
import GRDB

/// A suggestion waiting for its image (seed 000's "Image Generation Pipeline").
public struct ImageJob: Sendable, Equatable {
    public var suggestion: Suggestion
    /// Failed attempts so far.
    public var failures: Int
    public var lastError: String?
}

/// What became of a failed attempt.
public enum ImageFailureOutcome: Sendable, Equatable {
    /// It stays invisible and is tried again after `at`.
    case retry(at: Date, failures: Int)
    /// It failed `ImageRetry.maximumFailures` times and was removed from its deck's queue.
    case removed
}

/// Seed 000: "Failed suggestions remain invisible; retry mechanism with backoff; eventually removed
/// after max failures". The waits double from 30 seconds (30 s, 1 min, 2 min, 4 min) up to an hour.
public enum ImageRetry {
    public static let maximumFailures = 5
    public static let firstDelay: TimeInterval = 30
    public static let longestDelay: TimeInterval = 3600

    /// The wait after the `failures`-th failure.
    public static func delay(afterFailures failures: Int) -> TimeInterval {
        min(longestDelay, firstDelay * pow(2, Double(max(0, failures - 1))))
    }
}

extension CardboxStore {
    /// Invisible suggestions (not skipped) that have no image and are due for an attempt: never
    /// tried, or whose backoff has passed. Oldest first.
    public func dueImageJobs(limit: Int = 20) throws -> [ImageJob] {
        let now = environment.now().storageMillis
        return try read { context in
            let rows = try Row.fetchAll(
                context.db,
                sql: """
                    SELECT s.id, j.failures, j.lastError FROM suggestion s
                    LEFT JOIN imageJob j ON j.suggestionId = s.id
                    WHERE s.isVisible = 0 AND s.imageHash IS NULL
                      AND (j.nextAttemptAt IS NULL OR j.nextAttemptAt <= ?)
                    ORDER BY s.createdAt, s.id LIMIT ?
                    """, arguments: [now, limit])
            return try rows.compactMap { row in
                let suggestion = try context.suggestion(row["id"])
                guard !suggestion.isHidden else { return nil }
                return ImageJob(suggestion: suggestion, failures: row["failures"] ?? 0, lastError: row["lastError"])
            }
        }
    }

    /// The image is made: attached, the suggestion visible, its attempts forgotten. A suggestion
    /// reviewed or removed meanwhile is left alone (nil).
    public func completeImageJob(_ reference: SuggestionID, image: Data) throws -> Suggestion? {
        guard (try? suggestion(reference)) != nil else { return nil }
        let ready = try markSuggestionReady(reference, image: image)
        try write { tx in
            try tx.db.execute(
                sql: "DELETE FROM imageJob WHERE suggestionId = ?",
                arguments: [reference.storage])
        }
        return ready
    }

    /// Records a failed attempt: the suggestion stays invisible and waits (doubling backoff), or,
    /// at the `ImageRetry.maximumFailures`-th failure, is removed.
    public func failImageJob(_ reference: SuggestionID, reason: String) throws -> ImageFailureOutcome {
        try write { tx in
            let id = try tx.context.existing(reference, .suggestion)
            // Attempts of suggestions reviewed or cleared since are forgotten here.
            try tx.db.execute(sql: "DELETE FROM imageJob WHERE suggestionId NOT IN (SELECT id FROM suggestion)")
            let failures =
                (try Int.fetchOne(
                    tx.db, sql: "SELECT failures FROM imageJob WHERE suggestionId = ?",
                    arguments: [id]) ?? 0) + 1
            if failures >= ImageRetry.maximumFailures {
                try tx.db.execute(
                    sql: "DELETE FROM imageJob WHERE suggestionId = ?", arguments: [id])
                try tx.delete(.suggestion, id: id)
                return .removed
            }
            let next = tx.now.addingTimeInterval(ImageRetry.delay(afterFailures: failures))
            try tx.db.execute(
                sql: """
                    INSERT INTO imageJob (suggestionId, failures, nextAttemptAt, lastError) VALUES (?, ?, ?, ?)
                    ON CONFLICT (suggestionId) DO UPDATE SET
                      failures = excluded.failures, nextAttemptAt = excluded.nextAttemptAt, lastError = excluded.lastError
                    """, arguments: [id, failures, next.storageMillis, String(reason.prefix(500))])
            return .retry(at: next, failures: failures)
        }
    }
}
