import CardboxCore
import Foundation

/// A program built and installed beside `cardbox` that does one kind of work in a process of its
/// own: the image worker (the one program that links libvips) and the server (the one that links
/// the HTTP stack and the server databases). It lives here, with the image workers, because this
/// is the module that starts processes (`CSpawn`); the command line finds the server with it too.
public struct CompanionProgram: Sendable {
    /// The program's file name, looked for beside the running program.
    public let name: String
    /// The environment variable naming the program's path, where it is not beside the running one.
    public let variable: String
    /// What needs it, for the error when it is missing (e.g. "images").
    public let neededFor: String

    public init(name: String, variable: String, neededFor: String) {
        self.name = name
        self.variable = variable
        self.neededFor = neededFor
    }

    /// The program's path: the variable's value, or the file beside the running program.
    public func path(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let named = environment[variable], !named.isEmpty { return named }
        let running =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
        let beside = URL(fileURLWithPath: running).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: beside) else {
            throw CardboxError.storage(
                "\(neededFor) need \(name) beside \(running) (build it as that program was built, e.g. "
                    + "`swift build -c release --product \(name)`), or its path in \(variable)")
        }
        return beside
    }
}
