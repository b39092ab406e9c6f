import CSystemZlib
import CardboxCore
import Foundation
import ZIPFoundation

/// Reads one entry of a zip archive, never past its own bytes.
///
/// ZIPFoundation inflates a compressed entry by reading until the deflate stream says it has ended.
/// A damaged stream that never ends makes it read on past the entry and then spin at the end of the
/// file for ever (found by fuzzing `.apkg` files: a 1 KB package hung the importer). Compressed
/// entries are therefore inflated here, from exactly the entry's compressed bytes (zero-padded to
/// the chunk size the inflater assumes), with ZIPFoundation's own inflater: a stream that asks for
/// more than the entry holds is damaged.
/// Stored entries, which ZIPFoundation reads by their size, go through ZIPFoundation as they are.
/// The inflated bytes' CRC-32 is zlib's: ZIPFoundation's own, which it uses where Swift sees no
/// `zlib` module, goes a byte at a time (1.6 % of a 10,000-note package's import).
enum BoundedZipEntry {
    static func extract(_ entry: Entry, from archive: Archive, file: String, consumer: (Data) throws -> Void) throws {
        let damaged = CardboxError.invalid(field: file, reason: "\(entry.path) is damaged in the archive")
        guard entry.isCompressed else {
            _ = try archive.extract(entry, skipCRC32: false, consumer: consumer)
            return
        }
        guard let handle = FileHandle(forReadingAtPath: archive.url.path) else {
            throw CardboxError.invalid(field: file, reason: "cannot be read")
        }
        defer { try? handle.close() }
        guard let offset = try dataOffset(of: entry, in: handle) else { throw damaged }
        try handle.seek(toOffset: offset)
        var remaining = entry.compressedSize
        var checksum: UInt = 0
        _ = try Data.decompress(
            size: Int64(clamping: entry.compressedSize), bufferSize: 64 * 1024, skipCRC32: true,
            provider: { _, chunkSize in
                // The inflater takes every chunk as `chunkSize` bytes long, so the entry's last bytes
                // are padded with zeros: a stream that has not ended by then is damaged.
                guard remaining > 0,
                    var data = try handle.read(upToCount: Int(min(UInt64(chunkSize), remaining))), !data.isEmpty
                else { throw damaged }
                remaining -= UInt64(data.count)
                if data.count < chunkSize { data.append(Data(count: chunkSize - data.count)) }
                return data
            },
            consumer: { chunk in
                checksum = chunk.withUnsafeBytes { bytes in
                    crc32(checksum, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count))
                }
                try consumer(chunk)
            })
        guard checksum == UInt(entry.checksum) else { throw damaged }
    }

    /// Where the entry's compressed bytes start: its local header's offset comes from the central
    /// directory (found through the end-of-central-directory record), and its data follows the
    /// local header's name and extra field. Nil when any of it is missing or out of place; ZIP64
    /// archives (over 4 GB) are not read this way.
    private static func dataOffset(of entry: Entry, in handle: FileHandle) throws -> UInt64? {
        let size = try handle.seekToEnd()
        let tailLength = min(size, 65_557)
        try handle.seek(toOffset: size - tailLength)
        let tail = [UInt8](try handle.read(upToCount: Int(tailLength)) ?? Data())
        guard tail.count >= 22,
            let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: { le32(tail, $0) == 0x0605_4b50 })
        else { return nil }
        let count = Int(le16(tail, end + 10))
        let directorySize = UInt64(le32(tail, end + 12))
        let directoryOffset = UInt64(le32(tail, end + 16))
        guard directoryOffset != 0xFFFF_FFFF, directoryOffset + directorySize <= size else { return nil }
        try handle.seek(toOffset: directoryOffset)
        let directory = [UInt8](try handle.read(upToCount: Int(directorySize)) ?? Data())
        let name = Array(entry.path.utf8)
        var cursor = 0
        for _ in 0..<count {
            guard cursor + 46 <= directory.count, le32(directory, cursor) == 0x0201_4b50 else { return nil }
            let nameLength = Int(le16(directory, cursor + 28))
            let next = cursor + 46 + nameLength + Int(le16(directory, cursor + 30)) + Int(le16(directory, cursor + 32))
            guard next <= directory.count else { return nil }
            if Array(directory[cursor + 46..<cursor + 46 + nameLength]) == name {
                let local = UInt64(le32(directory, cursor + 42))
                guard local != 0xFFFF_FFFF, local + 30 <= size else { return nil }
                try handle.seek(toOffset: local)
                let header = [UInt8](try handle.read(upToCount: 30) ?? Data())
                guard header.count == 30, le32(header, 0) == 0x0403_4b50 else { return nil }
                let start = local + 30 + UInt64(le16(header, 26)) + UInt64(le16(header, 28))
                return start + entry.compressedSize <= size ? start : nil
            }
            cursor = next
        }
        return nil
    }

    private static func le16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }

    private static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(le16(bytes, at)) | UInt32(le16(bytes, at + 2)) << 16
    }
}
