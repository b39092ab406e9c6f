import CardboxCore
import Foundation

/// How images are kept: seed 002 asks for compression before storage, a thumbnail for lists, and
/// at most 5 MB an image; the numbers beyond that are Cardbox's.
public enum ImagePolicy {
    /// The longest side an image is stored with; a larger one is shrunk to it and re-encoded.
    /// (2048 px is what a phone or laptop screen shows at full width.)
    public static let maximumSide = 2048
    /// JPEG quality of a re-encoded image.
    public static let storedQuality = 85
    /// The longest side of a thumbnail, and its JPEG quality.
    public static let thumbnailSide = 256
    public static let thumbnailQuality = 80
    /// The most pixels an image may declare (a 48-megapixel phone photo fits): a decompression bomb
    /// declares far more, and is refused from its header, before any pixel is decoded.
    public static let maximumPixels = 50_000_000
}

/// An image as Cardbox keeps it: its bytes (the ones given, or re-encoded smaller), their format
/// and size, and a thumbnail.
public struct IngestedImage: Sendable, Equatable {
    public var data: Data
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var thumbnail: Thumbnail
    /// Whether `data` is a re-encoding of what was given (it was larger than `ImagePolicy.maximumSide`).
    public var reencoded: Bool

    public init(data: Data, format: ImageFormat, width: Int, height: Int, thumbnail: Thumbnail, reencoded: Bool) {
        self.data = data
        self.format = format
        self.width = width
        self.height = height
        self.thumbnail = thumbnail
        self.reencoded = reencoded
    }
}

public struct Thumbnail: Sendable, Equatable {
    public var data: Data
    public var mimeType: String
    public var width: Int
    public var height: Int

    public init(data: Data, mimeType: String, width: Int, height: Int) {
        self.data = data
        self.mimeType = mimeType
        self.width = width
        self.height = height
    }
}

/// Decoding, checking, shrinking and thumbnailing images, done by libvips in the image worker
/// processes (`ImageWorkers.shared`).
public enum ImageIngest {
    /// Checks an image by its content and makes its thumbnail: seed 002's type and size rules, its
    /// header's dimensions (refused past `ImagePolicy.maximumPixels` before any pixel is decoded),
    /// and a full decode (a truncated or damaged image is refused). With `keepBytes` the bytes stay
    /// as given (an image fetched by its SHA-256 must keep that hash); otherwise an image larger
    /// than `ImagePolicy.maximumSide` is stored shrunk.
    public static func ingest(_ data: Data, field: String = "image", keepBytes: Bool = false) throws -> IngestedImage {
        try ImageWorkers.shared.ingest(data, field: field, keepBytes: keepBytes)
    }

    /// The image as JPEG at its stored size (at most `ImagePolicy.maximumSide`), for browsers that
    /// cannot show its own format (HEIC).
    public static func displayable(_ data: Data) throws -> Data {
        try ImageWorkers.shared.displayable(data)
    }

    /// A square JPEG picture of `size` pixels: `title` large and centred, `caption` beneath, in
    /// white over `color` (red, green, blue). Both texts are plain text.
    public static func renderCard(
        title: String, caption: String, size: Int = 512, color: (Int, Int, Int), quality: Int = 85
    ) throws -> Data {
        try ImageWorkers.shared.renderCard(title: title, caption: caption, size: size, color: color, quality: quality)
    }

    /// A real, photo-like image (a gradient with noise) in `format`: for tests and benchmarks.
    public static func sample(width: Int, height: Int, seed: Int = 1, format: ImageFormat) throws -> Data {
        try ImageWorkers.shared.sample(width: width, height: height, seed: seed, format: format)
    }
}
