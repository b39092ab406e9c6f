import CardboxCore
import CardboxImaging
import CardboxStore
import Foundation

/// What an image is asked for: the suggested card, and the prompt its provider wrote.
public struct ImageRequest: Sendable, Equatable {
    public var front: String
    public var back: String
    public var prompt: String?

    public init(front: String, back: String, prompt: String?) {
        self.front = front
        self.back = back
        self.prompt = prompt
    }
}

/// A source of suggestion images (seed 000's "background image generation").
public protocol ImageProvider: Sendable {
    var name: String { get }
    /// The image's bytes (JPEG, PNG or HEIC); thrown errors are failed attempts, retried later.
    func image(for request: ImageRequest) async throws -> Data
}

/// The offline default: a real picture drawn from the card with libvips and Pango, its front large
/// over a colour of its own, its back beneath.
public struct RenderedImageProvider: ImageProvider {
    public var name: String { "drawn pictures (libvips)" }

    /// Calm colours dark enough for white text; a card always gets the same one.
    static let palette: [(Int, Int, Int)] = [
        (38, 84, 124), (46, 125, 50), (123, 31, 162), (183, 28, 28), (0, 105, 92), (69, 90, 100), (191, 54, 12),
        (40, 53, 147),
    ]

    public init() {}

    public func image(for request: ImageRequest) async throws -> Data {
        let caption = request.back.split(separator: "\n").first.map(String.init) ?? ""
        return try ImageIngest.renderCard(
            title: request.front, caption: String(caption.prefix(120)), color: Self.color(for: request.front))
    }

    static func color(for text: String) -> (Int, Int, Int) {
        // FNV-1a: stable across runs and machines, unlike Hasher.
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return palette[Int(hash % UInt32(palette.count))]
    }
}

/// What one pass of the image pipeline did.
public struct ImagePipelineReport: Sendable, Codable, Equatable {
    /// Suggestions that got their image and became visible.
    public var made: [Suggestion] = []
    /// Suggestions whose attempt failed and that wait for another, with the reason.
    public var retrying: [Failure] = []
    /// Suggestions removed after `ImageRetry.maximumFailures` failed attempts.
    public var removed: [Failure] = []

    public struct Failure: Sendable, Codable, Equatable {
        public var suggestionId: SuggestionID
        public var front: String
        public var reason: String
        public var nextAttemptAt: Date?
    }

    public init() {}
}

/// Seed 000's image pipeline: each invisible suggestion due for an attempt asks the provider for its
/// image; a made image makes it visible; a failure leaves it invisible with a doubling wait, and
/// the last allowed failure removes it. The attempts live in the store, so a restart resumes them.
public enum ImagePipeline {
    /// The jobs one run takes at most: a run that took this many may have left more due.
    public static let jobsPerRun = 20

    public static func run(
        in workspace: any SuggestionWorkspace, provider: any ImageProvider, limit: Int = jobsPerRun
    ) async throws -> ImagePipelineReport {
        var report = ImagePipelineReport()
        for job in try await workspace.dueImageJobs(limit: limit) {
            let suggestion = job.suggestion
            let request = ImageRequest(front: suggestion.front, back: suggestion.back, prompt: suggestion.imagePrompt)
            do {
                let image = try await provider.image(for: request)
                if let ready = try await workspace.completeImageJob(suggestion.id, image: image) {
                    report.made.append(ready)
                }
            } catch let error as CancellationError {
                throw error
            } catch {
                let reason = "\(error)"
                switch try await workspace.failImageJob(suggestion.id, reason: reason) {
                case .retry(let at, _):
                    report.retrying.append(
                        .init(suggestionId: suggestion.id, front: suggestion.front, reason: reason, nextAttemptAt: at))
                case .removed:
                    report.removed.append(
                        .init(suggestionId: suggestion.id, front: suggestion.front, reason: reason, nextAttemptAt: nil))
                }
            }
        }
        return report
    }
}
