import CSystemZlib
import CardboxCore
import Foundation

/// The text of a dictd dictionary (`.dict` or `.dict.dz`), read by byte range.
///
/// A `.dict.dz` is dictzip: a gzip file whose header carries an `RA` extra field listing the
/// compressed size of every chunk, each chunk holding `chunkLength` bytes of text and compressed
/// on its own (a full flush between chunks). A range is read by inflating only the chunks that hold
/// it, so a lookup costs a chunk or two, not the whole file. A plain gzip file without that field is
/// inflated once, whole.
public struct DictzipText: Sendable {
    private enum Storage {
        case plain(Data)
        case chunked(Chunks)
    }

    /// A dictzip file's compressed chunks, each inflated on its own.
    private struct Chunks {
        let compressed: Data
        let chunkLength: Int
        let starts: [Int]
        let sizes: [Int]

        func inflate(_ chunk: Int) throws -> Data {
            let start = compressed.startIndex + starts[chunk]
            return try RawInflater.inflate(
                compressed[start..<start + sizes[chunk]], limit: chunkLength, name: "dictionary chunk", partial: true)
        }
    }
    private let storage: Storage

    /// The most text a plain gzip file may inflate to: a dictionary, not a decompression bomb.
    static let maximumInflatedBytes = 256 << 20

    public init(contentsOf url: URL) throws {
        try self.init(data: Data(contentsOf: url, options: .alwaysMapped), name: url.lastPathComponent)
    }

    public init(data: Data, name: String = "dictionary") throws {
        let bytes = [UInt8](data.prefix(2))
        guard bytes == [0x1F, 0x8B] else {
            storage = .plain(data)
            return
        }
        var reader = GzipHeaderReader(data: data, name: name)
        let header = try reader.read()
        if let chunks = header.randomAccess {
            var starts: [Int] = []
            var offset = header.dataStart
            for size in chunks.sizes {
                starts.append(offset)
                offset += size
            }
            guard offset <= data.count else { throw Self.corrupt(name, "its chunk table runs past the file's end") }
            storage = .chunked(
                Chunks(compressed: data, chunkLength: chunks.chunkLength, starts: starts, sizes: chunks.sizes))
        } else {
            storage = .plain(
                try RawInflater.inflate(
                    data[(data.startIndex + header.dataStart)...], limit: Self.maximumInflatedBytes, name: name))
        }
    }

    /// The UTF-8 text at `offset` of length `length` (offsets into the uncompressed text).
    public func text(offset: Int, length: Int) throws -> String {
        guard offset >= 0, length >= 0, length <= 1 << 20 else {
            throw CardboxError.invalid(field: "dictionary", reason: "entry range \(offset)+\(length) is not valid")
        }
        let bytes: Data
        switch storage {
        case .plain(let data):
            guard offset + length <= data.count else {
                throw CardboxError.invalid(field: "dictionary", reason: "entry range runs past the text's end")
            }
            bytes = data.subdata(in: data.startIndex + offset..<data.startIndex + offset + length)
        case .chunked(let chunks):
            let first = offset / chunks.chunkLength
            let last = (offset + max(length, 1) - 1) / chunks.chunkLength
            guard last < chunks.starts.count else {
                throw CardboxError.invalid(field: "dictionary", reason: "entry range runs past the text's end")
            }
            var text = Data()
            for chunk in first...last { text.append(try chunks.inflate(chunk)) }
            let from = offset - first * chunks.chunkLength
            guard from + length <= text.count else {
                throw CardboxError.invalid(field: "dictionary", reason: "entry range runs past the text's end")
            }
            bytes = text.subdata(in: from..<from + length)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// All of the text.
    public func whole() throws -> Data {
        switch storage {
        case .plain(let data):
            return data
        case .chunked(let chunks):
            let total = chunks.starts.count * chunks.chunkLength
            guard total <= Self.maximumInflatedBytes else {
                throw Self.corrupt("dictionary", "it would inflate past \(Self.maximumInflatedBytes) bytes")
            }
            var text = Data(capacity: total)
            for chunk in chunks.starts.indices { text.append(try chunks.inflate(chunk)) }
            return text
        }
    }

    static func corrupt(_ name: String, _ reason: String) -> CardboxError {
        CardboxError.invalid(field: name, reason: "is not a readable dictzip file: \(reason)")
    }
}

/// RFC 1952's header, with dictzip's `RA` field when present.
private struct GzipHeaderReader {
    struct Header {
        var dataStart: Int
        var randomAccess: (chunkLength: Int, sizes: [Int])?
    }

    let data: Data
    let name: String
    var position = 0

    init(data: Data, name: String) {
        self.data = data
        self.name = name
    }

    mutating func byte() throws -> Int {
        guard position < data.count else { throw DictzipText.corrupt(name, "its header is cut short") }
        defer { position += 1 }
        return Int(data[data.startIndex + position])
    }

    mutating func uint16() throws -> Int {
        let low = try byte()
        return low | (try byte()) << 8
    }

    mutating func read() throws -> Header {
        position = 2
        guard try byte() == 8 else { throw DictzipText.corrupt(name, "it is not deflate-compressed") }
        let flags = try byte()
        position += 6  // modification time, extra flags, operating system
        var randomAccess: (chunkLength: Int, sizes: [Int])?
        if flags & 0x04 != 0 {
            let extraLength = try uint16()
            let extraEnd = position + extraLength
            while position + 4 <= extraEnd {
                let id = [try byte(), try byte()]
                let length = try uint16()
                let fieldEnd = position + length
                if id == [0x52, 0x41], length >= 6 {  // "RA"
                    _ = try uint16()  // version
                    let chunkLength = try uint16()
                    let count = try uint16()
                    guard chunkLength > 0, 6 + 2 * count <= length else {
                        throw DictzipText.corrupt(name, "its chunk table is malformed")
                    }
                    randomAccess = (chunkLength, try (0..<count).map { _ in try uint16() })
                }
                position = fieldEnd
            }
            position = extraEnd
        }
        for flag in [0x08, 0x10] where flags & flag != 0 {  // file name, comment: zero-terminated
            while try byte() != 0 {}
        }
        if flags & 0x02 != 0 { position += 2 }  // header checksum
        guard position <= data.count else { throw DictzipText.corrupt(name, "its header is cut short") }
        return Header(dataStart: position, randomAccess: randomAccess)
    }
}

/// Raw deflate (no zlib or gzip wrapper) through the system's zlib.
enum RawInflater {
    /// Inflates `input`, refusing output beyond `limit`. `partial` accepts a stream that stops at a
    /// flush point without a final block, as a dictzip chunk does.
    static func inflate(_ input: Data, limit: Int, name: String, partial: Bool = false) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw DictzipText.corrupt(name, "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        // One byte of room past the limit tells a stream that ends exactly there from one that goes on.
        let capacity = limit + 1
        var output = Data(count: min(capacity, max(input.count * 4, 4096)))
        var produced = 0
        var status = Z_OK
        var source = [UInt8](input)
        try source.withUnsafeMutableBufferPointer { sourceBuffer in
            stream.next_in = sourceBuffer.baseAddress
            stream.avail_in = uInt(sourceBuffer.count)
            while true {
                if produced == output.count {
                    guard output.count < capacity else {
                        throw DictzipText.corrupt(name, "it inflates past \(limit) bytes")
                    }
                    output.count = min(capacity, output.count * 2)
                }
                status = output.withUnsafeMutableBytes { buffer in
                    stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self) + produced
                    stream.avail_out = uInt(buffer.count - produced)
                    let before = stream.avail_out
                    let result = CSystemZlib.inflate(&stream, Z_SYNC_FLUSH)
                    produced += Int(before - stream.avail_out)
                    return result
                }
                if status == Z_STREAM_END { break }
                if status == Z_BUF_ERROR && stream.avail_in == 0 && partial { break }
                guard status == Z_OK || (status == Z_BUF_ERROR && stream.avail_out == 0) else {
                    throw DictzipText.corrupt(name, "its compressed data is damaged (zlib \(status))")
                }
                if stream.avail_in == 0 && stream.avail_out > 0 {
                    guard partial else { throw DictzipText.corrupt(name, "its compressed data is cut short") }
                    break
                }
            }
        }
        guard produced <= limit else { throw DictzipText.corrupt(name, "it inflates past \(limit) bytes") }
        output.count = produced
        return output
    }
}
