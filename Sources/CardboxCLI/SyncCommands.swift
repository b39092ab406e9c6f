import ArgumentParser
import CardboxCore
import CardboxStore
import CardboxSyncClient
import Foundation

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Sign this store in to a sync server.",
        discussion: """
            The device's token is kept in the store. A store that already has data brings it into the account.

            Example:
              cardbox login https://cards.example.org --user ana --password-stdin < password.txt
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The server's address, e.g. http://127.0.0.1:8080.") var server: String
    @Option(name: .long, help: "The account's name.") var user: String
    @Flag(name: .long, help: "Read the password from standard input.") var passwordStdin = false
    @Option(name: .long, help: "What to call this device (default: the host's name).") var device: String?
    @Flag(name: .long, help: "Create the account first (servers started with --open-signup).") var signUp = false

    func run() async throws {
        let password = try Console.readPassword(fromStdin: passwordStdin)
        // A login that fails (a wrong password, a server that does not answer) leaves no new store.
        let signedIn = try await global.withStore { store in
            let connection = try ServerConnection(server: server, token: nil)
            // Signing in again as the same account on the same server (after this device was signed
            // out from another) renews the store's sign-in; any other account needs a logout first.
            if let link = try store.syncLink(),
                link.server != connection.server || link.user.lowercased() != user.lowercased()
            {
                throw CardboxError.invalid(
                    field: "login",
                    reason: "this store is signed in to \(link.server) as \(link.user); cardbox logout first")
            }
            if signUp { try await connection.signUp(user: user, password: password) }
            let signedIn = try await connection.signIn(
                user: user, password: password, device: device ?? ProcessInfo.processInfo.hostName)
            let joined = try store.joinAccount(signedIn.account.id)
            try joined.saveSyncLink(
                SyncLink(server: connection.server, user: signedIn.account.name, token: signedIn.token))
            if try joined.allowance().plan != signedIn.account.plan { _ = try joined.setPlan(signedIn.account.plan) }
            try joined.checkpoint()
            return (server: connection.server, name: signedIn.account.name)
        }
        Terminal.current.print("signed in to \(signedIn.server) as \(signedIn.name); now run: cardbox sync")
    }

    /// What to say when the server no longer takes this store's token (its device was signed out
    /// from the web or another device, or its password changed): the one command that fixes it.
    static func signedOut(_ store: CardboxStore) throws -> CardboxError {
        guard let link = try store.syncLink() else { return DeviceSync.notSignedIn }
        return CardboxError.invalid(
            field: "sync",
            reason:
                "this device was signed out of \(link.server); sign in again: cardbox login \(link.server) --user \(link.user)"
        )
    }
}

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Sign this store out of its sync server (its data stays).",
        discussion: "Example:\n  cardbox logout")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let store = try global.openExistingStore()
        guard let link = try store.syncLink() else {
            Terminal.current.print("not signed in")
            return
        }
        // Revoke the token on the server if it answers; sign out here either way.
        var note = ""
        do {
            try await ServerConnection(server: link.server, token: link.token).signOut()
        } catch {
            note =
                " (the server did not revoke the token: \((error as? LocalizedError)?.errorDescription ?? "\(error)"))"
        }
        try store.saveSyncLink(nil)
        try store.checkpoint()
        Terminal.current.print("signed out of \(link.server)\(note)")
    }
}

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Send this store's changes to its server and fetch the others'.",
        discussion: """
            Safe to interrupt: nothing acknowledged is lost, and the next sync completes the work.

            Examples:
              cardbox sync
              cardbox sync --watch
              cardbox sync status --json
              cardbox sync records > laptop.txt
            """,
        subcommands: [Now.self, Status.self, Records.self], defaultSubcommand: Now.self)

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "now", abstract: "Push, then pull until caught up (the default).",
            discussion: "Example:\n  cardbox sync")
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Keep syncing: on local changes and on the server's news, until stopped.")
        var watch = false

        func run() async throws {
            let store = try global.openExistingStore()
            guard watch else { return try await syncOnce(store) }
            while true {
                do {
                    try await syncOnce(store)
                } catch {
                    Console.error((error as? LocalizedError)?.errorDescription ?? "\(error)")
                    try await Task.sleep(for: .seconds(5))
                    continue
                }
                try await waitForWork(store)
            }
        }

        /// Returns when this store has changes to send, or the server has changes to fetch.
        private func waitForWork(_ store: CardboxStore) async throws {
            guard let link = try store.syncLink() else { return }
            let connection = try ServerConnection(server: link.server, token: link.token)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { _ = try await connection.news(after: link.received) }
                group.addTask {
                    while try DeviceSync(store: store).status().pending == 0 {
                        try await Task.sleep(for: .seconds(1))
                    }
                }
                _ = try await group.next()
                group.cancelAll()
            }
        }

        private func syncOnce(_ store: CardboxStore) async throws {
            let sent = ProgressBar(label: "changes sent")
            let snapshot = ProgressBar(label: "KB of the account's copy received")
            let report: SyncReport
            do {
                report = try await DeviceSync(store: store).sync { progress in
                    // Pulled pages come with no total; the push's and the snapshot's bars are worth drawing.
                    guard let total = progress.total else { return }
                    switch progress.phase {
                    case .push: sent.update(progress.done, total)
                    case .snapshot: snapshot.update(progress.done, total)
                    case .pull: break
                    }
                }
            } catch SyncClientError.refused(status: 401, _) {
                throw try LoginCommand.signedOut(store)
            }
            try store.checkpoint()
            Terminal.current.print(
                (watch ? ISO8601DateFormatter().string(from: Date()) + " " : "")
                    + "synced: sent \(report.pushed), received \(report.pulled) (\(report.applied.inserted) new, "
                    + "\(report.applied.updated) changed, \(report.applied.deleted) deleted)"
                    + (report.imagesSent + report.imagesReceived > 0
                        ? "; images sent \(report.imagesSent), received \(report.imagesReceived)" : "")
                    + (report.snapshot ? "; started from the server's copy of the account" : "")
                    + (report.snapshotProblem.map { "; the server's copy of the account was not used: \($0)" } ?? ""))
        }
    }

    struct Records: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "records", abstract: "Print every record as the sync holds it, to compare devices.",
            discussion: Help.paragraphs(
                """
                One JSON line per record a person sees, each field with its value and the clock of its
                last write, in a fixed order: two devices that have synced the same changes print the
                same lines (a browser's replica too: `ReplicaRecords.canonicalDump`).

                Example:
                  cardbox sync records > laptop.txt
                """))
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let dump = try global.openExistingStore().canonicalDump()
            Terminal.current.print(dump)
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Show the server, account, pending changes, last sync and last error.",
            discussion: "Example:\n  cardbox sync status")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let store = try global.openExistingStore()
            try Console.emit(try DeviceSync(store: store).status(), json: output.json) { status in
                guard let server = status.server else {
                    return
                        "not signed in (cardbox login URL --user NAME); \(Wording.counted(status.pending, "local change"))"
                }
                var lines = [
                    "server: \(server)", "user: \(status.user ?? "")", "account: \(status.accountId)",
                    "pending: \(Wording.counted(status.pending, "local change"))",
                    "last sync: \(status.lastSync.map { ISO8601DateFormatter().string(from: $0) } ?? "never")",
                ]
                if let error = status.lastError { lines.append("last error: \(error)") }
                return lines.joined(separator: "\n")
            }
        }
    }
}
