import CardboxServer
import Foundation
import Hummingbird

/// A token bucket per account: `perSecond` requests a second on average, bursts up to 20 seconds'
/// worth. Kept in the server process (each server limits on its own).
actor RateLimiter {
    private let perSecond: Double
    private let burst: Double
    private var buckets: [UUID: (tokens: Double, at: ContinuousClock.Instant)] = [:]

    init(perSecond: Double) {
        self.perSecond = perSecond
        burst = max(1, perSecond * 20)
    }

    /// Takes one request's token; nil when allowed, else the seconds to wait.
    func take(_ account: UUID, now: ContinuousClock.Instant = .now) -> Int? {
        var (tokens, at) = buckets[account] ?? (burst, now)
        let elapsed = now - at
        tokens = min(burst, tokens + perSecond * (elapsed / .seconds(1)))
        guard tokens >= 1 else {
            buckets[account] = (tokens, now)
            return Int(((1 - tokens) / perSecond).rounded(.up))
        }
        buckets[account] = (tokens - 1, now)
        if buckets.count > 100_000 { buckets = buckets.filter { $0.value.tokens < burst } }
        return nil
    }
}

/// 429 with `Retry-After` for an account over its rate.
struct AccountRateLimit: RouterMiddleware {
    typealias Context = CardboxRequestContext
    let limiter: RateLimiter

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let caller = context.caller { try await Self.admit(caller.account.id, limiter) }
        return try await next(request, context)
    }

    /// Takes one of the account's requests, or throws the 429.
    static func admit(_ account: UUID, _ limiter: RateLimiter) async throws {
        if let wait = await limiter.take(account) {
            throw APIError(
                .tooManyRequests, "this account is making too many requests; try again in \(wait) s",
                headers: [.retryAfter: String(wait)])
        }
    }
}
