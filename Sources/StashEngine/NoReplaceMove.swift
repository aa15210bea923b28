import CLinux
import Foundation
import StashCore

/// Moves a file or a folder to a name that must not exist, in one step: nothing is ever
/// overwritten, and the new name never holds a part of what is moved. On one file system that
/// is renameat2 with RENAME_NOREPLACE. Across file systems the entry is copied to a temporary
/// name in the target folder (each file fsynced, each folder too), and that is renamed to the
/// new name without replacing, at the end; the source stays for the caller to delete once the
/// move is recorded. Everything is reached from open folders without following a symlink; a
/// symlink or a special file in a folder copied across file systems refuses the move.
enum NoReplaceMove {
    enum Outcome: Equatable {
        /// Renamed: the source name is gone.
        case renamed
        /// Copied across file systems: the source is still there.
        case copied
    }

    /// Bytes read and written per call when copying.
    static let copyChunk = 1 << 20

    /// Moves `name` of `source` to `target` in `destination`. `temporary` is the name the copy
    /// takes meanwhile across file systems (a name the caller can recognise as its leftover);
    /// `willCopy` runs before the copy starts (to note that leftover somewhere), `copied` after
    /// each chunk with the bytes copied so far. Throws a SystemCallError: EEXIST when `target`
    /// (or `temporary`) exists; a StashError for a symlink or special file met by a copy.
    @discardableResult
    static func move(
        _ name: String, in source: FolderHandle, to target: String, in destination: FolderHandle, temporary: String,
        willCopy: () throws -> Void = {}, copied: (Int64) throws -> Void = { _ in }
    ) throws -> Outcome {
        do {
            try rename(name, in: source, to: target, in: destination)
            return .renamed
        } catch let error as SystemCallError where error.errnoCode == EXDEV {
            // Across file systems: copied below.
        }
        // Before anything is written: a target that exists now is refused without a copy.
        if try destination.statusIfPresent(target) != nil {
            throw SystemCallError(call: "rename", path: destination.path + "/" + target, errnoCode: EEXIST)
        }
        try willCopy()
        var buffer = [UInt8](repeating: 0, count: copyChunk)
        var total: Int64 = 0
        var created = false
        do {
            try copy(name, in: source, to: temporary, in: destination, buffer: &buffer, total: &total, created: &created, copied: copied)
            try rename(temporary, in: destination, to: target, in: destination)
            try destination.sync()
        } catch {
            // Only this copy's own entry: one that was at the temporary name already is not.
            if created { destination.removeEntry(temporary) }
            throw error
        }
        return .copied
    }

    /// renameat2 with RENAME_NOREPLACE. A file system that does not offer it (EINVAL: NFS,
    /// some FUSE ones) gets the same promise another way (`renameByLink`).
    static func rename(_ name: String, in source: FolderHandle, to target: String, in destination: FolderHandle) throws {
        let from = source.descriptor
        let to = destination.descriptor
        do {
            try SystemCallError.check("rename", destination.path + "/" + target) {
                renameat2(from, name, to, target, UInt32(RENAME_NOREPLACE))
            }
        } catch let error as SystemCallError where error.errnoCode == EINVAL {
            try renameByLink(name, in: source, to: target, in: destination)
        }
    }

    /// Without RENAME_NOREPLACE: a file gets a hard link at `target` (link(2) never replaces)
    /// and loses its old name; a folder is renamed onto an empty folder made for it at
    /// `target` (mkdir(2) never replaces, and rename(2) replaces only an empty folder).
    static func renameByLink(_ name: String, in source: FolderHandle, to target: String, in destination: FolderHandle) throws {
        let from = source.descriptor
        let to = destination.descriptor
        let targetPath = destination.path + "/" + target
        let info = try source.status(name)
        if info.st_mode & S_IFMT == S_IFDIR {
            try SystemCallError.check("mkdir", targetPath) { mkdirat(to, target, 0o700) }
            do {
                try SystemCallError.check("rename", targetPath) { renameat(from, name, to, target) }
            } catch {
                // Still the empty folder made above, unless someone filled it (then it stays).
                _ = try? SystemCallError.check("rmdir", targetPath) { unlinkat(to, target, AT_REMOVEDIR) }
                throw error
            }
        } else {
            try SystemCallError.check("link", targetPath) { linkat(from, name, to, target, 0) }
            try SystemCallError.check("unlink", source.path + "/" + name) { unlinkat(from, name, 0) }
        }
    }

    /// Copies `name` (a regular file, or a folder of regular files and folders) to `target`,
    /// which must not exist; files and folders are synced before this returns.
    private static func copy(
        _ name: String, in source: FolderHandle, to target: String, in destination: FolderHandle,
        buffer: inout [UInt8], total: inout Int64, created: inout Bool, copied: (Int64) throws -> Void
    ) throws {
        let info = try source.status(name)
        let mode = info.st_mode & 0o7777
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            let input = try source.openEntry(name, O_RDONLY)
            defer { SystemCallError.close(input) }
            let outputPath = destination.path + "/" + target
            let to = destination.descriptor
            let output = try SystemCallError.check("create", outputPath) {
                openat(to, target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            }
            created = true
            defer { SystemCallError.close(output) }
            let inputPath = source.path + "/" + name
            while true {
                let count = try buffer.withUnsafeMutableBytes { bytes in
                    try SystemCallError.check("read", inputPath) { Glibc.read(input, bytes.baseAddress, bytes.count) }
                }
                if count == 0 { break }
                try buffer.withUnsafeBytes { bytes in
                    var written = 0
                    while written < count {
                        written += try SystemCallError.check("write", outputPath) {
                            Glibc.write(output, bytes.baseAddress! + written, count - written)
                        }
                    }
                }
                total += Int64(count)
                try copied(total)
            }
            try SystemCallError.check("fdatasync", outputPath) { fdatasync(output) }
        case S_IFDIR:
            let to = destination.descriptor
            try SystemCallError.check("create", destination.path + "/" + target) { mkdirat(to, target, mode | 0o700) }
            created = true
            let from = try source.child(name)
            defer { from.release() }
            let into = try destination.child(target)
            defer { into.release() }
            for entry in try from.names() {
                try copy(entry, in: from, to: entry, in: into, buffer: &buffer, total: &total, created: &created, copied: copied)
            }
            try into.sync()
        default:
            let what = info.st_mode & S_IFMT == S_IFLNK ? "a symlink" : "a special file"
            throw StashError(.failedPrecondition, "\(source.path)/\(name) is \(what), which stash neither follows nor copies to another file system; nothing was moved")
        }
    }
}
