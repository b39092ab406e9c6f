import Foundation

/// The browser's WebAssembly modules, built from Cardbox's own Swift by the WasmModules plugin
/// (`FSRSWasm`, `ReplicaWasm`: base64 text in generated sources), as bytes.
public enum WebAssemblyModules {
    /// The FSRS step (`Sources/CardboxFSRS`): what `scheduler.js` loads.
    public static let scheduler = Data(base64Encoded: FSRSWasm.base64) ?? Data()
    /// The replica (`Sources/CardboxReplica`): what `replica.js` loads.
    public static let replica = Data(base64Encoded: ReplicaWasm.base64) ?? Data()
}
