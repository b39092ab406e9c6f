import CardboxServer
import CardboxServerPostgres
import CardboxServerSQLite
import Foundation

/// Opens the server database a `--database` option names: a `postgres://` URL, or an SQLite file's path.
public func openServerDatabase(_ location: String) async throws -> any ServerDatabase {
    if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
        return try await PostgresServerDatabase.open(url: location)
    }
    try FileManager.default.createDirectory(
        at: URL(fileURLWithPath: location).deletingLastPathComponent(), withIntermediateDirectories: true)
    return try SQLiteServerDatabase(path: location)
}
