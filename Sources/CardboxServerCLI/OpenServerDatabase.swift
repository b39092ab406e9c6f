import CardboxServer
import CardboxServerPostgres
import CardboxServerSQLite
import Foundation

/// Opens the server database a `--database` option names: a `postgres://` URL, or an SQLite file's path.
public func openServerDatabase(_ location: String) async throws -> any ServerDatabase {
    if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
        return try await PostgresServerDatabase.open(url: location)
    }
    // The database holds the account holders' data: readable by the server's user only, whichever
    // command makes it first (`admin user add` before `serve`, as the README has it), and one an
    // older Cardbox left readable by others is closed at open, with its journal files.
    umask(0o077)
    try FileManager.default.createDirectory(
        at: URL(fileURLWithPath: location).deletingLastPathComponent(), withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    for file in [location, location + "-wal", location + "-shm"] where FileManager.default.fileExists(atPath: file) {
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
    }
    return try SQLiteServerDatabase(path: location)
}
