import Foundation
import StashCore

/// Writes a small file the daemon makes itself (a package playlist) so that after a crash it
/// is either the old version or the new one: temp file, fsync, rename, fsync of the folder.
/// Below the folder it is given, every folder is opened (or made) one component at a time
/// without following a symlink, and the file is written and renamed relative to its folder, so
/// a symlink planted in an asset folder fails the write instead of leading out of it.
enum DurableFile {
    /// Writes `relativePath` below `folder` (an asset folder: made when missing, and itself
    /// not followed if it is a symlink).
    static func write(_ bytes: [UInt8], folder: String, relativePath: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(.storage, "cannot create folder \(folder): \(error.localizedDescription)")
        }
        let root: FolderHandle
        do {
            root = try FolderHandle.open(folder, followingSymlink: false)
        } catch {
            throw DownloadError(.storage, "\(error): a symlink or a file is where the folder belongs, and no symlink is followed there")
        }
        defer { root.release() }
        try write(bytes, in: root, relativePath: relativePath)
    }

    /// Writes `relativePath` below the open folder `root`.
    static func write(_ bytes: [UInt8], in root: FolderHandle, relativePath: String) throws {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard let last = components.last, !last.isEmpty else {
            throw DownloadError(.storage, "'\(relativePath)' is not a file's path inside \(root.path)")
        }
        let name = String(last)
        let temp = name + ".tmp"
        do {
            let parent: FolderHandle
            do {
                parent = try root.descend(components.dropLast(), creating: true)
            } catch let error as SystemCallError where error.errnoCode == ELOOP || error.errnoCode == ENOTDIR {
                throw DownloadError(.storage, "\(error): a symlink or a file is where a folder belongs, and no symlink is followed there")
            }
            defer { parent.release() }
            let fd = try parent.openEntry(temp, O_WRONLY | O_CREAT | O_TRUNC)
            defer { SystemCallError.close(fd) }
            let tempPath = parent.path + "/" + temp
            try writeAll(bytes, to: fd, path: tempPath)
            try SystemCallError.check("fsync", tempPath) { fsync(fd) }
            let folder = parent.descriptor
            try SystemCallError.check("rename", parent.path + "/" + name) { renameat(folder, temp, folder, name) }
            try parent.sync()
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
