import Foundation

// CardboxError is in CardboxReplica (no Foundation: the browser's WebAssembly build throws it too).

extension CardboxError: LocalizedError {
    public var errorDescription: String? { message }
}
