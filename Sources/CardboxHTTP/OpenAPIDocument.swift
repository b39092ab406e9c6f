/// The API's description, served at `/openapi.yaml` as `Resources/openapi.yaml` holds it (embedded in
/// the binary); CI checks the server against it with schemathesis (`scripts/api-check.sh`): every
/// answer has a documented status and shape.
enum OpenAPIDocument {
    static let yaml = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)

    /// Every path the document describes, with its methods, in its order: what a 405 names.
    /// `OpenAPIDocumentTests` holds this table and the document's operations equal.
    static let operations: [(template: String, methods: [String])] = [
        ("/health", ["GET"]),
        ("/metrics", ["GET"]),
        ("/openapi.yaml", ["GET"]),
        ("/v1/accounts", ["POST"]),
        ("/v1/sessions", ["POST"]),
        ("/v1/sessions/current", ["DELETE"]),
        ("/v1/account", ["GET"]),
        ("/v1/sync/push", ["POST"]),
        ("/v1/sync/exchange", ["POST"]),
        ("/v1/sync/pull", ["GET"]),
        ("/v1/sync/snapshot", ["GET"]),
        ("/v1/images/{sha256}", ["PUT", "GET"]),
        ("/v1/images/missing", ["POST"]),
        ("/v1/sync/events", ["GET"]),
        ("/api/v1/decks", ["GET", "POST"]),
        ("/api/v1/decks/{deck}", ["GET", "DELETE"]),
        ("/api/v1/decks/{deck}/cards", ["GET", "POST"]),
        ("/api/v1/decks/{deck}/study", ["GET", "POST"]),
        ("/api/v1/decks/{deck}/study/undo", ["POST"]),
        ("/api/v1/decks/{deck}/offline", ["GET"]),
        ("/api/v1/decks/{deck}/answers", ["POST"]),
        ("/api/v1/import", ["POST"]),
        ("/api/v1/export/{format}", ["GET"]),
        ("/api/v1/lists", ["GET", "POST"]),
        ("/api/v1/lists/{list}", ["GET", "DELETE"]),
        ("/api/v1/lists/{list}/rename", ["POST"]),
        ("/api/v1/lists/{list}/move", ["POST"]),
        ("/api/v1/lists/{list}/items", ["POST"]),
        ("/api/v1/lists/{list}/items/{item}", ["POST", "DELETE"]),
        ("/api/v1/lists/{list}/items/{item}/cross", ["POST"]),
        ("/api/v1/lists/{list}/items/{item}/move", ["POST"]),
        ("/api/v1/lists/{list}/items/{item}/images", ["PUT"]),
        ("/api/v1/lists/{list}/items/{item}/images/{image}", ["DELETE"]),
        ("/api/v1/settings", ["POST"]),
        ("/api/v1/boards", ["GET", "POST"]),
        ("/api/v1/boards/{board}", ["GET", "DELETE"]),
        ("/api/v1/boards/{board}/rename", ["POST"]),
        ("/api/v1/boards/{board}/columns", ["POST"]),
        ("/api/v1/boards/{board}/columns/{column}/move", ["POST"]),
        ("/api/v1/boards/{board}/columns/{column}/cards", ["POST"]),
        ("/api/v1/boards/{board}/cards/{card}", ["POST", "DELETE"]),
        ("/api/v1/boards/{board}/cards/{card}/move", ["POST"]),
        ("/api/v1/boards/{board}/cards/{card}/archive", ["POST"]),
        ("/api/v1/account/devices", ["GET"]),
        ("/api/v1/account/devices/{device}/revoke", ["POST"]),
        ("/api/v1/decks/{deck}/settings", ["POST"]),
        ("/api/v1/presets", ["GET"]),
        ("/api/v1/presets/{preset}", ["POST"]),
        ("/api/v1/decks/{deck}/stats", ["GET"]),
        ("/api/v1/decks/{deck}/cards/{card}", ["GET", "POST"]),
        ("/api/v1/decks/{deck}/cards/{card}/image", ["PUT"]),
        ("/api/v1/decks/{deck}/cards/{card}/{move}", ["POST"]),
        ("/api/v1/decks/{deck}/flows/{flow}", ["POST"]),
        ("/api/v1/decks/{deck}/suggestions", ["GET"]),
        ("/api/v1/decks/{deck}/suggestions/{suggestion}/{review}", ["POST"]),
        ("/api/v1/images/{sha256}", ["GET"]),
        ("/api/v1/images/{sha256}/thumbnail", ["GET"]),
    ]

    private static let segments = operations.map { $0.template.split(separator: "/", omittingEmptySubsequences: false) }

    /// The methods the document gives `path`: of the templates it matches, those with the most
    /// literal segments. Nil for a path it does not describe.
    static func methods(for path: String) -> [String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        var best: (literals: Int, methods: [String])?
        for (index, template) in segments.enumerated() where template.count == parts.count {
            var literals = 0
            let matches = zip(template, parts).allSatisfy { segment, part in
                if segment.hasPrefix("{") { return !part.isEmpty }
                literals += 1
                return segment == part
            }
            guard matches else { continue }
            if literals > best?.literals ?? -1 {
                best = (literals, operations[index].methods)
            } else if literals == best?.literals {
                best?.methods += operations[index].methods
            }
        }
        return best.map { Array(Set($0.methods)).sorted() }
    }
}
