import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus

/// What `/metrics` reports, in Prometheus's text format: requests and their latency by route and
/// status, pushes, changes applied, pulls, and bytes in and out. One registry per server, so
/// several servers in one process (the tests) keep apart.
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
    ]

    public init() {}

    func request(route: String, method: String, status: Int, elapsed: Duration, bytesIn: Int, bytesOut: Int) {
        let labels = [("route", route), ("method", method), ("status", String(status))]
        registry.makeCounter(name: "cardbox_requests_total", labels: labels).increment()
        registry.makeDurationHistogram(
            name: "cardbox_request_duration_seconds", labels: [("route", route)], buckets: latencyBuckets
        ).record(elapsed)
        registry.makeCounter(name: "cardbox_request_bytes_total").increment(by: Int64(bytesIn))
        registry.makeCounter(name: "cardbox_response_bytes_total").increment(by: Int64(bytesOut))
    }

    func pushed(records: Int, retry: Bool) {
        registry.makeCounter(name: "cardbox_pushes_total", labels: [("retry", retry ? "true" : "false")]).increment()
        if !retry { registry.makeCounter(name: "cardbox_changes_applied_total").increment(by: Int64(records)) }
    }

    func pulled(records: Int) {
        registry.makeCounter(name: "cardbox_pulls_total").increment()
        registry.makeCounter(name: "cardbox_changes_pulled_total").increment(by: Int64(records))
    }

    /// The text `/metrics` answers with.
    var text: String { registry.emitToString() }
}

/// Counts and times every request, and logs it: method, route, status and time (never bodies or
/// tokens). Errors are counted with the status the error middleware gives them.
struct RequestObserver: RouterMiddleware {
    typealias Context = CardboxRequestContext
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let route = context.endpointPath ?? "unmatched"
        let bytesIn = request.headers[.contentLength].flatMap { Int($0) } ?? 0
        let bytesOut = response.body.contentLength ?? 0
        metrics.request(
            route: route, method: request.method.rawValue, status: Int(response.status.code), elapsed: elapsed,
            bytesIn: bytesIn, bytesOut: bytesOut)
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method)", "route": "\(route)", "status": "\(response.status.code)",
                "ms": "\(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)",
            ])
        return response
    }
}
