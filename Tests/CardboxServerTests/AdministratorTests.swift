import CardboxCore
import CardboxTestSupport
import Foundation
import GRDB
import Testing

@testable import CardboxServer
@testable import CardboxServerPostgres
@testable import CardboxServerSQLite

/// The server's first account is its administrator: whichever way it is made, on either database,
/// of several made at once exactly one, and on a server made before there was one, its oldest.
@Suite("The administrator")
struct AdministratorTests {
    @Test(
        "of accounts added at once to an empty server, exactly one is the administrator",
        arguments: ["sqlite-file", "postgres-fresh"])
    func firstAccountAdministers(_ implementation: String) async throws {
        try await SyncStates.with(implementation) { database in
            let accounts = AccountService(store: database, hasher: PasswordHasher(cost: 4))
            let added = try await withThrowingTaskGroup(of: ServerAccount.self) { group in
                for index in 0..<5 {
                    group.addTask { try await accounts.addAccount(name: "user\(index)", password: "correct horse") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(added.filter(\.isAdministrator).count == 1)
            let stored = try await database.accounts()
            #expect(stored.filter(\.isAdministrator).map(\.id) == added.filter(\.isAdministrator).map(\.id))
            let administrator = try #require(stored.first { $0.isAdministrator })
            #expect(try await database.account(administrator.id)?.isAdministrator == true)
            #expect(try await database.account(named: administrator.name)?.account.isAdministrator == true)
            let device = UUID()
            _ = try await database.addDevice(
                device, account: administrator.id, name: "laptop", tokenHash: "x", now: Date())
            #expect(
                try await database.signedInDevice(device, account: administrator.id, seenAt: Date())?.account
                    .isAdministrator == true)
            // A later account is not; set-admin hands the role over; removal passes it to the oldest left.
            let later = try await accounts.addAccount(name: "later", password: "correct horse")
            #expect(!later.isAdministrator)
            try await database.setAdministrator(later.id)
            #expect(try await database.accounts().filter(\.isAdministrator).map(\.id) == [later.id])
            await #expect(throws: CardboxError.self) { try await database.setAdministrator(UUID()) }
            try await database.removeAccount(later.id)
            let oldest = try #require(
                try await database.accounts().min { ($0.createdAt, $0.name) < ($1.createdAt, $1.name) })
            let left = try await database.accounts().filter(\.isAdministrator)
            #expect(left.count == 1 && left.first?.createdAt == oldest.createdAt)
        }
    }

    @Test("a server database made before v6 makes its oldest account the administrator")
    func migratedServer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-admin-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("server.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteServerDatabase.migrator.migrate(queue, upTo: "v5: the setup link")
            try await queue.write { db in
                for (name, created) in [("zoe", 100.0), ("ana", 200.0), ("bob", 300.0)] {
                    try db.execute(
                        sql:
                            "INSERT INTO serverAccount (accountId, name, passwordHash, plan, createdAt) VALUES (?, ?, 'x', 'free', ?)",
                        arguments: [UUID().uuidString.lowercased(), name, created])
                }
            }
        }
        let database = try SQLiteServerDatabase(path: path)
        #expect(try await database.accounts().filter(\.isAdministrator).map(\.name) == ["zoe"])
    }

    @Test("a PostgreSQL database made before migration 6 makes its oldest account the administrator")
    func migratedPostgres() async throws {
        let url = try TestPostgres.newDatabase()
        await (try await PostgresServerDatabase.open(url: url, optimisticAttempts: 3, migratingThrough: 5)).close()
        let rows = [("zoe", "2020-01-01"), ("ana", "2021-01-01"), ("bob", "2022-01-01")].map { name, created in
            "('\(UUID().uuidString.lowercased())', '\(name)', 'x', 'free', '\(created)')"
        }
        let (status, printed) = try IsolatedShell.run(
            "psql '\(url)' -q -v ON_ERROR_STOP=1 -c \"INSERT INTO server_account "
                + "(account_id, name, password_hash, plan, created_at) VALUES \(rows.joined(separator: ", "))\"")
        #expect(status == 0, "\(printed)")
        let database = try await PostgresServerDatabase.open(url: url)
        let administrators = try await database.accounts().filter(\.isAdministrator).map(\.name)
        await database.close()
        #expect(administrators == ["zoe"])
    }
}
