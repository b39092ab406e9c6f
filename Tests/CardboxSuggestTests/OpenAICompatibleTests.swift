import CardboxCore
import CardboxImaging
import CardboxStore
import CardboxTestSupport
import Foundation
import Hummingbird
import NIOCore
import Testing

@testable import CardboxSuggest
@testable import CardboxSuggestServices

/// A local server speaking OpenAI's chat-completions and image-generation protocol: it checks the
/// key and answers each request with what the test put in `replies` (by path), remembering what
/// it was sent.
final class FakeOpenAI: @unchecked Sendable {
    private let lock = NSLock()
    private var replies: [String: [(status: HTTPResponse.Status, body: String)]] = [:]
    private(set) var received: [(path: String, authorization: String?, body: [String: Any])] = []

    func reply(_ path: String, status: HTTPResponse.Status = .ok, _ body: String) {
        lock.withLock { replies[path, default: []].append((status, body)) }
    }

    func requests(_ path: String) -> [[String: Any]] {
        lock.withLock { received.filter { $0.path == path }.map(\.body) }
    }

    var authorizations: [String?] { lock.withLock { received.map(\.authorization) } }

    private func answer(_ path: String, _ request: Request) async throws -> Response {
        let bytes = try await request.body.collect(upTo: 1 << 20)
        let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
        let next: (status: HTTPResponse.Status, body: String)? = lock.withLock {
            received.append((path, request.headers[.authorization], json))
            return replies[path]?.isEmpty == false ? replies[path]!.removeFirst() : nil
        }
        let reply = next ?? (.internalServerError, #"{"error": {"message": "no reply queued"}}"#)
        return Response(
            status: reply.status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: reply.body)))
    }

    /// Runs the server on a free loopback port for `body`.
    func serve(_ body: (String) async throws -> Void) async throws {
        let router = Router()
        router.post("v1/chat/completions") { request, _ in try await self.answer("chat", request) }
        router.post("v1/images/generations") { request, _ in try await self.answer("images", request) }
        let server = try await LoopbackServer.start(router)
        try await server.serving { port in try await body("http://127.0.0.1:\(port)/v1") }
    }

    /// A chat completion whose message is `content`.
    static func completion(_ content: String) -> String {
        let encoded = String(decoding: try! JSONEncoder().encode(content), as: UTF8.self)
        return
            #"{"id": "c1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": \#(encoded)}}]}"#
    }
}

@Suite("The OpenAI-compatible adapters, against a local server speaking the protocol")
struct OpenAICompatibleTests {
    let request = SuggestionRequest(
        deckName: "Spanish", frontLanguage: "es", backLanguage: "en",
        cards: [.init(front: "el perro", back: "dog")], limitPerCategory: 2, excludedFronts: ["perro", "el perro"])

    @Test("chat completions: asks for JSON with the deck, reads and checks the suggestions")
    func chat() async throws {
        let fake = FakeOpenAI()
        fake.reply(
            "chat",
            FakeOpenAI.completion(
                """
                ```json
                {"suggestions": [
                  {"front": "el gato", "back": "cat", "category": "related_vocabulary", "context": "Another pet", "imagePrompt": "a cat"},
                  {"front": "El perro", "back": "dog", "category": "related_vocabulary", "context": "taken"},
                  {"front": "la casa", "back": "house", "category": "no_such_category", "context": "bad category"},
                  {"front": "", "back": "empty", "category": "opposites"},
                  {"front": "pequeño", "back": "small", "category": "opposites", "context": "The opposite of grande"}
                ]}
                ```
                """))
        try await fake.serve { base in
            let provider = ChatCompletionsSuggestionProvider(
                service: try OpenAICompatibleService(baseURL: base, model: "test-model", apiKey: "sk-test"))
            let drafts = try await provider.candidates(for: request)
            #expect(drafts.map(\.front) == ["el gato", "pequeño"])
            #expect(drafts[0].category == .relatedVocabulary && drafts[0].context == "Another pet")
            #expect(drafts[0].imagePrompt == "a cat")
            #expect(drafts[1].category == .opposites)
        }
        let sent = try #require(fake.requests("chat").first)
        #expect(sent["model"] as? String == "test-model")
        #expect((sent["response_format"] as? [String: Any])?["type"] as? String == "json_object")
        let messages = try #require(sent["messages"] as? [[String: Any]])
        #expect((messages.last?["content"] as? String)?.contains("el perro → dog") == true)
        #expect(fake.authorizations == ["Bearer sk-test"])
    }

    @Test("a reply that is not the JSON asked for, or an error status, is a clear error")
    func badReplies() async throws {
        let fake = FakeOpenAI()
        fake.reply("chat", FakeOpenAI.completion("Sure! Here are some cards: gato, casa."))
        fake.reply("chat", #"{"not": "a completion"}"#)
        fake.reply("chat", status: .unauthorized, #"{"error": {"message": "Incorrect API key provided"}}"#)
        try await fake.serve { base in
            let provider = ChatCompletionsSuggestionProvider(
                service: try OpenAICompatibleService(baseURL: base, model: "m", apiKey: nil))
            for expected in [
                "is not the JSON asked for", "is not a chat completion", "answered 401: Incorrect API key",
            ] {
                do {
                    _ = try await provider.candidates(for: request)
                    Issue.record("a bad reply was taken")
                } catch {
                    #expect("\(error)".contains(expected), "\(error)")
                }
            }
        }
        #expect(fake.authorizations == [nil, nil, nil])
    }

    @Test("images: base 64 in, a checked image out; a bad one fails the attempt")
    func images() async throws {
        let fake = FakeOpenAI()
        let picture = try ImageIngest.sample(width: 64, height: 64, format: .png)
        fake.reply("images", #"{"created": 1, "data": [{"b64_json": "\#(picture.base64EncodedString())"}]}"#)
        fake.reply("images", #"{"created": 1, "data": []}"#)
        try await fake.serve { base in
            let provider = OpenAIImageProvider(
                service: try OpenAICompatibleService(baseURL: base, model: "image-model", apiKey: "k"))
            let image = try await provider.image(for: ImageRequest(front: "el gato", back: "cat", prompt: "a cat"))
            #expect(image == picture)
            await #expect(throws: CardboxError.self) {
                _ = try await provider.image(for: ImageRequest(front: "x", back: "y", prompt: nil))
            }
        }
        let sent = try #require(fake.requests("images").first)
        #expect(sent["model"] as? String == "image-model" && (sent["prompt"] as? String)?.contains("a cat") == true)
    }

    @Test("the service's settings: an http(s) base URL and a model; the key from the environment")
    func settings() throws {
        #expect(throws: CardboxError.self) {
            _ = try OpenAICompatibleService(baseURL: "ftp://x", model: "m", apiKey: nil)
        }
        #expect(throws: CardboxError.self) {
            _ = try OpenAICompatibleService(baseURL: "http://x", model: " ", apiKey: nil)
        }
        let service = try OpenAICompatibleService.fromEnvironment(
            [
                "CARDBOX_AI_BASE_URL": "http://127.0.0.1:8000/v1/", "OPENAI_API_KEY": "sk-1",
                "CARDBOX_AI_CHAT_MODEL": "llama",
            ],
            modelVariable: "CARDBOX_AI_CHAT_MODEL", fallbackModel: "gpt-4o-mini")
        #expect(
            service
                == (try OpenAICompatibleService(baseURL: "http://127.0.0.1:8000/v1", model: "llama", apiKey: "sk-1")))
        let defaults = try OpenAICompatibleService.fromEnvironment(
            [:], modelVariable: "CARDBOX_AI_CHAT_MODEL", fallbackModel: "gpt-4o-mini")
        #expect(
            defaults.baseURL == "https://api.openai.com/v1" && defaults.model == "gpt-4o-mini" && defaults.apiKey == nil
        )
    }
}
