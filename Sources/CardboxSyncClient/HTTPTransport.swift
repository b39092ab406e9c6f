import AsyncHTTPClient
import NIOCore

/// Where a connection's requests go. A device reaches its server over the network through
/// AsyncHTTPClient's `HTTPClient`; the tests hand requests straight to a server's router in the
/// same process (no socket), through the same `ServerConnection` and `DeviceSync`.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and answers the server's response, its body still to be read.
    func send(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse
}

extension HTTPClient: HTTPTransport {
    public func send(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        try await execute(request, timeout: timeout)
    }
}
