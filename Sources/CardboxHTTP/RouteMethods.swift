import Hummingbird
import Synchronization

/// The methods each path of the API takes, read from the router once every route is on it: what a
/// 405 names. The routes themselves are the one list (each feature's `addRoutes`);
/// `OpenAPIDocumentTests` holds them equal to `/openapi.yaml`'s operations.
final class RouteMethods: Sendable {
    /// The paths a 405 is answered for: the API's, whose callers are programs. A page's path asked
    /// with another method stays a 404, as a browser expects.
    static func isAPI(_ path: String) -> Bool {
        path.hasPrefix("/v1/") || path.hasPrefix("/api/v1/") || ["/health", "/metrics", "/openapi.yaml"].contains(path)
    }

    private let table = Mutex<[(segments: [Substring], method: String)]>([])

    /// Takes the router's routes (called once they are all added). Hummingbird writes a parameter
    /// segment as `{name}`.
    func load(_ routes: [Router<CardboxRequestContext>.RouteDescription]) {
        let rows = routes.compactMap { route -> (segments: [Substring], method: String)? in
            let path = "\(route.path)".hasPrefix("/") ? "\(route.path)" : "/\(route.path)"
            guard Self.isAPI(path) else { return nil }
            return (path.split(separator: "/", omittingEmptySubsequences: false), route.method.rawValue)
        }
        table.withLock { $0 = rows }
    }

    /// The methods `path` takes: of the routes it matches, those with the most literal segments (so
    /// `…/cards/{card}/image`, PUT, is not taken for `…/cards/{card}/{move}`, POST). Nil for a path
    /// no route of the API matches.
    func methods(for path: String) -> [String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        var best: (literals: Int, methods: Set<String>)?
        for row in table.withLock({ $0 }) where row.segments.count == parts.count {
            var literals = 0
            let matches = zip(row.segments, parts).allSatisfy { segment, part in
                if segment.hasPrefix("{") { return !part.isEmpty }
                literals += 1
                return segment == part
            }
            guard matches else { continue }
            if literals > best?.literals ?? -1 {
                best = (literals, [row.method])
            } else if literals == best?.literals {
                best?.methods.insert(row.method)
            }
        }
        return best.map { $0.methods.sorted() }
    }
}
