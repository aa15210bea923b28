import Foundation
import StashCore

/// Writes a small file the daemon makes itself (a package playlist) so that after a crash it
/// is either the old version or the new one: temp file, fsync, rename, fsync of the folder.
enum DurableFile {
    static func write(_ bytes: [UInt8], folder: String, relativePath: String) throws {
        let path = folder + "/" + relativePath
        let parent = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(.storage, "cannot create folder \(parent): \(error.localizedDescription)")
        }
        let temp = path + ".tmp"
        do {
            let fd = try SystemCallError.check("open", temp) { open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644) }
            defer { SystemCallError.close(fd) }
            try writeAll(bytes, to: fd, path: temp)
            try SystemCallError.check("fsync", temp) { fsync(fd) }
            try SystemCallError.check("rename", path) { rename(temp, path) }
            let dir = try SystemCallError.check("open", parent) { open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            defer { SystemCallError.close(dir) }
            try SystemCallError.check("fsync", parent) { fsync(dir) }
        } catch let error as SystemCallError {
            throw DownloadError(.storage, "\(error)")
        }
    }

    /// write(2) until every byte is written: a short write is not an error.
    static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws {
        var written = 0
        while written < bytes.count {
            written += try SystemCallError.check("write", path) {
                bytes.withUnsafeBytes { buffer in
                    guard let base = buffer.baseAddress else { return 0 }
                    return Glibc.write(fd, base + written, buffer.count - written)
                }
            }
        }
    }
}
