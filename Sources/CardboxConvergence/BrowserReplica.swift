import CardboxCore
import CardboxSync
import Foundation

/// A replica that holds records by name, run elsewhere: given change sets in their wire form, it
/// answers the canonical dump of what it then shows.
public protocol RecordReplicaRunner: Sendable {
    func dump(after changeSets: [String]) throws -> String
}

/// The browser's replica (`replica.js` over the WebAssembly module), run by Node: one process for
/// every history, fed a request per line by `Tests/Wasm/replica_driver.cjs`.
public final class NodeReplica: RecordReplicaRunner, @unchecked Sendable {
    private let process = Process()
    private let input: FileHandle
    private let output: FileHandle
    private var buffered = Data()
    private let lock = NSLock()
    private let folder: URL

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts Node with the module's bytes, the page's script and the driver (paths in the repository).
    public init(module: Data, script: URL, driver: URL) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardbox-replica-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let modulePath = folder.appendingPathComponent("replica.wasm")
        try module.write(to: modulePath)
        let (toNode, fromNode) = (Pipe(), Pipe())
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["node", driver.path, script.path, modulePath.path]
        process.standardInput = toNode
        process.standardOutput = fromNode
        input = toNode.fileHandleForWriting
        output = fromNode.fileHandleForReading
        try process.run()
        let answer = try exchange(["schema": SyncRegistry.replicaSchema.json.jsonText])
        guard answer["ok"] != nil else { throw Failure(description: "node refused the schema: \(answer)") }
    }

    /// Stops Node without waiting for it: a wait for its exit at end of input would hang for ever
    /// if another child had inherited the input's pipe, and it would hold a thread of the pool.
    deinit {
        try? input.close()
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: folder)
    }

    public func dump(after changeSets: [String]) throws -> String {
        let answer = try exchange(["changes": changeSets])
        if case .string(let dump)? = answer["dump"] { return dump }
        throw Failure(description: "the browser's replica refused a change set: \(answer["error"]?.jsonText ?? "?")")
    }

    /// Sends one request line (see `Tests/Wasm/replica_driver.cjs`) and reads its answer.
    public func send(_ request: [String: Any]) throws -> [String: JSONValue] { try exchange(request) }

    /// Sends one request line and reads one answer line, one history at a time.
    private func exchange(_ request: [String: Any]) throws -> [String: JSONValue] {
        try lock.withLock {
            var line = try JSONSerialization.data(withJSONObject: request)
            line.append(UInt8(ascii: "\n"))
            try input.write(contentsOf: line)
            while true {
                if let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    let answer = buffered[buffered.startIndex..<end]
                    buffered = Data(buffered[(end + 1)...])
                    guard case .object(let members) = try JSONParser.parse(String(decoding: answer, as: UTF8.self))
                    else { throw Failure(description: "node answered something other than an object") }
                    return members
                }
                let more = output.availableData
                guard !more.isEmpty else {
                    throw Failure(description: "node stopped (is it installed? `node --version`)")
                }
                buffered.append(more)
            }
        }
    }
}
