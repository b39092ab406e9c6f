import Foundation
import PackagePlugin

/// Compiles the FSRS step (`Sources/CardboxFSRS`, with `Wasm/FSRSExports.swift`) to WebAssembly
/// with the toolchain's own Embedded Swift and `wasm-ld`, and hands the module to the target as a
/// Swift file (`FSRSWasm.base64`), so `cardbox serve` carries it in its binary.
@main
struct WasmScheduler: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let core = try context.package.targets(named: ["CardboxFSRS"]).first as? SourceModuleTarget else {
            throw PluginError(description: "the package has no CardboxFSRS target to compile to WebAssembly")
        }
        let sources =
            core.sourceFiles(withSuffix: "swift").map(\.url)
            + [context.package.directoryURL.appending(path: "Wasm/FSRSExports.swift")]
        let work = context.pluginWorkDirectoryURL
        let output = work.appending(path: "FSRSWasm.swift")
        return [
            .buildCommand(
                displayName: "Compiling the FSRS step to WebAssembly",
                executable: try context.tool(named: "cardbox-wasm-build").url,
                arguments: [
                    try context.tool(named: "swiftc").url.path, try context.tool(named: "wasm-ld").url.path,
                    work.path, output.path,
                ] + sources.map(\.path),
                inputFiles: sources, outputFiles: [output])
        ]
    }
}

struct PluginError: Error, CustomStringConvertible {
    let description: String
}
