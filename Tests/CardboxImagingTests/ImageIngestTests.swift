import CardboxCore
import Foundation
import Testing

@testable import CardboxImaging

@Suite("Images decoded, checked and thumbnailed with libvips")
struct ImageIngestTests {
    @Test("JPEG, PNG and HEIC made here are decoded and thumbnailed", arguments: [ImageFormat.jpeg, .png, .heic])
    func formats(_ format: ImageFormat) throws {
        let data = try ImageIngest.sample(width: 640, height: 480, format: format)
        #expect(ImageFormat.detect(data) == format)
        let image = try ImageIngest.ingest(data)
        #expect(image.data == data && !image.reencoded)
        #expect(image.width == 640 && image.height == 480 && image.format == format)
        #expect(image.thumbnail.width == 256 && image.thumbnail.height == 192)
        #expect(ImageFormat.detect(image.thumbnail.data) == .jpeg)
        #expect(image.thumbnail.data.count < data.count)
    }
}

@Suite("Hostile and oversized images")
struct HostileImageTests {
    @Test("an image larger than 2048 px is stored shrunk, as JPEG at quality 85, and keeps its format otherwise")
    func shrunk() throws {
        let photo = try ImageIngest.sample(width: 4000, height: 3000, format: .jpeg)
        let image = try ImageIngest.ingest(photo)
        #expect(image.reencoded && image.width == 2048 && image.height == 1536)
        #expect(try ImageIngest.ingest(image.data).width == 2048)
        #expect(image.data.count < photo.count)
        let kept = try ImageIngest.ingest(photo, keepBytes: true)
        #expect(!kept.reencoded && kept.data == photo && kept.width == 4000)
        let png = try ImageIngest.ingest(try ImageIngest.sample(width: 2500, height: 100, format: .png))
        #expect(png.format == .png && png.width == 2048 && ImageFormat.detect(png.data) == .png)
    }

    @Test("a truncated image is refused, whatever its format", arguments: [ImageFormat.jpeg, .png, .heic])
    func truncated(_ format: ImageFormat) throws {
        let data = try ImageIngest.sample(width: 300, height: 200, format: format)
        let cut = data.prefix(data.count * 2 / 3)
        #expect(throws: CardboxError.self) { _ = try ImageIngest.ingest(cut) }
    }

    @Test("a photo missing only its last bytes is refused too, thumbnail or not", arguments: [ImageFormat.jpeg, .heic])
    func tailCut(_ format: ImageFormat) throws {
        // A thumbnail alone can miss this: it may stop before the last rows, or use a HEIC's preview.
        let photo = try ImageIngest.sample(width: 3000, height: 2001, format: format)
        for cut in [200, 1000, photo.count / 20] {
            #expect(throws: CardboxError.self) { _ = try ImageIngest.ingest(photo.prefix(photo.count - cut)) }
            #expect(throws: CardboxError.self) {
                _ = try ImageIngest.ingest(photo.prefix(photo.count - cut), keepBytes: true)
            }
        }
    }

    @Test(
        "tiny images (a side under 8 pixels) go through, whatever their format",
        arguments: [ImageFormat.jpeg, .png, .heic])
    func tiny(_ format: ImageFormat) throws {
        for (width, height) in [(1, 1), (7, 3), (2, 9)] {
            let image = try ImageIngest.ingest(try ImageIngest.sample(width: width, height: height, format: format))
            #expect(image.width == width && image.height == height && image.thumbnail.width == width)
        }
    }

    @Test("bytes that only start like an image are refused with a clear reason")
    func damaged() throws {
        let fake = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        do {
            _ = try ImageIngest.ingest(fake)
            Issue.record("a PNG signature alone was taken")
        } catch let error as CardboxError {
            #expect("\(error)".contains("cannot be read"))
        }
        #expect(throws: CardboxError.invalid(field: "image", reason: "is not a JPEG, PNG or HEIC image")) {
            _ = try ImageIngest.ingest(Data("GIF89a not a picture we take".utf8))
        }
    }

    @Test("a decompression bomb is refused from its header, before any pixel is decoded")
    func bomb() throws {
        // A PNG declaring 100,000 × 100,000 pixels (10 gigapixels) in a few hundred bytes.
        let png = PNGBomb.make(width: 100_000, height: 100_000)
        #expect(png.count < 1000)
        do {
            _ = try ImageIngest.ingest(png)
            Issue.record("the bomb was taken")
        } catch let error as CardboxError {
            #expect("\(error)".contains("is 100000 × 100000 pixels; images may have at most 50 megapixels"))
        }
    }

    @Test("a PNG with transparency keeps it in its thumbnail; others get JPEG thumbnails")
    func alpha() throws {
        let png = PNGBomb.make(width: 400, height: 300, colorType: 6, complete: true)  // RGBA, all transparent
        let image = try ImageIngest.ingest(png)
        #expect(image.thumbnail.mimeType == "image/png" && ImageFormat.detect(image.thumbnail.data) == .png)
        #expect(image.thumbnail.width == 256)
    }

    @Test("the offline picture of a card: a real JPEG, its text drawn as text")
    func renderCard() throws {
        let picture = try ImageIngest.renderCard(
            title: "el perro <script>", caption: "dog: a member of the genus Canis & co", color: (40, 90, 160))
        let image = try ImageIngest.ingest(picture)
        #expect(image.format == .jpeg && image.width == 512 && image.height == 512)
        let blank = try ImageIngest.renderCard(title: "x", caption: "", color: (40, 90, 160))
        #expect(blank != picture)
    }
}

/// PNG files built by hand: the header says what a test wants, the pixel data is one compressed row
/// pattern (zeros), so a huge image takes a few hundred bytes.
enum PNGBomb {
    /// Without `complete`, the pixel data stops after 100 bytes: enough for a header-only check.
    static func make(width: Int, height: Int, colorType: UInt8 = 2, complete: Bool = false) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.append(contentsOf: bigEndian(UInt32(width)) + bigEndian(UInt32(height)))
        header.append(contentsOf: [8, colorType, 0, 0, 0])
        png.append(chunk("IHDR", header))
        let channels = colorType == 6 ? 4 : 3
        // Zlib stream of the rows (filter byte 0 + zero samples), stored uncompressed when small.
        let rowBytes = 1 + width * channels
        let raw = [UInt8](repeating: 0, count: complete ? rowBytes * height : min(rowBytes * height, 100))
        png.append(chunk("IDAT", zlibStored(raw)))
        png.append(chunk("IEND", Data()))
        return png
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func chunk(_ type: String, _ body: Data) -> Data {
        let typed = Data(type.utf8) + body
        return Data(bigEndian(UInt32(body.count))) + typed + Data(bigEndian(crc32(typed)))
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    static func zlibStored(_ bytes: [UInt8]) -> Data {
        var out = Data([0x78, 0x01])
        var offset = 0
        repeat {
            let block = Array(bytes[offset..<min(offset + 65_535, bytes.count)])
            offset += block.count
            let last: UInt8 = offset >= bytes.count ? 1 : 0
            let length = UInt16(block.count)
            out.append(contentsOf: [
                last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8),
            ])
            out.append(contentsOf: block)
        } while offset < bytes.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        out.append(contentsOf: bigEndian(b << 16 | a))
        return out
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
