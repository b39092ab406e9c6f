import Foundation

// Builds one of the browser's WebAssembly modules for the WasmModules plugin:
//   cardbox-wasm-build SWIFTC CLANG WASM-LD WORK-FOLDER OUTPUT.swift NAME SOURCE…
// compiles the Swift sources as one Embedded Swift module for wasm32 and each C source with clang,
// links them (with any static library among the sources) with wasm-ld, and writes OUTPUT.swift,
// which holds the module as base64 (`NAME.base64`).

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
        guard arguments.count > 6 else { fail("usage: SWIFTC CLANG WASM-LD WORK-FOLDER OUTPUT.swift NAME SOURCE…") }
        let (swiftc, clang, linker, work, output, name) = (
            arguments[0], arguments[1], arguments[2], arguments[3], arguments[4], arguments[5]
        )
        let sources = arguments.dropFirst(6)
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        } catch {
            fail("cannot make \(work): \(error)")
        }
        let swiftObject = work + "/swift.o"
        run(
            swiftc,
            [
                "-target", "wasm32-unknown-none-wasm", "-enable-experimental-feature", "Embedded", "-wmo", "-Osize",
                "-parse-as-library", "-Xfrontend", "-disable-stack-protector", "-module-name", name,
                "-module-cache-path", work + "/ModuleCache", "-c", "-o", swiftObject,
            ] + sources.filter { $0.hasSuffix(".swift") })
        var objects = [swiftObject]
        for (index, source) in sources.filter({ $0.hasSuffix(".c") }).enumerated() {
            let object = work + "/c\(index).o"
            // No libc: -fno-builtin keeps the runtime's memcpy from becoming a call to itself, and
            // bulk memory lets it copy with one instruction (memory.copy).
            run(
                clang,
                [
                    "--target=wasm32-unknown-unknown", "-Os", "-mbulk-memory", "-ffreestanding", "-fno-builtin",
                    "-nostdlib", "-c", source, "-o", object,
                ])
            objects.append(object)
        }
        let module = work + "/\(name).wasm"
        run(linker, ["--no-entry", "--strip-all"] + objects + sources.filter { $0.hasSuffix(".a") } + ["-o", module])
        guard let bytes = FileManager.default.contents(atPath: module) else { fail("\(module) was not written") }
        let source = """
            // Made by the build (Plugins/WasmModules) from the sources it names.

            /// A WebAssembly module of the browser's, base64-encoded.
            public enum \(name) {
                public static let base64 = "\(bytes.base64EncodedString())"
            }

            """
        do {
            try source.write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            fail("cannot write \(output): \(error)")
        }
    }
}
