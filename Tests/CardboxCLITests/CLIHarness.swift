import ArgumentParser
import CardboxCLI
import CardboxServerCLI
import Foundation
import Testing

struct CLIHarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `cardbox` commands: in this process (`run`), or as the real executable (`runProcess`).
struct CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// The stdout parsed as JSON.
        func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
    }

    let folder: URL
    var storePath: String { folder.appendingPathComponent("store.sqlite").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// The `cardbox` executable this test run built: beside the test bundle, and linked after every
    /// object it is made of (`swift build --build-tests` builds both; a binary left from an earlier
    /// build is refused). Found and checked once per test run.
    static func builtBinary() throws -> URL { try located.get() }

    private static let located = Swift.Result<URL, CLIHarnessError> { () throws(CLIHarnessError) in try locateBinary() }

    private static func locateBinary() throws(CLIHarnessError) -> URL {
        if let path = ProcessInfo.processInfo.environment["CARDBOX_BIN"] { return URL(fileURLWithPath: path) }
        let tests = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let folder = tests.deletingLastPathComponent()
        var binary = folder.appendingPathComponent("cardbox")
        if !FileManager.default.isExecutableFile(atPath: binary.path) {
            // A test bundle folder (macOS: Foo.xctest/Contents/MacOS) sits inside the build folder.
            binary = folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("cardbox")
        }
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw CLIHarnessError("no cardbox binary beside the tests at \(folder.path): run swift build --build-tests")
        }
        if let newer = newerObject(than: binary, tests: tests) {
            throw CLIHarnessError(
                "\(binary.path) is older than \(newer), which it is linked from: run swift build --build-tests")
        }
        return binary
    }

    /// An object file `binary` is linked from that changed after it was linked, if any. SwiftPM lists
    /// a product's objects in `<product>.product/Objects.LinkFileList` beside it. A change that only
    /// the server or the tests link relinks the test bundle but rightly leaves `cardbox` as it is, so
    /// the bundle's own date says nothing about `cardbox`; without the list (another build layout),
    /// the binary must not be more than ten minutes older than the bundle.
    private static func newerObject(than binary: URL, tests: URL) -> String? {
        func modified(_ path: String) -> Date? {
            (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]) as? Date
        }
        guard let linked = modified(binary.path) else { return nil }
        let list = binary.deletingLastPathComponent().appendingPathComponent("cardbox.product/Objects.LinkFileList")
        guard let objects = try? String(contentsOf: list, encoding: .utf8) else {
            guard let bundle = modified(tests.path), linked < bundle.addingTimeInterval(-600) else { return nil }
            return tests.path
        }
        return objects.split(separator: "\n").lazy.map(String.init).first { object in
            modified(object).map { $0 > linked } ?? false
        }
    }

    /// Runs `cardbox --store STORE args…` (or without --store when `store` is false) in this process,
    /// with `environment` as its whole environment (HOME set to the test's folder) and `input` as its
    /// standard input.
    @discardableResult
    func run(
        _ arguments: [String], store: Bool = true, environment: [String: String] = [:], input: String? = nil
    ) throws -> Result {
        var env = ["HOME": folder.path]
        for (key, value) in environment { env[key] = value }
        let terminal = Terminal(input: input ?? "", environment: env)
        let status = CardboxCommand.run((store ? ["--store", storePath] : []) + arguments, terminal: terminal)
        return Result(status: status, stdout: terminal.output, stderr: terminal.errorOutput)
    }

    /// Runs the server's command line (`cardbox-server`: serve, admin) in this process, for what
    /// needs no waiting (help, argument errors).
    func runServer(_ arguments: [String]) throws -> Result {
        let terminal = Terminal(environment: ["HOME": folder.path])
        let status = CardboxServerCommand.run(arguments, terminal: terminal)
        return Result(status: status, stdout: terminal.output, stderr: terminal.errorOutput)
    }

    /// Runs the real `cardbox` executable built by this test run, as a separate process.
    @discardableResult
    func runProcess(
        _ arguments: [String], store: Bool = true, environment: [String: String] = [:], input: String? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = try Self.builtBinary()
        process.arguments = (store ? ["--store", storePath] : []) + arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "CARDBOX_STORE")
        env["HOME"] = folder.path
        env.removeValue(forKey: "XDG_DATA_HOME")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data((input ?? "").utf8))
        try stdin.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs a command that must succeed, returning its stdout.
    @discardableResult
    func ok(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(arguments)
        #expect(result.status == 0, "cardbox \(arguments) failed: \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// Runs a command with --json that must succeed, returning the parsed JSON.
    func json(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        let result = try run(arguments + ["--json"])
        #expect(result.status == 0, "cardbox \(arguments) failed: \(result.stderr)", sourceLocation: sourceLocation)
        return try result.json()
    }

    /// Every command path of the command line, e.g. ["board", "card", "move"].
    static func commandPaths(_ command: any ParsableCommand.Type = CardboxCommand.self, prefix: [String] = [])
        -> [[String]]
    {
        let subcommands = command.configuration.subcommands
        if subcommands.isEmpty { return [prefix] }
        return [prefix] + subcommands.flatMap { commandPaths($0, prefix: prefix + [$0._commandName]) }
    }
}
