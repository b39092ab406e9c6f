import ArgumentParser
import CardboxCore
import CardboxImaging
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `cardbox serve` and `cardbox admin` run in `cardbox-server`, the program built beside `cardbox`
/// that links the HTTP stack and the server databases. Every other command starts without them:
/// the runtime's protocol-conformance lookups, which walk every conformance a binary holds, were
/// most of a simple command's start-up.
enum ServerProgram {
    static let program = CompanionProgram(
        name: "cardbox-server", variable: "CARDBOX_SERVER", neededFor: "cardbox serve and cardbox admin")

    /// The server's commands, as named on `cardbox`'s command line.
    static let commands: Set<String> = [ServeCommand._commandName, AdminCommand._commandName]

    /// Whether `arguments` name one of the server's commands, after the global options (or ask
    /// `help` about one).
    static func runs(_ arguments: [String]) -> Bool {
        var words = GlobalOptions.skipped(in: arguments)
        if words.first == "help" { words = words.dropFirst() }
        return words.first.map(commands.contains) ?? false
    }

    /// Replaces this process with the server's program, given the same arguments; prints why and
    /// exits with 1 when it cannot.
    static func replaceProcess(_ arguments: [String]) -> Never {
        do {
            let path = try program.path()
            var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
            execv(path, &argv)
            throw CardboxError.storage("could not start \(path): \(String(cString: strerror(errno)))")
        } catch {
            Console.error(error.localizedDescription)
            exit(1)
        }
    }

    /// What a server's command says when the command line runs in a process that is not `cardbox`
    /// (a test, a program using CardboxCLI): only `cardbox` hands its process over.
    static func notHere(_ command: String) -> CardboxError {
        .invalid(
            field: "command",
            reason:
                "cardbox \(command) runs in cardbox-server: run it with the cardbox program, or cardbox-server itself")
    }
}

/// `cardbox serve`, as `cardbox --help` lists it; `cardbox-server` runs it.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sync server: accounts, devices and their changes, over HTTP.",
        discussion: """
            Runs in cardbox-server, installed beside cardbox, which lists the server's options with \
            'cardbox serve --help'.

            Example:
              cardbox serve --port 8080
            """)

    @Argument(parsing: .allUnrecognized, help: "The server's options.")
    var options: [String] = []

    func run() throws { throw ServerProgram.notHere(Self._commandName) }
}

/// `cardbox admin`, as `cardbox --help` lists it; `cardbox-server` runs it.
struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Manage the sync server's accounts and devices.",
        discussion: """
            Runs in cardbox-server, installed beside cardbox, which lists its commands with \
            'cardbox admin --help'.

            Example:
              cardbox admin user list
            """)

    @Argument(parsing: .allUnrecognized, help: "The command and its options.")
    var arguments: [String] = []

    func run() throws { throw ServerProgram.notHere(Self._commandName) }
}
