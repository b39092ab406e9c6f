import Foundation

/// A real PostgreSQL for this test run: the one `CARDBOX_TEST_POSTGRES_URL` names, or a throwaway
/// server started on loopback by `scripts/test-postgres.sh`, which stops it once this process ends.
public enum TestPostgres {
    public static var url: String {
        get throws { try started.get() }
    }

    /// A new, empty database on the same server, for a test that needs one to itself (the others
    /// share one database).
    public static func newDatabase() throws -> String {
        let server = try url
        let name = "cardbox_\(UUID().uuidString.prefix(8).lowercased())"
        guard let pipe = popen("psql '\(server)' -q -c 'CREATE DATABASE \(name)' 2>&1", "r") else {
            throw StartFailure(message: "cannot run psql")
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        var printed = ""
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            printed += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        guard pclose(pipe) == 0, let slash = server.lastIndex(of: "/") else {
            throw StartFailure(message: "cannot create a database: \(printed)")
        }
        return server[..<slash] + "/" + name
    }

    private static let started = Result<String, any Error> {
        if let url = ProcessInfo.processInfo.environment["CARDBOX_TEST_POSTGRES_URL"], !url.isEmpty { return url }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let script = repository.appendingPathComponent("scripts/test-postgres.sh").path
        // popen, not Foundation's Process: its wait for the script's exit can miss the exit here.
        let command = "bash '\(script)' start \(ProcessInfo.processInfo.processIdentifier) 2>&1"
        guard let pipe = popen(command, "r") else { throw StartFailure(message: "cannot run \(script)") }
        var printed = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            printed += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let status = pclose(pipe)
        let lines = printed.split(separator: "\n").map(String.init)
        guard status == 0, let url = lines.last(where: { $0.hasPrefix("postgres://") }) else {
            throw StartFailure(message: printed)
        }
        return url
    }

    struct StartFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { "could not start PostgreSQL for the tests: \(message)" }
    }
}
