import Foundation

// Builds the browser's FSRS module for the WasmScheduler plugin:
//   cardbox-wasm-build SWIFTC WASM-LD WORK-FOLDER OUTPUT.swift SOURCE.swift…
// compiles the sources as one Embedded Swift module for wasm32, links it with no imports allowed
// (no allocator, no libc: everything the step needs is in its sources), and writes OUTPUT.swift,
// which holds the module as base64 (`FSRSWasm.base64`).

/// Runs `tool`; a failure stops the build with what it printed.
func run(_ tool: String, _ arguments: [String]) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    do {
        try process.run()
    } catch {
        fail("cannot run \(tool): \(error)")
    }
    process.waitUntilExit()
    if process.terminationStatus != 0 { fail("\(tool) failed (exit \(process.terminationStatus))") }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("cardbox-wasm-build: \(message)\n".utf8))
    exit(1)
}

// A type with `main`, not top-level code: a build with -parse-as-library (the fuzz build's flags)
// compiles it too.
@main
enum WasmBuild {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count > 4 else { fail("usage: SWIFTC WASM-LD WORK-FOLDER OUTPUT.swift SOURCE.swift…") }
        let (swiftc, linker, work, output) = (arguments[0], arguments[1], arguments[2], arguments[3])
        let object = work + "/fsrs.o"
        let module = work + "/fsrs.wasm"
        run(
            swiftc,
            [
                "-target", "wasm32-unknown-none-wasm", "-enable-experimental-feature", "Embedded", "-wmo", "-Osize",
                "-parse-as-library", "-Xfrontend", "-disable-stack-protector", "-module-name", "CardboxFSRSWasm",
                "-module-cache-path", work + "/ModuleCache", "-c", "-o", object,
            ] + arguments.dropFirst(4))
        run(linker, ["--no-entry", "--strip-all", object, "-o", module])
        guard let bytes = FileManager.default.contents(atPath: module) else { fail("\(module) was not written") }
        let source = """
            // Made by the build (Plugins/WasmScheduler) from Sources/CardboxFSRS and Wasm/FSRSExports.swift.

            /// The FSRS step as a WebAssembly module, base64-encoded.
            enum FSRSWasm {
                static let base64 = "\(bytes.base64EncodedString())"
            }

            """
        do {
            try source.write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            fail("cannot write \(output): \(error)")
        }
    }
}
