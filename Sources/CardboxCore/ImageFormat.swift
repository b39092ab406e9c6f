import Foundation

/// Image formats an item or card may hold (seed 002: JPEG, PNG, HEIC), recognised by their bytes,
/// never by a file name.
public enum ImageFormat: String, Codable, Sendable {
    case jpeg
    case png
    case heic

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heic: "image/heic"
        }
    }

    /// HEIF brands of still images that HEIC readers open (ISO/IEC 23008-12).
    private static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]

    /// The format of `data`, or nil when it is none of the three.
    public static func detect(_ data: Data) -> ImageFormat? {
        let bytes = [UInt8](data.prefix(32))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        // ISO base media file: a 'ftyp' box first, whose major or compatible brands name HEIF.
        if bytes.count >= 16, Array(bytes[4..<8]) == Array("ftyp".utf8) {
            let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
            let end = min(boxSize, data.count)
            let header = [UInt8](data.prefix(max(end, 12)))
            var offset = 8
            while offset + 4 <= header.count {
                if offset != 12, let brand = String(bytes: header[offset..<offset + 4], encoding: .ascii),
                    heicBrands.contains(brand)
                {
                    return .heic
                }
                offset += 4
            }
        }
        return nil
    }

    /// Seed 002's image rules: a JPEG, PNG or HEIC image of at most 5 MB.
    public static func validate(_ data: Data, field: String = "image") throws -> ImageFormat {
        guard !data.isEmpty else { throw CardboxError.invalid(field: field, reason: "is empty") }
        guard data.count <= Limits.imageBytes else {
            throw CardboxError.invalid(
                field: field, reason: "is \(data.count) bytes; images may be at most 5 MB (\(Limits.imageBytes) bytes)")
        }
        guard let format = detect(data) else {
            throw CardboxError.invalid(field: field, reason: "is not a JPEG, PNG or HEIC image")
        }
        return format
    }
}
