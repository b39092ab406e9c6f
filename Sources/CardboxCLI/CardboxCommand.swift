import ArgumentParser
import CardboxCore
import CardboxScheduling
import CardboxStore
import CardboxSyncClient
import Foundation

/// The version `cardbox --version` prints.
public let cardboxVersion = "0.3.0"

/// `cardbox`: decks, lists and boards from the command line.
public struct CardboxCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cardbox",
        abstract: "A local-first home for flashcard decks, lists and boards.",
        discussion: Help.paragraphs(
            """
            The store is one SQLite file: --store PATH, else $CARDBOX_STORE, else
            $XDG_DATA_HOME/cardbox/cardbox.sqlite (~/.local/share/cardbox/cardbox.sqlite).
            Records are named by id, by the short id shown (a unique end of the id; a unique start
            works too), or by exact name: a deck's, list's or board's name, a card's front, an
            item's, column's or board card's title.
            Commands that print records take --json.

            Example:
              cardbox deck create Spanish --front es --back en
              cardbox card add Spanish hola hello --tag greeting
            """),
        version: "cardbox \(cardboxVersion)",
        subcommands: [
            DeckCommand.self, CardCommand.self, SuggestionCommand.self, TagCommand.self, PlanCommand.self,
            EventsCommand.self, ListCommand.self, ItemCommand.self, SettingsCommand.self, BoardCommand.self,
            FSRSCommand.self, StudyCommand.self, StatsCommand.self, ExportCommand.self, ImportCommand.self,
            HistoryCommand.self, LoginCommand.self, LogoutCommand.self, SyncCommand.self, ServeCommand.self,
            AdminCommand.self, StoredImageCommand.self,
        ])

    @OptionGroup var global: GlobalOptions

    public init() {}

    /// Runs the command line as the `cardbox` process and exits with the command's status. The
    /// server's commands run in `cardbox-server`, which replaces this process (same pid, so signals
    /// reach the server): `cardbox` itself does not link the server, and starts faster for it.
    public static func runProcess(_ arguments: [String]? = nil) -> Never {
        let arguments = arguments ?? Array(CommandLine.arguments.dropFirst())
        if ServerProgram.runs(arguments) { ServerProgram.replaceProcess(arguments) }
        CardboxStore.prepareSQLite()
        CommandRunner<Self>.runProcess(arguments)
    }

    /// The subcommand names at the start of `arguments` (global options skipped).
    static func commandPath(in arguments: [String]) -> [String] {
        CommandRunner<Self>.commandPath(in: arguments)
    }
}

/// A command line's root: `cardbox`'s, and `cardbox-server`'s.
public protocol CommandLineRoot: ParsableCommand {}

extension CommandLineRoot {
    /// Runs one command line in this process and returns its exit status (`CommandRunner.run`).
    public static func run(_ arguments: [String], terminal: Terminal = Terminal()) -> Int32 {
        CommandRunner<Self>.run(arguments, terminal: terminal)
    }

    /// `run`, for every command, the async ones (login, sync, serve) included.
    public static func runAsync(_ arguments: [String], terminal: Terminal = Terminal()) async -> Int32 {
        await CommandRunner<Self>.runAsync(arguments, terminal: terminal)
    }
}

extension CardboxCommand: CommandLineRoot {}

/// Runs command lines whose root command is `Root`: `cardbox`'s, and `cardbox-server`'s.
public enum CommandRunner<Root: ParsableCommand> {
    /// Runs one command line and returns its exit status, writing to `terminal` (the process's
    /// streams, or buffers when a test runs it in process). Errors of Cardbox itself print as one line
    /// `error: …` on stderr and give 1; argument errors give 64 with the parser's message and a pointer
    /// to `--help`. The commands that talk to a server are async: run them with `runAsync`.
    public static func run(_ arguments: [String], terminal: Terminal = Terminal()) -> Int32 {
        Terminal.$current.withValue(terminal) {
            status(arguments) {
                var command = try Root.parseAsRoot(arguments)
                // The root itself only shows help.
                if command is Root { throw CleanExit.helpRequest(Root.self) }
                guard !(command is AsyncParsableCommand) else {
                    throw CardboxError.invalid(field: "command", reason: "runs only from cardbox's async entry point")
                }
                try command.run()
            }
        }
    }

    /// `run`, for every command, the async ones included.
    public static func runAsync(_ arguments: [String], terminal: Terminal = Terminal()) async -> Int32 {
        await Terminal.$current.withValue(terminal) {
            switch parse(arguments) {
            case .failure(let error): return status(arguments) { throw error }
            case .success(var command as AsyncParsableCommand):
                return await asyncStatus(arguments) { try await command.run() }
            case .success(var command): return status(arguments) { try command.run() }
            }
        }
    }

    /// Runs one command line as the whole process and exits with its status. A command that needs no
    /// concurrency (all but those that talk to a server) runs on the main thread, so the process
    /// starts no thread of its own for it: an `async` main starts the concurrency runtime's threads
    /// before the first line, for `--version` too. An async command runs in a task, the main thread
    /// serving Dispatch's main queue meanwhile.
    public static func runProcess(_ arguments: [String], terminal: Terminal = Terminal()) -> Never {
        let parsed = Terminal.$current.withValue(terminal) { parse(arguments) }
        guard case .success(let command as AsyncParsableCommand) = parsed else {
            Foundation.exit(
                Terminal.$current.withValue(terminal) {
                    status(arguments) {
                        var command = try parsed.get()
                        try command.run()
                    }
                })
        }
        nonisolated(unsafe) var asyncCommand = command
        Task {
            let code = await Terminal.$current.withValue(terminal) {
                await asyncStatus(arguments) { try await asyncCommand.run() }
            }
            Foundation.exit(code)
        }
        dispatchMain()
    }

    private static func parse(_ arguments: [String]) -> Swift.Result<any ParsableCommand, any Error> {
        Swift.Result { try Root.parseAsRoot(arguments) }
    }

    /// `status` of an async body.
    private static func asyncStatus(_ arguments: [String], _ body: () async throws -> Void) async -> Int32 {
        do {
            try await body()
            return 0
        } catch {
            return status(arguments) { throw error }
        }
    }

    /// Runs `body` and turns what it throws into an exit status and a message.
    private static func status(_ arguments: [String], _ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch let error as CardboxError {
            Console.error(error.localizedDescription)
            if let detail = error.detail { Terminal.current.writeError(Data((detail + "\n").utf8)) }
            return 1
        } catch let error as ServerPlanCardLimit {
            Console.error(error.localizedDescription)
            Terminal.current.writeError(Data((error.detail + "\n").utf8))
            return 1
        } catch let error as SchedulingError {
            Console.error(error.localizedDescription)
            return 1
        } catch let error as SyncClientError {
            Console.error(error.localizedDescription)
            return 1
        } catch {
            let code = Root.exitCode(for: error)
            if code == .success {
                Terminal.current.print(Root.fullMessage(for: error))
                return 0
            }
            let path = (["cardbox"] + commandPath(in: arguments)).joined(separator: " ")
            let hint = " (see '\(path) --help')"
            Console.error(Root.message(for: error).replacingOccurrences(of: "\n", with: "; ") + hint)
            return code.rawValue
        }
    }

    /// The subcommand names at the start of `arguments` (global options skipped), for pointing at the
    /// right `--help` after an argument error.
    static func commandPath(in arguments: [String]) -> [String] {
        var path: [String] = []
        var command: any ParsableCommand.Type = Root.self
        var words = GlobalOptions.skipped(in: arguments)
        while let word = words.popFirst() {
            if let width = GlobalOptions.width(of: word) {
                words = words.dropFirst(width - 1)
                continue
            }
            guard
                let next = command.configuration.subcommands.first(where: {
                    $0._commandName == word
                })
            else { break }
            path.append(word)
            command = next
        }
        return path
    }
}

/// Options every command accepts.
public struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The store file (default: $CARDBOX_STORE, else the XDG data folder).")
    var store: String?

    public init() {}

    /// How many words a global option starting at `word` takes (`--store X`: 2, `--store=X`: 1), or
    /// nil when `word` is none.
    static func width(of word: String) -> Int? {
        if word == "--store" { return 2 }
        return word.hasPrefix("--store=") ? 1 : nil
    }

    /// `arguments` after the global options given before the command.
    static func skipped(in arguments: [String]) -> ArraySlice<String> {
        var words = arguments[...]
        while let first = words.first, let width = width(of: first) { words = words.dropFirst(width) }
        return words
    }

    /// The store file's path: --store, $CARDBOX_STORE, $XDG_DATA_HOME/cardbox, ~/.local/share/cardbox.
    func storePath(variable: (String) -> String? = Terminal.current.variable) -> String {
        if let path = store ?? variable("CARDBOX_STORE"), !path.isEmpty {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                return URL(fileURLWithPath: path).appendingPathComponent("cardbox.sqlite").path
            }
            return path
        }
        return Self.dataFolder(variable: variable).appendingPathComponent("cardbox.sqlite").path
    }

    /// Cardbox's data folder: $XDG_DATA_HOME/cardbox, else ~/.local/share/cardbox.
    public static func dataFolder(variable: (String) -> String?) -> URL {
        let dataHome =
            variable("XDG_DATA_HOME").flatMap { $0.isEmpty ? nil : $0 }
            ?? URL(fileURLWithPath: variable("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path)
            .appendingPathComponent(".local/share")
            .path
        return URL(fileURLWithPath: dataHome).appendingPathComponent("cardbox")
    }

    /// One command, one connection: it opens faster than a pool, and a command never reads while it writes.
    func openStore() throws -> CardboxStore {
        let path = storePath()
        var environment = StoreEnvironment.live
        let terminal = Terminal.current
        environment.upgrading = { moment in terminal.writeError(Data(Self.describe(moment, path: path).utf8)) }
        return try CardboxStore.open(path: path, environment: environment, concurrentReads: false)
    }

    /// The lines a command prints on stderr while a store made by an earlier version is upgraded.
    static func describe(_ moment: StoreUpgrade, path: String) -> String {
        switch moment {
        case .started:
            return "upgrading the store at \(path) to this version's layout (once; a large store takes seconds)…\n"
        case .finished(let duration):
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            return "upgraded the store in \(String(format: "%.1f", seconds)) s\n"
        }
    }

    /// The store, for a command that has nothing to do on a store that does not exist (sync, its
    /// status, logout): a mistyped --store names the path instead of making an empty store there.
    func openExistingStore() throws -> CardboxStore {
        let path = storePath()
        guard FileManager.default.fileExists(atPath: path) else {
            throw CardboxError.invalid(
                field: "store", reason: "there is no store at \(path): check --store, or sign in with cardbox login")
        }
        return try openStore()
    }

    /// Runs `body` on the store (made when there is none). When `body` fails, a store made for it is
    /// removed again, with the folder made for it: a failed command leaves nothing behind.
    func withStore<T>(_ body: (CardboxStore) async throws -> T) async throws -> T {
        let made = NewStoreFiles(path: storePath())
        do {
            return try await body(try openStore())
        } catch {
            made.remove()
            throw error
        }
    }

    /// `withStore` for a command that does not wait.
    func withStore<T>(_ body: (CardboxStore) throws -> T) throws -> T {
        let made = NewStoreFiles(path: storePath())
        do {
            return try body(try openStore())
        } catch {
            made.remove()
            throw error
        }
    }
}

/// What a command would leave behind at `path` by opening a store there: the store's files, and
/// the folder, where they did not exist before it.
struct NewStoreFiles {
    let path: String
    let existed: Bool
    let folderExisted: Bool

    init(path: String) {
        self.path = path
        existed = FileManager.default.fileExists(atPath: path)
        folderExisted = FileManager.default.fileExists(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    func remove() {
        guard !existed else { return }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        if !folderExisted {
            try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
        }
    }
}

/// `--json` for commands that print records.
public struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON (field names as in the data model) instead of text.")
    public var json = false

    public init() {}
}

/// A command that works on the store: parses, opens the store, runs, prints.
protocol StoreCommand: ParsableCommand {
    var global: GlobalOptions { get }
    func run(store: CardboxStore) throws
}

extension StoreCommand {
    /// Opens the store and runs. A command that fails where there was no store yet leaves none behind:
    /// an error changes nothing, not even by creating an empty store.
    func run() throws {
        try global.withStore { store in
            do {
                try run(store: store)
            } catch let error as CardboxError {
                // On a signed-in store the plan is the server's: say who can lift the limit there.
                guard case .cardLimitExceeded = error, let link = try? store.syncLink() else { throw error }
                throw ServerPlanCardLimit(limit: error, link: link)
            }
            try store.checkpoint()
        }
    }
}

/// Seed 001's card-limit error on a store signed in to a server, where the account's plan is the
/// server's: 'plan set premium' here would be undone by the next sync, so the second line names
/// the server's command instead.
struct ServerPlanCardLimit: Error, LocalizedError {
    let limit: CardboxError
    let link: SyncLink

    var errorDescription: String? { limit.errorDescription }

    var detail: String {
        (limit.attempted ?? "") + " This store is signed in to \(link.server), "
            + "where the plan is the account's: the server's administrator lifts the limit with "
            + "'cardbox admin user set-plan \(link.user) premium'; deleting cards makes room."
    }
}
