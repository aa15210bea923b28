import Crypto
import Foundation
import StashCore

/// The open part file of one transfer, with the running SHA-256 of the bytes in it when a
/// digest is expected (hashing costs as much CPU as the rest of a fast transfer, so it is
/// done only when it is checked). Owned by one thread at a time: the disk queue while it opens
/// or commits the file, the fetch thread in between; writes go straight to pwrite(2) because
/// they are on the hot path.
final class PartFile: @unchecked Sendable {
    let path: String
    private(set) var descriptor: Int32
    /// Bytes in the file, all of them covered by `hasher` when there is one.
    private(set) var size: Int64
    private var hasher: SHA256?
    private let writeBehind: WriteBehind

    /// Opens (creating parent folders and the file) without changing its content.
    init(path: String, hashing: Bool) throws {
        self.path = path
        self.hasher = hashing ? SHA256() : nil
        self.writeBehind = WriteBehind(path: path)
        let parent = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(.storage, "cannot create folder '\(parent)': \(error.localizedDescription)")
        }
        descriptor = try SystemCall.check("open", path: path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        var info = stat()
        let fd = descriptor
        try SystemCall.check("fstat", path: path) { fstat(fd, &info) }
        size = Int64(info.st_size)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Hashes what is already in the file so a resumed transfer still reports the digest of
    /// the whole file without reading it again at the end.
    func hashExistingContent() throws {
        guard hasher != nil else { return }
        hasher = SHA256()
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        let fd = descriptor
        while offset < size {
            let want = Int(min(Int64(chunk), size - offset))
            let got = try SystemCall.check("read", path: path) { pread(fd, buffer.baseAddress, want, off_t(offset)) }
            if got == 0 { break }
            hasher?.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            offset += Int64(got)
        }
        size = offset
    }

    func truncate() throws {
        let fd = descriptor
        try SystemCall.check("ftruncate", path: path) { ftruncate(fd, 0) }
        size = 0
        if hasher != nil { hasher = SHA256() }
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        var written = 0
        let fd = descriptor
        while written < bytes.count {
            let start = written
            let count = try SystemCall.check("write", path: path) {
                pwrite(fd, bytes.baseAddress! + start, bytes.count - start, off_t(size + Int64(start)))
            }
            written += count
        }
        hasher?.update(bufferPointer: bytes)
        size += Int64(bytes.count)
        writeBehind.wrote(bytes.count, descriptor: fd)
    }

    /// Lowercase hex digest of the bytes written so far; empty when not hashing.
    var sha256Hex: String {
        guard let hasher else { return "" }
        return hasher.finalize().map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// fsyncs, closes and renames to `finalPath`, then fsyncs the folder so the rename
    /// survives a crash.
    func commit(to finalPath: String) throws {
        let fd = descriptor
        try writeBehind.check()
        try SystemCall.check("fsync", path: path) { fsync(fd) }
        closeFile()
        let parent = (finalPath as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(.storage, "cannot create folder '\(parent)': \(error.localizedDescription)")
        }
        try SystemCall.check("rename to '\(finalPath)' from", path: path) { rename(path, finalPath) }
        let folder = try SystemCall.check("open", path: parent) { open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(folder) }
        try SystemCall.check("fsync", path: parent) { fsync(folder) }
    }

    func closeFile() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    func remove() {
        closeFile()
        unlink(path)
    }
}
