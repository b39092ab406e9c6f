import CVipsShim
import CardboxCore
import CardboxImaging
import Foundation

/// Decoding, checking, shrinking and thumbnailing images with libvips, in this process: what the
/// image worker runs (and the fuzzer, which wants a crash in its own process). Everything else asks
/// `ImageIngest`, which sends the work to a worker.
public enum VipsImages {
    /// Checks an image by its content and makes its thumbnail: seed 002's type and size rules, its
    /// header's dimensions (refused past `ImagePolicy.maximumPixels` before any pixel is decoded),
    /// and a full decode (a truncated or damaged image is refused). With `keepBytes` the bytes stay
    /// as given (an image fetched by its SHA-256 must keep that hash); otherwise an image larger
    /// than `ImagePolicy.maximumSide` is stored shrunk.
    public static func ingest(_ data: Data, field: String = "image", keepBytes: Bool = false) throws -> IngestedImage {
        let format = try ImageFormat.validate(data, field: field)
        let header = try probe(data, field: field)
        // The largest of libjpeg's shrinks that leaves both sides at least a pixel.
        let shrink = Int32([8, 4, 2, 1].first { min(header.width, header.height) >= $0 } ?? 1)
        let checked = data.withUnsafeBytes { cbx_vips_check($0.baseAddress, $0.count, shrink) }
        guard checked == 0 else { throw failure(field, "cannot be decoded") }
        if format == .jpeg && !endsItsScan(data) {
            throw CardboxError.invalid(field: field, reason: "is cut short: its JPEG data has no end-of-image marker")
        }
        let hasAlpha = header.bands == 2 || header.bands == 4
        var image = IngestedImage(
            data: data, format: format, width: header.width, height: header.height,
            thumbnail: Thumbnail(data: Data(), mimeType: "", width: 0, height: 0), reencoded: false)
        if !keepBytes && max(header.width, header.height) > ImagePolicy.maximumSide {
            let keepPNG = format == .png
            let smaller = try fit(
                data, maximumSide: ImagePolicy.maximumSide, quality: ImagePolicy.storedQuality, png: keepPNG,
                field: field)
            image.data = smaller.data
            image.format = keepPNG ? .png : .jpeg
            image.width = smaller.width
            image.height = smaller.height
            image.reencoded = true
            _ = try ImageFormat.validate(image.data, field: field)
        }
        // From the stored copy: when it was shrunk, a 2048-pixel JPEG decodes far faster than a
        // 12-megapixel HEIC (a third of a HEIC's ingest).
        let thumbnailPNG = format == .png && hasAlpha
        let thumbnail = try fit(
            image.data, maximumSide: ImagePolicy.thumbnailSide, quality: ImagePolicy.thumbnailQuality,
            png: thumbnailPNG, field: field)
        image.thumbnail = Thumbnail(
            data: thumbnail.data, mimeType: thumbnailPNG ? ImageFormat.png.mimeType : ImageFormat.jpeg.mimeType,
            width: thumbnail.width, height: thumbnail.height)
        return image
    }

    /// The image's dimensions and bands from its header alone.
    public static func probe(_ data: Data, field: String = "image") throws -> (width: Int, height: Int, bands: Int) {
        var width: Int32 = 0
        var height: Int32 = 0
        var bands: Int32 = 0
        let status = data.withUnsafeBytes { cbx_vips_probe($0.baseAddress, $0.count, &width, &height, &bands) }
        guard status == 0 else { throw failure(field, "cannot be read") }
        guard width > 0, height > 0 else {
            throw CardboxError.invalid(field: field, reason: "has no pixels (\(width) × \(height))")
        }
        guard Int(width) * Int(height) <= ImagePolicy.maximumPixels else {
            throw CardboxError.invalid(
                field: field,
                reason:
                    "is \(width) × \(height) pixels; images may have at most \(ImagePolicy.maximumPixels / 1_000_000) "
                    + "megapixels")
        }
        return (Int(width), Int(height), Int(bands))
    }

    /// Decodes the whole image and encodes it to fit `maximumSide` (never enlarged).
    static func fit(
        _ data: Data, maximumSide: Int, quality: Int, png: Bool, field: String
    ) throws -> (data: Data, width: Int, height: Int) {
        var output: UnsafeMutableRawPointer?
        var length = 0
        var width: Int32 = 0
        var height: Int32 = 0
        let status = data.withUnsafeBytes {
            cbx_vips_fit(
                $0.baseAddress, $0.count, Int32(maximumSide), Int32(quality), png ? 1 : 0, &output, &length, &width,
                &height)
        }
        guard status == 0, let output else { throw failure(field, "cannot be decoded") }
        defer { cbx_vips_free(output) }
        return (Data(bytes: output, count: length), Int(width), Int(height))
    }

    /// The image as JPEG at its stored size (at most `ImagePolicy.maximumSide`), for browsers that
    /// cannot show its own format (HEIC).
    public static func displayable(_ data: Data) throws -> Data {
        try fit(
            data, maximumSide: ImagePolicy.maximumSide, quality: ImagePolicy.storedQuality, png: false, field: "image"
        )
        .data
    }

    /// A square JPEG picture of `size` pixels: `title` large and centred, `caption` beneath, in
    /// white over `color` (red, green, blue). Both texts are plain text, escaped here for Pango.
    public static func renderCard(
        title: String, caption: String, size: Int = 512, color: (Int, Int, Int), quality: Int = 85
    ) throws -> Data {
        var output: UnsafeMutableRawPointer?
        var length = 0
        let status = cbx_vips_render_card(
            pangoEscaped(title), pangoEscaped(caption), Int32(size), Int32(color.0), Int32(color.1), Int32(color.2),
            Int32(quality), &output, &length)
        guard status == 0, let output else { throw failure("picture", "cannot be drawn") }
        defer { cbx_vips_free(output) }
        return Data(bytes: output, count: length)
    }

    /// A real, photo-like image (a gradient with noise) in `format`: for tests and benchmarks.
    public static func sample(width: Int, height: Int, seed: Int = 1, format: ImageFormat) throws -> Data {
        var output: UnsafeMutableRawPointer?
        var length = 0
        let suffix =
            switch format {
            case .jpeg: ".jpg[Q=90]"
            case .png: ".png"
            case .heic: ".heic"
            }
        let status = cbx_vips_sample(Int32(width), Int32(height), Int32(seed), suffix, &output, &length)
        guard status == 0, let output else { throw failure("sample image", "cannot be made") }
        defer { cbx_vips_free(output) }
        return Data(bytes: output, count: length)
    }

    /// Whether a JPEG's last scan is followed by its end-of-image marker (FF D9). libjpeg pads a
    /// scan cut short with grey and only warns, and whether libvips hears that warning depends on
    /// when its last rows are read; the marker cannot be missed. Inside a scan, every FF byte is
    /// followed by 00 or a restart marker, so FF D9 after the last start-of-scan (FF DA) ends it.
    static func endsItsScan(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 4 else { return false }
        var lastScan: Int?
        var index = bytes.count - 2
        while index >= 0 {
            if bytes[index] == 0xFF && bytes[index + 1] == 0xDA {
                lastScan = index
                break
            }
            index -= 1
        }
        guard let start = lastScan else { return false }
        var position = start + 2
        while position + 1 < bytes.count {
            if bytes[position] == 0xFF && bytes[position + 1] == 0xD9 { return true }
            position += 1
        }
        return false
    }

    /// Pango markup treats `<` and `&` as markup: a card's text is shown as text.
    static func pangoEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    static func failure(_ field: String, _ what: String) -> CardboxError {
        let reason = String(cString: cbx_vips_error()).split(separator: "\n").joined(separator: "; ")
        return CardboxError.invalid(field: field, reason: reason.isEmpty ? what : "\(what): \(reason)")
    }
}
