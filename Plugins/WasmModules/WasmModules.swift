import Foundation
import PackagePlugin

/// Compiles the browser's WebAssembly modules with the toolchain's own Embedded Swift, clang and
/// `wasm-ld`, and hands each to the target as a Swift file holding its bytes, so `cardbox serve`
/// carries them in its binary:
/// - `FSRSWasm`: the FSRS step (`Sources/CardboxFSRS` with `Wasm/FSRSExports.swift`), needing nothing
///   from the page;
/// - `ReplicaWasm`: the replica (`Sources/CardboxReplica` and `Sources/CardboxFSRS` with
///   `Wasm/ReplicaExports.swift`), with `Wasm/Runtime` for memory and the Unicode tables Swift's
///   strings compare by.
@main
struct WasmModules: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let unicodeTables = try context.tool(named: "swiftc").url.deletingLastPathComponent()
            .appending(path: "../lib/swift/embedded/wasm32-unknown-none-wasm/libswiftUnicodeDataTables.a")
            .standardizedFileURL
        return [
            try module(
                "FSRSWasm", context: context,
                sources: try sources(of: "CardboxFSRS", context) + [root.appending(path: "Wasm/FSRSExports.swift")]),
            try module(
                "ReplicaWasm", context: context,
                sources: try sources(of: "CardboxReplica", context) + sources(of: "CardboxFSRS", context) + [
                    root.appending(path: "Wasm/ReplicaExports.swift"), root.appending(path: "Wasm/Runtime/runtime.c"),
                    unicodeTables,
                ]),
        ]
    }

    private func sources(of name: String, _ context: PluginContext) throws -> [URL] {
        guard let target = try context.package.targets(named: [name]).first as? SourceModuleTarget else {
            throw PluginError(description: "the package has no \(name) target to compile to WebAssembly")
        }
        return target.sourceFiles(withSuffix: "swift").map(\.url)
    }

    /// The command that builds module `name` from `sources` (Swift, C and static libraries).
    private func module(_ name: String, context: PluginContext, sources: [URL]) throws -> Command {
        let work = context.pluginWorkDirectoryURL.appending(path: name)
        let output = context.pluginWorkDirectoryURL.appending(path: "\(name).swift")
        return .buildCommand(
            displayName: "Compiling \(name) to WebAssembly",
            executable: try context.tool(named: "cardbox-wasm-build").url,
            arguments: [
                try context.tool(named: "swiftc").url.path, try context.tool(named: "clang").url.path,
                try context.tool(named: "wasm-ld").url.path, work.path, output.path, name,
            ] + sources.map(\.path),
            inputFiles: sources, outputFiles: [output])
    }
}

struct PluginError: Error, CustomStringConvertible {
    let description: String
}
