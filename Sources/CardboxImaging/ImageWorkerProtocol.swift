import CardboxCore
import Foundation

/// One piece of image work, as the image worker process is asked for it. The image it works on, if
/// any, travels beside it as the message's first blob.
public enum ImageJob: Codable, Sendable, Equatable {
    /// `ImageIngest.ingest`: check, shrink if needed, thumbnail.
    case ingest(field: String, keepBytes: Bool)
    /// `ImageIngest.displayable`: the image as JPEG.
    case displayable
    /// `ImageIngest.renderCard`.
    case renderCard(title: String, caption: String, size: Int, red: Int, green: Int, blue: Int, quality: Int)
    /// `ImageIngest.sample`.
    case sample(width: Int, height: Int, seed: Int, format: ImageFormat)
}

/// What the worker answers. An ingested image's bytes and thumbnail are the blobs `[data, thumbnail]`;
/// an encoded picture is the one blob.
public enum ImageJobOutcome: Codable, Sendable, Equatable {
    case ingested(IngestedShape)
    case encoded
    /// The image was refused (damaged, too large, …): the error a person sees.
    case refused(field: String, reason: String)
}

/// An ingested image without its bytes.
public struct IngestedShape: Codable, Sendable, Equatable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var reencoded: Bool
    public var thumbnailMimeType: String
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int

    public init(_ image: IngestedImage) {
        format = image.format
        width = image.width
        height = image.height
        reencoded = image.reencoded
        thumbnailMimeType = image.thumbnail.mimeType
        thumbnailWidth = image.thumbnail.width
        thumbnailHeight = image.thumbnail.height
    }

    func image(data: Data, thumbnail: Data) -> IngestedImage {
        IngestedImage(
            data: data, format: format, width: width, height: height,
            thumbnail: Thumbnail(
                data: thumbnail, mimeType: thumbnailMimeType, width: thumbnailWidth, height: thumbnailHeight),
            reencoded: reencoded)
    }
}

/// A message between a process and its image worker: a JSON header (`ImageJob` or `ImageJobOutcome`)
/// and the blobs it names, framed as big-endian 32-bit lengths: header length, header, blob count,
/// then each blob's length and bytes. Binary rather than JSON throughout: an image is megabytes, and
/// base64 would grow it by a third and cost an encoding each way.
public struct WorkerMessage: Equatable, Sendable {
    public var header: Data
    public var blobs: [Data]

    /// Bounds a reader holds the other side to: a header is a few hundred bytes, a message carries
    /// an image and its thumbnail, and no image the worker sees or makes is near 64 MiB.
    public static let maximumHeaderBytes = 1 << 20
    public static let maximumBlobs = 4
    public static let maximumBlobBytes = 64 << 20

    public init(header: Data, blobs: [Data]) {
        self.header = header
        self.blobs = blobs
    }

    public init<Header: Encodable>(_ header: Header, blobs: [Data] = []) throws {
        self.init(header: try JSONEncoder().encode(header), blobs: blobs)
    }

    public func decodedHeader<Header: Decodable>(as type: Header.Type) throws -> Header {
        do {
            return try JSONDecoder().decode(type, from: header)
        } catch {
            throw WorkerMessageError.malformed("its header is not a \(type): \(error)")
        }
    }

    public var encoded: Data {
        var out = Data()
        out.reserveCapacity(12 + header.count + blobs.reduce(0) { $0 + 4 + $1.count })
        Self.appendLength(header.count, to: &out)
        out.append(header)
        Self.appendLength(blobs.count, to: &out)
        for blob in blobs {
            Self.appendLength(blob.count, to: &out)
            out.append(blob)
        }
        return out
    }

    /// Reads one message through `read`, which fills its buffer completely or throws.
    public static func read(_ read: (inout [UInt8]) throws -> Void) throws -> WorkerMessage {
        let headerLength = try readLength(read, limit: maximumHeaderBytes, what: "header")
        let header = try readBytes(read, count: headerLength)
        let count = try readLength(read, limit: maximumBlobs, what: "blob count")
        var blobs: [Data] = []
        for _ in 0..<count {
            let length = try readLength(read, limit: maximumBlobBytes, what: "blob")
            blobs.append(try readBytes(read, count: length))
        }
        return WorkerMessage(header: header, blobs: blobs)
    }

    /// Decodes a whole message from bytes (what the fuzz target feeds); trailing bytes are refused.
    public static func decode(_ data: Data) throws -> WorkerMessage {
        var offset = data.startIndex
        let message = try read { buffer in
            guard data.endIndex - offset >= buffer.count else { throw WorkerMessageError.ended }
            buffer = [UInt8](data[offset..<offset + buffer.count])
            offset += buffer.count
        }
        guard offset == data.endIndex else { throw WorkerMessageError.malformed("bytes follow its end") }
        return message
    }

    private static func appendLength(_ length: Int, to out: inout Data) {
        let value = UInt32(length).bigEndian
        withUnsafeBytes(of: value) { out.append(contentsOf: $0) }
    }

    private static func readLength(
        _ read: (inout [UInt8]) throws -> Void, limit: Int, what: String
    ) throws -> Int {
        var bytes = [UInt8](repeating: 0, count: 4)
        try read(&bytes)
        let length = bytes.reduce(0) { $0 << 8 | Int($1) }
        guard length <= limit else {
            throw WorkerMessageError.malformed("its \(what) length \(length) is over the limit of \(limit)")
        }
        return length
    }

    private static func readBytes(_ read: (inout [UInt8]) throws -> Void, count: Int) throws -> Data {
        guard count > 0 else { return Data() }
        var bytes = [UInt8](repeating: 0, count: count)
        try read(&bytes)
        return Data(bytes)
    }
}

public enum WorkerMessageError: Error, Equatable, CustomStringConvertible {
    /// The other side closed its end before a whole message came.
    case ended
    case malformed(String)

    public var description: String {
        switch self {
        case .ended: "the message ends early"
        case .malformed(let reason): "the message is malformed: \(reason)"
        }
    }
}
