import ArgumentParser
import CardboxCLI
import CardboxStore
import Foundation

/// `cardbox-server`: the server's commands, `serve` and `admin`. People run them as `cardbox serve`
/// and `cardbox admin`, which hand the process over to this program; so it is named `cardbox` in
/// its help, and takes `cardbox`'s global options.
public struct CardboxServerCommand: AsyncParsableCommand, CommandLineRoot {
    public static let configuration = CommandConfiguration(
        commandName: "cardbox",
        abstract: "The sync server's commands (run as 'cardbox serve' and 'cardbox admin').",
        discussion: """
            Example:
              cardbox serve --port 8080
            """,
        version: "cardbox \(cardboxVersion)",
        subcommands: [ServeCommand.self, AdminCommand.self])

    @OptionGroup var global: GlobalOptions

    public init() {}

    /// Runs the server's command line as the process and exits with the command's status.
    public static func runProcess() async -> Never {
        CardboxStore.prepareSQLite()
        Foundation.exit(await runAsync(Array(CommandLine.arguments.dropFirst())))
    }
}
