import CardboxCore
import CardboxServer
import Foundation
import Hummingbird
import Testing

@testable import CardboxHTTP

@Suite("The API's description, its routes and the pages' templates")
struct OpenAPIDocumentTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/CardboxHTTP")

    /// The document's operations, read from its text (here only, never at run time): each path
    /// (two spaces in, ending in a colon) and the methods under it (four spaces in).
    static func documented() throws -> [(template: String, methods: [String])] {
        let text = try String(contentsOf: folder.appendingPathComponent("Resources/openapi.yaml"), encoding: .utf8)
        var operations: [(template: String, methods: [String])] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                operations.append((String(line.dropFirst(2).dropLast()), []))
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"), !operations.isEmpty {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
                if ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(method) {
                    operations[operations.count - 1].methods.append(method)
                }
            }
        }
        return operations
    }

    @Test("the served document is the file; a 405 names the methods the router has for the path")
    func table() async throws {
        let file = try String(
            contentsOf: Self.folder.appendingPathComponent("Resources/openapi.yaml"), encoding: .utf8)
        #expect(OpenAPIDocument.yaml == file)
        try await SyncStates.with("sqlite-memory") { database in
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4))
            let (router, _) = try CardboxApplication.routes(
                database: database, accounts: accounts, options: ServerOptions(), secure: false)
            let table = RouteMethods()
            table.load(router.routes)
            // A literal segment outranks a parameter; methods of equal rank are merged and sorted.
            #expect(table.methods(for: "/api/v1/decks/x/cards/y/image") == ["PUT"])
            #expect(table.methods(for: "/api/v1/decks/x/cards/y/favorite") == ["POST"])
            #expect(table.methods(for: "/api/v1/decks/x") == ["DELETE", "GET"])
            #expect(table.methods(for: "/v1/images/missing") == ["POST"])
            // Pages and unknown paths are no API's: a 404.
            #expect(table.methods(for: "/decks") == nil && table.methods(for: "/api/v1/nothing") == nil)
        }
    }

    @Test("the document's languages are Cardbox's")
    func languages() {
        let line = OpenAPIDocument.yaml.split(separator: "\n").first { $0.hasPrefix("      enum: [aa,") }
        let codes = line.map { $0.drop { $0 != "[" }.dropFirst().dropLast().components(separatedBy: ", ") }
        #expect(codes == Language.codes)
    }

    @Test(
        "every route of the API (/v1, /api/v1, health, metrics) is in the document with its method, and back"
    )
    func routes() async throws {
        try await SyncStates.with("sqlite-memory") { database in
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4))
            let (router, _) = try CardboxApplication.routes(
                database: database, accounts: accounts, options: ServerOptions(), secure: false)
            // ":deck" and "{deck}" alike: a parameter is a parameter, whatever its name.
            func shape(_ path: String) -> String {
                (path.hasPrefix("/") ? path : "/" + path).split(separator: "/", omittingEmptySubsequences: false).map {
                    $0.hasPrefix(":") || $0.hasPrefix("{") ? "{}" : String($0)
                }.joined(separator: "/")
            }
            let served = Set(
                router.routes.map { (method: $0.method, path: shape("\($0.path)")) }
                    .filter { RouteMethods.isAPI($0.path) }.map { "\($0.method) \($0.path)" })
            let documented = Set(
                try Self.documented().flatMap { operation in
                    operation.methods.map { "\($0) \(shape(operation.template))" }
                })
            #expect(served.subtracting(documented).isEmpty)
            #expect(documented.subtracting(served).isEmpty)
        }
    }

    @Test("every template file is a Template, and every Template a file")
    func templates() throws {
        let files = try FileManager.default.contentsOfDirectory(
            atPath: Self.folder.appendingPathComponent("Web/Templates").path)
        #expect(Set(files) == Set(Template.allCases.map { "\($0.rawValue).mustache" }))
        #expect(Template.allCases.allSatisfy { !$0.text.isEmpty })
    }
}
