import AsyncHTTPClient
import CardboxStore
import CardboxSyncClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Synchronization

/// Servers the tests run in this process without a socket. Each answers at an address of its own
/// (`http://router-….test`): a request for it goes straight to that server's router
/// (HummingbirdTesting's `.router` client, over the application `cardbox serve` runs); a request
/// for any other address goes over the network. Devices (`DeviceSync`, `ServerConnection`), the
/// headless browser and the raw requests all send through a `TestTransport`, so one test body runs
/// against either kind of server.
enum InProcessServers {
    private static let routers = Mutex<[String: any TestClientProtocol]>([:])

    /// Makes `client` answer at a new address for the length of `body`.
    static func serving<T>(_ client: any TestClientProtocol, _ body: (_ url: String) async throws -> T)
        async throws -> T
    {
        let url = "http://router-\(UUID().uuidString.prefix(8).lowercased()).test"
        routers.withLock { $0[url] = client }
        defer { _ = routers.withLock { $0.removeValue(forKey: url) } }
        return try await body(url)
    }

    /// The router that answers at the start of `url`, and the rest of it (the path and query).
    static func router(for url: String) -> (client: any TestClientProtocol, path: String)? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let pathStart = url[schemeEnd.upperBound...].firstIndex(of: "/") ?? url.endIndex
        guard let client = routers.withLock({ $0[String(url[..<pathStart])] }) else { return nil }
        let path = url[pathStart...]
        return (client, path.isEmpty ? "/" : String(path))
    }
}

/// Sends to an in-process server when the address is one, else over `network`.
struct TestTransport: HTTPTransport {
    let network: any HTTPTransport

    /// The devices' transport: the network as `cardbox sync` reaches it.
    static let devices = TestTransport(network: ServerConnection.client)

    func send(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        guard let (client, path) = InProcessServers.router(for: request.url) else {
            return try await network.send(request, timeout: timeout)
        }
        // As the network client does: a cancelled task sends nothing more.
        try Task.checkCancellation()
        guard let method = HTTPRequest.Method(request.method.rawValue) else {
            throw HTTPClientError.invalidURL
        }
        var fields = HTTPFields()
        for header in request.headers {
            guard let name = HTTPField.Name(header.name) else { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        var body: ByteBuffer?
        if let parts = request.body {
            var collected = ByteBuffer()
            for try await part in parts { collected.writeImmutableBuffer(part) }
            body = collected
        }
        let answer = try await client.executeRequest(uri: path, method: method, headers: fields, body: body)
        var headers = HTTPHeaders()
        for field in answer.headers { headers.add(name: field.name.rawName, value: field.value) }
        return HTTPClientResponse(
            status: HTTPResponseStatus(statusCode: Int(answer.status.code)), headers: headers, body: .bytes(answer.body)
        )
    }
}

extension DeviceSync {
    /// A device's sync as the tests run it: into an in-process server at its address, or over the network.
    init(testing store: CardboxStore) { self.init(store: store, transport: TestTransport.devices) }
}
