import ArgumentParser
import CardboxCLI
import Foundation
import Testing

/// Runs the real `cardbox` executable, built next to this test bundle.
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

    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["CARDBOX_BIN"] { return URL(fileURLWithPath: path) }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug"),
        ]
        for folder in candidates
        where FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("cardbox").path) {
            return folder.appendingPathComponent("cardbox")
        }
        return candidates[0].appendingPathComponent("cardbox")
    }()

    /// Runs `cardbox --store STORE args…` (or without --store when `store` is false).
    @discardableResult
    func run(
        _ arguments: [String], store: Bool = true, environment: [String: String] = [:], input: String? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = Self.binary
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
