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
        let (status, printed) = try IsolatedShell.run("psql '\(server)' -q -c 'CREATE DATABASE \(name)'")
        guard status == 0, let slash = server.lastIndex(of: "/") else {
            throw StartFailure(message: "cannot create a database: \(printed)")
        }
        return server[..<slash] + "/" + name
    }

    private static let started = Result<String, any Error> {
        if let url = ProcessInfo.processInfo.environment["CARDBOX_TEST_POSTGRES_URL"], !url.isEmpty { return url }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let script = repository.appendingPathComponent("scripts/test-postgres.sh").path
        // Not Foundation's Process: its wait for the script's exit can miss the exit here. Not popen:
        // the server would inherit the test run's open pipes (see IsolatedShell).
        let (status, printed) = try IsolatedShell.run(
            "bash '\(script)' start \(ProcessInfo.processInfo.processIdentifier)")
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
