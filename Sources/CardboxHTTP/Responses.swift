import CardboxCore
import CardboxServer
import CardboxWire
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// A JSON answer.
struct JSONResponse: ResponseGenerator {
    /// The body: compact JSON with sorted keys.
    var text: String
    var status: HTTPResponse.Status = .ok

    /// A body already written as JSON (a pull page, whose change set writes itself faster than a
    /// value tree does).
    init(text: String, status: HTTPResponse.Status = .ok) {
        self.text = text
        self.status = status
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }
}

/// A JSON answer written by the coders every body goes through (`WireCoding`).
struct EncodedJSON<Value: Encodable>: ResponseGenerator {
    var value: Value
    var status: HTTPResponse.Status = .ok

    init(_ value: Value, status: HTTPResponse.Status = .ok) {
        self.value = value
        self.status = status
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: try body()))
    }

    /// The answer's body: the value's JSON and a line end.
    func body() throws -> ByteBuffer {
        var data = try WireCoding.encoder().encode(value)
        data.append(UInt8(ascii: "\n"))
        return ByteBuffer(bytes: data)
    }
}

/// An error the API answers with its own status; the body is `{"error": message}`.
struct APIError: Error {
    var status: HTTPResponse.Status
    var message: String
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }
}

/// Turns every error into a JSON answer with a fitting 4xx status, so a client always reads
/// `{"error": "…"}`; only the server's own failures are 500s, logged with the request.
struct JSONErrorMiddleware: RouterMiddleware {
    typealias Context = CardboxRequestContext
    /// What a 405 names (filled once the router's routes are added).
    let routes: RouteMethods

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            // A known path asked with a method it does not take: 405, saying which it takes. (One
            // this server does not serve at all, `/metrics` on its own address, stays a 404.)
            guard let allowed = routes.methods(for: request.uri.path),
                !allowed.contains(request.method.rawValue)
            else {
                return Self.response(for: error, request, context)
            }
            let list = allowed.joined(separator: ", ")
            let refusal = APIError(.methodNotAllowed, "\(request.uri.path) takes \(list)", headers: [.allow: list])
            return Self.response(for: refusal, request, context)
        } catch {
            return Self.response(for: error, request, context)
        }
    }

    private static func response(for error: any Error, _ request: Request, _ context: Context) -> Response {
        // A person who mistyped an address reads a page; a program (and the API's paths) reads JSON.
        if Self.wantsPage(request) { return WebPage.errorPage(error, context: context) }
        let answer = Self.answer(for: error)
        if answer.status.code >= 500 {
            context.logger.error(
                "request failed", metadata: ["path": "\(request.uri.path)", "error": "\(String(reflecting: error))"])
        }
        var headers = answer.headers
        headers[.contentType] = "application/json"
        let body = (try? EncodedJSON(ErrorReply(error: answer.message)).body()) ?? ByteBuffer()
        return Response(status: answer.status, headers: headers, body: .init(byteBuffer: body))
    }

    /// Whether the request is a browser's for a page: it takes HTML, and its path is none of the
    /// API's, the sync's or the files'.
    static func wantsPage(_ request: Request) -> Bool {
        let path = request.uri.path
        guard request.headers[.accept]?.contains("text/html") == true else { return false }
        return !["/v1/", "/api/", "/static/", "/images/", "/metrics", "/openapi.yaml"].contains { path.hasPrefix($0) }
    }

    static func answer(for error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as SignInThrottled:
            return APIError(
                .tooManyRequests, error.errorDescription ?? "too many requests",
                headers: [.retryAfter: String(error.retryAfter)])
        case let error as PasswordWorkBusy:
            return APIError(
                .tooManyRequests, error.errorDescription ?? "too many requests",
                headers: [.retryAfter: String(PasswordWorkBusy.retryAfter)])
        case let error as ClientLeft:
            // No one reads it: the status is for the access log.
            return APIError(.requestTimeout, error.errorDescription ?? "the client left")
        case let error as SetupClosed:
            return APIError(.forbidden, error.errorDescription ?? "setup is over")
        case let error as SetupLinkRefused:
            return APIError(.forbidden, error.errorDescription ?? "this setup link is not valid")
        case let error as CardboxError:
            let message = error.errorDescription ?? "\(error)"
            switch error {
            case .notFound: return APIError(.notFound, message)
            case .alreadyExists: return APIError(.conflict, message)
            case .cardLimitExceeded: return APIError(.forbidden, message)
            case .storage: return APIError(.internalServerError, "the server failed; try again later")
            default:
                return error == AccountService.wrongCredentials
                    ? APIError(.unauthorized, message) : APIError(.badRequest, message)
            }
        case let error as HTTPError:
            return APIError(error.status, error.body ?? error.status.reasonPhrase)
        case let error as HTTPParserError:
            // The client's mistake (a malformed chunked body, say): not a failure worth a log line.
            return APIError(.badRequest, "the request is not well-formed HTTP (\(error))")
        default:
            return APIError(.internalServerError, "the server failed; try again later")
        }
    }
}

/// The headers every answer carries, whatever made it (a page, the API, an error, a refusal before
/// any route): no sniffing, no framing, the pages' content policy where the answer has none, and,
/// when browsers reach the server over HTTPS, HSTS.
struct ResponsePolicy: RouterMiddleware {
    typealias Context = CardboxRequestContext
    /// Whether browsers reach the server over HTTPS (its own TLS, or an https public address).
    let secure: Bool

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        for field in WebSession.securityHeaders where response.headers[field.name] == nil {
            response.headers.append(field)
        }
        if secure, response.headers[.strictTransportSecurity] == nil {
            response.headers[.strictTransportSecurity] = "max-age=31536000"
        }
        return response
    }
}
