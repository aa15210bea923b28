import StashCrypto
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A response body: fixed bytes, a deterministic pattern of any size generated chunk by
/// chunk, or a file read chunk by chunk, so a large body never sits in memory.
package enum TestBody: Sendable, Equatable {
    case bytes([UInt8])
    case pattern(size: Int, seed: UInt64)
    /// The first `size` bytes of the file at `path`, read when sent: bytes the file no longer
    /// has (it shrank or went away) are sent as zeros, so a test sees a wrong body rather than
    /// a hung server.
    case file(path: String, size: Int)

    package var count: Int {
        switch self {
        case .bytes(let bytes): return bytes.count
        case .pattern(let size, _): return size
        case .file(_, let size): return size
        }
    }

    /// The whole file at `path`, with its size as it is now.
    package static func file(atPath path: String) throws -> TestBody {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        return .file(path: path, size: size)
    }

    /// Pattern byte at `index`: a hash of the index, so a chunk written at the wrong offset
    /// never matches by accident (unlike a short repeating cycle).
    @inline(__always)
    package static func patternByte(at index: Int, seed: UInt64) -> UInt8 {
        var x = UInt64(truncatingIfNeeded: index) &+ seed &* 0x9E37_79B9_7F4A_7C15
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt8(truncatingIfNeeded: x ^ (x >> 31))
    }

    /// `size` pattern bytes shaped as MPEG-TS: the sync byte 0x47 at every 188th, which is
    /// what stashd checks in an HLS segment without EXT-X-MAP.
    package static func mpegTS(size: Int, seed: UInt64 = 1) -> [UInt8] {
        (0..<size).map { $0 % 188 == 0 ? 0x47 : patternByte(at: $0, seed: seed) }
    }

    /// Bytes `range` of the body.
    package func slice(_ range: Range<Int>) -> [UInt8] {
        switch self {
        case .bytes(let bytes): return Array(bytes[range])
        case .pattern(_, let seed): return range.map { Self.patternByte(at: $0, seed: seed) }
        case .file:
            var bytes = [UInt8](repeating: 0, count: range.count)
            bytes.withUnsafeMutableBytes { fill($0, from: range.lowerBound) }
            return bytes
        }
    }

    /// Fills `buffer` with bytes starting at `offset`.
    package func fill(_ buffer: UnsafeMutableRawBufferPointer, from offset: Int) {
        switch self {
        case .bytes(let bytes):
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + buffer.count)]))
            }
        case .pattern(_, let seed):
            for i in 0..<buffer.count { buffer[i] = Self.patternByte(at: offset + i, seed: seed) }
        case .file(let path, _):
            Self.read(path: path, into: buffer, from: offset)
        }
    }

    /// pread until `buffer` is full; what the file does not have is zeros.
    private static func read(path: String, into buffer: UnsafeMutableRawBufferPointer, from offset: Int) {
        var done = 0
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            defer { close(fd) }
            while done < buffer.count {
                let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                if n > 0 {
                    done += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        if done < buffer.count {
            UnsafeMutableRawBufferPointer(rebasing: buffer[done...]).initializeMemory(as: UInt8.self, repeating: 0)
        }
    }

    /// Lowercase hex SHA-256 of the whole body.
    package var sha256Hex: String {
        let hasher = SHA256()
        let chunk = 1 << 20
        var offset = 0
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { scratch.deallocate() }
        while offset < count {
            let n = min(chunk, count - offset)
            let part = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<n])
            fill(part, from: offset)
            hasher.update(UnsafeRawBufferPointer(part))
            offset += n
        }
        return hasher.finalizeHex()
    }
}
