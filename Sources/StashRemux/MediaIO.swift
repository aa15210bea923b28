import CAVFormat
import Foundation
import StashCore

/// An AVIOContext whose bytes come from Swift: read from a `ChunkSource` (a demuxer's input,
/// not seekable), or written to a file descriptor (a muxer's output, seekable, since MP4 and
/// Matroska go back to fill in sizes and indexes). libav sees only an error code when a
/// callback fails; what failed is kept in `failure`, which `RemuxError.check` throws instead.
final class MediaIO {
    /// Owned: freed with its buffer on deinit.
    let context: UnsafeMutablePointer<AVIOContext>
    /// What a callback met, first failure only; every later call fails the same way.
    private(set) var failure: Error?

    private let source: ChunkSource?
    private var chunk: [UInt8] = []
    private var offset = 0
    private var bytesRead: Int64 = 0

    private let descriptor: Int32
    /// For messages.
    let path: String

    /// The demuxer reads this much at a time.
    static let readBufferSize = 64 * 1024
    /// The muxer writes this much at a time.
    static let writeBufferSize = 256 * 1024

    /// Reads the chunks of `source`, `name` saying what they are in messages.
    init(reading source: ChunkSource, name: String) throws {
        self.source = source
        self.descriptor = -1
        self.path = name
        context = try Self.allocate(size: Self.readBufferSize, writing: false, path: name)
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Writes to `descriptor` (open for writing, at offset 0, the caller's to close) at `path`.
    init(writingTo descriptor: Int32, path: String) throws {
        self.source = nil
        self.descriptor = descriptor
        self.path = path
        context = try Self.allocate(size: Self.writeBufferSize, writing: true, path: path)
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        // libav may have replaced the buffer given at allocation with one of its own.
        av_freep(&context.pointee.buffer)
        var owned: UnsafeMutablePointer<AVIOContext>? = context
        avio_context_free(&owned)
    }

    /// The context, its callbacks finding this object through `opaque`, set once it exists.
    private static func allocate(size: Int, writing: Bool, path: String) throws -> UnsafeMutablePointer<AVIOContext> {
        guard let buffer = av_malloc(size) else {
            throw RemuxError(call: "av_malloc", code: stash_averror(ENOMEM), message: "no memory for a \(size)-byte buffer")
        }
        let allocated: UnsafeMutablePointer<AVIOContext>?
        if writing {
            allocated = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 1, nil, nil,
                { opaque, bytes, count in
                    guard let opaque, let bytes else { return stash_averror(EINVAL) }
                    return Unmanaged<MediaIO>.fromOpaque(opaque).takeUnretainedValue().write(bytes, count: Int(count))
                },
                { opaque, offset, whence in
                    guard let opaque else { return Int64(stash_averror(EINVAL)) }
                    return Unmanaged<MediaIO>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence: whence)
                })
        } else {
            allocated = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0, nil,
                { opaque, bytes, count in
                    guard let opaque, let bytes else { return stash_averror(EINVAL) }
                    return Unmanaged<MediaIO>.fromOpaque(opaque).takeUnretainedValue().read(into: bytes, count: Int(count))
                }, nil, nil)
        }
        guard let allocated else {
            av_free(buffer)
            throw RemuxError(call: "avio_alloc_context", code: stash_averror(ENOMEM), message: "no memory for \(path)")
        }
        return allocated
    }

    /// Bytes the demuxer has taken from the source so far.
    var consumed: Int64 { bytesRead }

    private func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        if failure != nil { return stash_averror(EIO) }
        guard let source else { return stash_averror(EINVAL) }
        while offset >= chunk.count {
            do {
                guard let next = try source.next() else { return stash_averror_eof() }
                chunk = next
                offset = 0
            } catch {
                failure = error
                return stash_averror(EIO)
            }
        }
        let taken = min(count, chunk.count - offset)
        chunk.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            buffer.update(from: base + offset, count: taken)
        }
        offset += taken
        bytesRead += Int64(taken)
        return Int32(taken)
    }

    private func write(_ bytes: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        if failure != nil { return stash_averror(EIO) }
        var written = 0
        do {
            while written < count {
                written += try SystemCallError.check("write", path) { Glibc.write(descriptor, bytes + written, count - written) }
            }
        } catch {
            failure = error
            return stash_averror((error as? SystemCallError)?.errnoCode ?? EIO)
        }
        return Int32(count)
    }

    private func seek(_ offset: Int64, whence: Int32) -> Int64 {
        if failure != nil { return Int64(stash_averror(EIO)) }
        let how = whence & ~Int32(AVSEEK_FORCE)
        do {
            if how == AVSEEK_SIZE {
                var info = stat()
                try SystemCallError.check("fstat", path) { fstat(descriptor, &info) }
                return Int64(info.st_size)
            }
            return Int64(try SystemCallError.check("lseek", path) { lseek(descriptor, off_t(offset), how) })
        } catch {
            // A failed seek is an answer the muxer handles, not a failure of the export.
            return Int64(stash_averror((error as? SystemCallError)?.errnoCode ?? EIO))
        }
    }
}
