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

    /// Whether `arguments` name one of the server's commands (or ask `help` about one).
    static func runs(_ arguments: [String]) -> Bool {
        let words = arguments.first == "help" ? Array(arguments.dropFirst()) : arguments
        return CardboxCommand.commandPath(in: words).first.map(commands.contains) ?? false
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

    /// Runs the server's program as a child with `arguments` and this process's streams, and returns
    /// its exit status: the server's commands run this way when the command line runs in process.
    static func runChild(_ arguments: [String]) throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try program.path())
        child.arguments = arguments
        try child.run()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw ExitCode(child.terminationStatus) }
    }
}

/// `cardbox serve`, as `cardbox --help` lists it; `cardbox-server` runs it.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sync server: accounts, devices and their changes, over HTTP.",
        discussion: """
            Runs in cardbox-server, installed beside cardbox: 'cardbox serve --help' lists the server's \
            options.

            Example:
              cardbox serve --port 8080
            """)

    @Argument(parsing: .allUnrecognized, help: "The server's options (see 'cardbox serve --help').")
    var options: [String] = []

    func run() throws { try ServerProgram.runChild([Self._commandName] + options) }
}

/// `cardbox admin`, as `cardbox --help` lists it; `cardbox-server` runs it.
struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Manage the sync server's accounts and devices.",
        discussion: """
            Runs in cardbox-server, installed beside cardbox: 'cardbox admin --help' lists its commands.

            Example:
              cardbox admin user list
            """)

    @Argument(parsing: .allUnrecognized, help: "The command and its options (see 'cardbox admin --help').")
    var arguments: [String] = []

    func run() throws { try ServerProgram.runChild([Self._commandName] + arguments) }
}
