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

    /// The metrics' names (`cardbox_…`) and help texts.
    private enum Name {
        static var requests: MetricNameDescriptor {
            counter("requests", "Requests answered, by route, method and status.")
        }
        static var requestDuration: MetricNameDescriptor {
            MetricNameDescriptor(
                namespace: "cardbox", metricName: "request_duration", unitName: "seconds",
                helpText: "Time to answer a request, by route.")
        }
        static var requestBytes: MetricNameDescriptor { counter("request_bytes", "Bytes of request bodies received.") }
        static var responseBytes: MetricNameDescriptor { counter("response_bytes", "Bytes of response bodies sent.") }
        static var pushes: MetricNameDescriptor {
            counter("pushes", "Pushes answered, by whether they were a retried batch.")
        }
        static var changesApplied: MetricNameDescriptor {
            counter("changes_applied", "Records merged into the sync state by pushes.")
        }
        static var pulls: MetricNameDescriptor { counter("pulls", "Pages of changes pulled.") }
        static var changesPulled: MetricNameDescriptor { counter("changes_pulled", "Records sent in pulled pages.") }
        static var connectionsClosed: MetricNameDescriptor {
            counter(
                "connections_closed",
                "Connections the server closed, by why: too many from one address, a request body too slow.")
        }

        static var eventStreams: MetricNameDescriptor {
            // A count of things has no unit: `cardbox_event_streams`.
            MetricNameDescriptor(
                namespace: "cardbox", metricName: "event_streams", unitName: "",
                helpText: "Event streams open now (devices and pages waiting for news).")
        }

        static func counter(_ name: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "cardbox", metricName: name, unitName: "total", helpText: help)
        }
    }

    func request(route: String, method: String, status: Int, elapsed: Duration, bytesIn: Int, bytesOut: Int) {
        let labels = [("route", route), ("method", method), ("status", String(status))]
        registry.makeCounter(descriptor: Name.requests, labels: labels).increment()
        registry.makeDurationHistogram(
            descriptor: Name.requestDuration, labels: [("route", route)], buckets: latencyBuckets
        ).record(elapsed)
        registry.makeCounter(descriptor: Name.requestBytes).increment(by: Int64(bytesIn))
        registry.makeCounter(descriptor: Name.responseBytes).increment(by: Int64(bytesOut))
    }

    func pushed(records: Int, retry: Bool) {
        registry.makeCounter(descriptor: Name.pushes, labels: [("retry", retry ? "true" : "false")]).increment()
        if !retry { registry.makeCounter(descriptor: Name.changesApplied).increment(by: Int64(records)) }
    }

    func pulled(records: Int) {
        registry.makeCounter(descriptor: Name.pulls).increment()
        registry.makeCounter(descriptor: Name.changesPulled).increment(by: Int64(records))
    }

    /// A connection closed by `ConnectionCap` ("per_address") or `SlowBodyGuard` ("slow_body").
    func closedConnection(_ reason: String) {
        registry.makeCounter(descriptor: Name.connectionsClosed, labels: [("reason", reason)]).increment()
    }

    /// How many event streams are open now.
    func eventStreams(_ count: Int) {
        registry.makeGauge(descriptor: Name.eventStreams).set(Int64(count))
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
