import Foundation

/// What a command reads and writes: standard input, output and error, the environment, and whether
/// a person is at a terminal. `cardbox` uses the process's own; tests run commands in process with
/// `Terminal(input:environment:)`, which keeps what was written. Commands reach it through
/// `Terminal.current`, bound for the duration of a run (`CardboxCommand.run(_:terminal:)`).
public final class Terminal: @unchecked Sendable {
    @TaskLocal public static var current = Terminal()

    /// The environment a captured terminal was given; nil: the process's own, read a variable at a
    /// time, so that a command does not copy every variable into a dictionary at its start.
    private let givenEnvironment: [String: String]?
    /// Every variable of the environment.
    public var environment: [String: String] { givenEnvironment ?? ProcessInfo.processInfo.environment }
    /// Standard input is a terminal: keys arrive one at a time and the screen may be cleared.
    public let inputIsTerminal: Bool
    /// Standard error is a terminal: progress bars are drawn.
    public let errorIsTerminal: Bool

    private let lock = NSLock()
    /// nil: the process's streams; otherwise what was written, and the input still to read.
    private var captured: (output: Data, error: Data, input: [UInt8], read: Int)?

    /// The process's own streams and environment.
    public init() {
        givenEnvironment = nil
        inputIsTerminal = isatty(STDIN_FILENO) == 1
        errorIsTerminal = isatty(STDERR_FILENO) == 1
        captured = nil
    }

    /// Buffers: `input` is what standard input holds; nothing is a terminal.
    public init(input: String = "", environment: [String: String] = [:]) {
        givenEnvironment = environment
        inputIsTerminal = false
        errorIsTerminal = false
        captured = (Data(), Data(), Array(input.utf8), 0)
    }

    /// The environment variable `name`, if set.
    public func variable(_ name: String) -> String? {
        if let givenEnvironment { return givenEnvironment[name] }
        return getenv(name).map { String(cString: $0) }
    }

    /// What was written to standard output (captured terminals only).
    public var output: String { lock.withLock { String(decoding: captured?.output ?? Data(), as: UTF8.self) } }
    /// What was written to standard error (captured terminals only).
    public var errorOutput: String { lock.withLock { String(decoding: captured?.error ?? Data(), as: UTF8.self) } }

    public func write(_ data: Data) {
        lock.withLock {
            if captured != nil { captured!.output.append(data) } else { FileHandle.standardOutput.write(data) }
        }
    }

    public func writeError(_ data: Data) {
        lock.withLock {
            if captured != nil { captured!.error.append(data) } else { FileHandle.standardError.write(data) }
        }
    }

    /// Writes `text` and a newline to standard output.
    public func print(_ text: String, terminator: String = "\n") { write(Data((text + terminator).utf8)) }

    /// The next byte of standard input, or nil at its end.
    public func readByte() -> UInt8? {
        lock.withLock {
            guard let state = captured else {
                var byte: UInt8 = 0
                return Foundation.read(STDIN_FILENO, &byte, 1) == 1 ? byte : nil
            }
            guard state.read < state.input.count else { return nil }
            captured!.read += 1
            return state.input[state.read]
        }
    }

    /// The next line of standard input without its line break, or nil at its end.
    public func readLine() -> String? {
        guard captured != nil else { return Swift.readLine() }
        var bytes: [UInt8] = []
        while let byte = readByte() {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
