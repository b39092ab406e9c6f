import ArgumentParser
import CardboxCore
import CardboxImaging
import CardboxStore
import Foundation

/// A stored image as the command line shows it: its hash (what cards, suggestions and item images
/// name), type, size, dimensions, and its thumbnail's.
struct ImageSummary: Encodable {
    struct ThumbnailSummary: Encodable {
        var mimeType: String
        var width: Int
        var height: Int
        var byteCount: Int
    }
    var sha256: String
    var mimeType: String
    var byteCount: Int
    var width: Int
    var height: Int
    var thumbnail: ThumbnailSummary

    init(store: CardboxStore, sha256: String) throws {
        let image = try store.imageData(sha256: sha256)
        let thumbnail = try store.imageThumbnail(sha256: sha256)
        self.sha256 = sha256
        mimeType = image.mimeType
        byteCount = image.data.count
        width = thumbnail.width
        height = thumbnail.height
        self.thumbnail = ThumbnailSummary(
            mimeType: thumbnail.thumbnail.mimeType, width: thumbnail.thumbnail.width,
            height: thumbnail.thumbnail.height, byteCount: thumbnail.thumbnail.data.count)
    }

    var text: String {
        "sha256 \(sha256)  \(mimeType)  \(width) × \(height)  \(byteCount) bytes  "
            + "(thumbnail \(thumbnail.width) × \(thumbnail.height), \(thumbnail.byteCount) bytes)"
    }
}

struct StoredImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image", abstract: "Show and save stored images and their thumbnails, by SHA-256.",
        discussion: Help.paragraphs(
            """
            Cards, suggestions and item images name their image by SHA-256 (the imageHash and sha256 of
            their --json). Every image is checked when it enters, stored shrunk to 2048 px when larger,
            and kept with a thumbnail of at most 256 px.

            Examples:
              cardbox image show 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
              cardbox image get 9f86d081 -o photo.jpg --thumbnail
            """),
        subcommands: [Show.self, Get.self])

    struct Show: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show an image's type, size, dimensions and thumbnail.",
            discussion: "Example:\n  cardbox image show 9f86d081 --json")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The image's SHA-256 (or its first 8 or more hex digits).") var sha256: String

        func run(store: CardboxStore) throws {
            let summary = try ImageSummary(store: store, sha256: try StoredImageCommand.resolve(sha256, in: store))
            try Console.emit(summary, json: output.json) { $0.text }
        }
    }

    struct Get: StoreCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Write an image, or its thumbnail, to a file.",
            discussion: "Example:\n  cardbox image get 9f86d081 -o photo.jpg --thumbnail")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The image's SHA-256 (or its first 8 or more hex digits).") var sha256: String
        @Option(name: [.short, .customLong("output")], help: "The file to write.") var output: String
        @Flag(help: "Write the thumbnail (JPEG, or PNG when the image has transparency).") var thumbnail = false

        func run(store: CardboxStore) throws {
            let hash = try StoredImageCommand.resolve(sha256, in: store)
            let (data, mimeType): (Data, String)
            if thumbnail {
                let small = try store.imageThumbnail(sha256: hash).thumbnail
                (data, mimeType) = (small.data, small.mimeType)
            } else {
                (data, mimeType) = try store.imageData(sha256: hash)
            }
            try Console.writeFile(data, to: output)
            Terminal.current.print("wrote \(data.count) bytes (\(mimeType)) to \(output)")
        }
    }

    /// A full hash, or the one stored image whose hash starts with `prefix` (8 hex digits or more).
    static func resolve(_ prefix: String, in store: CardboxStore) throws -> String {
        let wanted = prefix.lowercased()
        guard wanted.count >= 8, wanted.count <= 64, wanted.allSatisfy(\.isHexDigit) else {
            throw CardboxError.invalid(field: "sha256", reason: "'\(prefix)' is not 8 to 64 hex digits")
        }
        let matches = try store.imageHashes().filter { $0.hasPrefix(wanted) }
        guard let hash = matches.first else { throw CardboxError.notFound(kind: "image", reference: prefix) }
        guard matches.count == 1 else {
            throw CardboxError.invalid(
                field: "sha256", reason: "'\(prefix)' names \(matches.count) images; give more digits")
        }
        return hash
    }
}
