import AsyncHTTPClient
import CardboxCore
import CardboxSuggest
import Foundation
import NIOCore
import NIOHTTP1

/// Where an OpenAI-compatible service is and how to reach it: OpenAI itself, or any server that
/// speaks its API (a local llama.cpp or vLLM, LocalAI, Ollama's `/v1`).
public struct OpenAICompatibleService: Sendable, Equatable {
    public var baseURL: String
    public var model: String
    public var apiKey: String?

    public init(baseURL: String, model: String, apiKey: String?) throws {
        var base = baseURL.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw CardboxError.invalid(field: "base URL", reason: "'\(baseURL)' is not an http(s) URL")
        }
        guard !model.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CardboxError.invalid(field: "model", reason: "cannot be empty")
        }
        self.baseURL = base
        self.model = model
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// From the environment: `CARDBOX_AI_BASE_URL` (default OpenAI's), the model in `modelVariable`
    /// (else `fallbackModel`), and the key in `CARDBOX_AI_API_KEY` or `OPENAI_API_KEY`. The key is
    /// read from the environment only: settings sync to every device and the server.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, modelVariable: String,
        fallbackModel: String
    ) throws -> OpenAICompatibleService {
        try OpenAICompatibleService(
            baseURL: environment["CARDBOX_AI_BASE_URL"] ?? "https://api.openai.com/v1",
            model: environment[modelVariable] ?? fallbackModel,
            apiKey: environment["CARDBOX_AI_API_KEY"] ?? environment["OPENAI_API_KEY"])
    }

    /// POSTs a JSON body to `path` and returns the response body, or an error naming the service,
    /// its status and its own message.
    func post(_ path: String, json body: Data, client: HTTPClient, timeout: TimeAmount) async throws -> Data {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let apiKey { request.headers.add(name: "Authorization", value: "Bearer \(apiKey)") }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeout)
        } catch {
            throw CardboxError.invalid(field: "AI service", reason: "\(baseURL)\(path) could not be reached: \(error)")
        }
        let bytes = try await response.body.collect(upTo: 32 << 20)
        let data = Data(bytes.readableBytesView)
        guard (200..<300).contains(response.status.code) else {
            let message = (try? JSONDecoder().decode(ErrorBody.self, from: data))?.error.message
            throw CardboxError.invalid(
                field: "AI service",
                reason: "\(baseURL)\(path) answered \(response.status.code)"
                    + (message.map { ": \($0)" } ?? ""))
        }
        return data
    }

    struct ErrorBody: Decodable {
        struct Detail: Decodable { var message: String }
        var error: Detail
    }
}

/// Suggestions from a chat-completions service: the deck and the wanted categories go in, a JSON
/// object with the suggestions comes back (asked for with `response_format: json_object`), and is
/// checked: a reply that is not that JSON is an error; a suggestion in it that breaks a rule (an
/// unknown category, an empty front) is dropped.
public struct ChatCompletionsSuggestionProvider: SuggestionProvider {
    public let service: OpenAICompatibleService
    let client: HTTPClient
    let timeout: TimeAmount

    public var name: String { "chat completions (\(service.model))" }

    public init(service: OpenAICompatibleService, client: HTTPClient = .shared, timeout: TimeAmount = .seconds(120)) {
        self.service = service
        self.client = client
        self.timeout = timeout
    }

    struct Body: Encodable {
        struct Message: Encodable {
            var role: String
            var content: String
        }
        struct ResponseFormat: Encodable { var type = "json_object" }
        var model: String
        var messages: [Message]
        var response_format = ResponseFormat()
        var temperature = 0.7
    }

    struct Reply: Decodable {
        struct Choice: Decodable {
            struct Message: Decodable { var content: String? }
            var message: Message
        }
        var choices: [Choice]
    }

    struct Suggested: Decodable {
        var front: String?
        var back: String?
        var category: String?
        var context: String?
        var imagePrompt: String?
    }

    struct Suggestions: Decodable { var suggestions: [Suggested] }

    public func candidates(for request: SuggestionRequest) async throws -> [SuggestionDraft] {
        let body = Body(
            model: service.model,
            messages: [
                .init(role: "system", content: Self.instructions), .init(role: "user", content: Self.ask(request)),
            ])
        let data = try await service.post(
            "/chat/completions", json: try JSONEncoder().encode(body), client: client, timeout: timeout)
        return try Self.read(data, request: request)
    }

    static let instructions = """
        You write flashcards for a language learner's deck. Answer with one JSON object only:
        {"suggestions": [{"front": "...", "back": "...", "category": "...", "context": "...", "imagePrompt": "..."}]}
        category is one of related_vocabulary (words related to the deck's cards), usage_examples (example
        sentences and usage contexts), opposites (antonyms and contrasting concepts) and progressive_complexity
        (more advanced related concepts). context says in one sentence why the card is suggested. imagePrompt
        describes a simple picture for the card. The front is in the deck's front language, the back in its
        back language. Never repeat a front the deck already has.
        """

    static func ask(_ request: SuggestionRequest) -> String {
        let cards = request.cards.prefix(50).map { "- \($0.front) → \($0.back)" }.joined(separator: "\n")
        let taken = request.excludedFronts.sorted().prefix(300).joined(separator: "; ")
        return """
            Deck: \(request.deckName)
            Front language: \(Language.name(of: request.frontLanguage)); back language: \(Language.name(of: request.backLanguage))
            Its newest cards:
            \(cards)
            Fronts it already has (do not suggest these): \(taken)
            Suggest up to \(request.limitPerCategory) cards in each of the four categories.
            """
    }

    /// The suggestions in a reply, checked.
    static func read(_ data: Data, request: SuggestionRequest) throws -> [SuggestionDraft] {
        let reply: Reply
        do {
            reply = try JSONDecoder().decode(Reply.self, from: data)
        } catch {
            throw CardboxError.invalid(field: "AI service", reason: "its reply is not a chat completion: \(error)")
        }
        guard let content = reply.choices.first?.message.content else {
            throw CardboxError.invalid(field: "AI service", reason: "its reply has no message content")
        }
        let suggested: Suggestions
        do {
            suggested = try JSONDecoder().decode(Suggestions.self, from: Data(Self.jsonObject(in: content).utf8))
        } catch {
            throw CardboxError.invalid(
                field: "AI service",
                reason: "its message is not the JSON asked for ({\"suggestions\": [...]}): \(content.prefix(200))")
        }
        var fronts = request.excludedFronts
        var drafts: [SuggestionDraft] = []
        var perCategory: [SuggestionCategory: Int] = [:]
        for item in suggested.suggestions {
            guard let category = item.category.flatMap({ try? SuggestionCategory.validate($0) }),
                perCategory[category, default: 0] < request.limitPerCategory,
                let draft = try? SuggestionDraft(
                    front: item.front ?? "", back: item.back ?? "", imagePrompt: item.imagePrompt,
                    context: item.context ?? "", category: category
                ).validated(),
                !draft.back.isEmpty,
                fronts.insert(SuggestionMatch.frontKey(draft.front)).inserted
            else { continue }
            perCategory[category, default: 0] += 1
            drafts.append(draft)
        }
        return drafts
    }

    /// Models sometimes wrap the object in a Markdown code fence: the object itself.
    static func jsonObject(in content: String) -> String {
        guard let start = content.firstIndex(of: "{"), let end = content.lastIndex(of: "}"), start < end else {
            return content
        }
        return String(content[start...end])
    }
}

/// Suggestion images from an OpenAI-compatible `images/generations` endpoint: the picture comes back
/// as base 64 (`b64_json`) or, from some servers, as a URL fetched at once.
public struct OpenAIImageProvider: ImageProvider {
    public let service: OpenAICompatibleService
    public let size: String
    let client: HTTPClient
    let timeout: TimeAmount

    public var name: String { "image generation (\(service.model))" }

    public init(
        service: OpenAICompatibleService, size: String = "1024x1024", client: HTTPClient = .shared,
        timeout: TimeAmount = .seconds(180)
    ) {
        self.service = service
        self.size = size
        self.client = client
        self.timeout = timeout
    }

    struct Body: Encodable {
        var model: String
        var prompt: String
        var n = 1
        var size: String
    }

    struct Reply: Decodable {
        struct Picture: Decodable {
            var b64_json: String?
            var url: String?
        }
        var data: [Picture]
    }

    public func image(for request: ImageRequest) async throws -> Data {
        let prompt = request.prompt.flatMap { $0.isEmpty ? nil : $0 } ?? "\(request.front) (\(request.back))"
        let body = Body(
            model: service.model, prompt: "A simple, clear illustration for a flashcard: \(prompt)", size: size)
        let data = try await service.post(
            "/images/generations", json: try JSONEncoder().encode(body), client: client, timeout: timeout)
        guard let picture = (try? JSONDecoder().decode(Reply.self, from: data))?.data.first else {
            throw CardboxError.invalid(field: "AI service", reason: "its reply has no image (expected data[0])")
        }
        if let base64 = picture.b64_json {
            guard let bytes = Data(base64Encoded: base64) else {
                throw CardboxError.invalid(field: "AI service", reason: "its image is not valid base 64")
            }
            return bytes
        }
        if let url = picture.url {
            var fetch = HTTPClientRequest(url: url)
            fetch.method = .GET
            let response = try await client.execute(fetch, timeout: timeout)
            guard response.status == .ok else {
                throw CardboxError.invalid(
                    field: "AI service", reason: "its image URL answered \(response.status.code)")
            }
            return Data(try await response.body.collect(upTo: Limits.imageBytes + 1).readableBytesView)
        }
        throw CardboxError.invalid(field: "AI service", reason: "its image has neither b64_json nor url")
    }
}
