import CardboxCore
import CardboxSuggest
import Foundation

/// The providers a command or the server can be told to use, by name.
public enum ProviderChoice {
    public static let suggestionNames = ["offline", "chat"]
    public static let imageNames = ["drawn", "openai", "none"]

    /// `offline` (WordNet and FreeDict) or `chat` (an OpenAI-compatible chat-completions service
    /// configured by `CARDBOX_AI_BASE_URL`, `CARDBOX_AI_CHAT_MODEL` and `CARDBOX_AI_API_KEY`).
    public static func suggestions(
        _ name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> any SuggestionProvider {
        switch name {
        case "offline": return DictionarySuggestionProvider()
        case "chat":
            return ChatCompletionsSuggestionProvider(
                service: try .fromEnvironment(
                    environment, modelVariable: "CARDBOX_AI_CHAT_MODEL", fallbackModel: "gpt-4o-mini"))
        default:
            throw CardboxError.invalid(
                field: "suggestions", reason: "'\(name)' is not one of \(suggestionNames.joined(separator: ", "))")
        }
    }

    /// `drawn` (pictures drawn here with libvips), `openai` (an OpenAI-compatible image service,
    /// `CARDBOX_AI_IMAGE_MODEL`), or `none` (suggestions wait for an image attached by hand).
    public static func images(
        _ name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> (any ImageProvider)? {
        switch name {
        case "drawn": return RenderedImageProvider()
        case "openai":
            return OpenAIImageProvider(
                service: try .fromEnvironment(
                    environment, modelVariable: "CARDBOX_AI_IMAGE_MODEL", fallbackModel: "gpt-image-1"))
        case "none": return nil
        default:
            throw CardboxError.invalid(
                field: "images", reason: "'\(name)' is not one of \(imageNames.joined(separator: ", "))")
        }
    }
}
