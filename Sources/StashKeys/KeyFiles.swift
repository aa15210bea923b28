import Foundation
import StashCore

/// The POSIX file operations the key store needs, each checked through
/// `SystemCallError.check`. Plain syscalls rather than FileManager so that modes are exact
/// (no umask surprises), nothing follows a planted symlink, and every durability step
/// (fsync of the file, then of its folder) is explicit.
enum KeyFiles {
    /// Creates `path` as a directory with `mode`, or, when it exists, makes sure it is a
    /// directory and takes away any permission beyond `mode`. Returns true when it was created.
    @discardableResult
    static func makeDirectory(_ path: String, mode: mode_t) throws -> Bool {
        do {
            try SystemCallError.check("mkdir", path) { mkdir(path, mode) }
            // mkdir's mode is filtered by the umask; set it exactly.
            try SystemCallError.check("chmod", path) { chmod(path, mode) }
            return true
        } catch let error as SystemCallError where error.errnoCode == EEXIST {
            var info = stat()
            try SystemCallError.check("lstat", path) { lstat(path, &info) }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw SystemCallError(call: "mkdir", path: path, errnoCode: ENOTDIR)
            }
            let permissions = info.st_mode & 0o7777
            if permissions & ~mode != 0 {
                try SystemCallError.check("chmod", path) { chmod(path, permissions & mode) }
            }
            return false
        }
    }

    /// Reads the whole regular file at `path`, or returns nil when it does not exist.
    /// Refuses files larger than `limit` (returns what `tooLarge` throws) so a corrupt or
    /// planted file cannot make us read gigabytes.
    static func readFile(_ path: String, limit: Int, tooLarge: (Int) -> Error) throws -> [UInt8]? {
        let fd: Int32
        do {
            fd = try SystemCallError.check("open", path) { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        } catch let error as SystemCallError where error.errnoCode == ENOENT {
            return nil
        }
        defer { SystemCallError.close(fd) }
        var info = stat()
        try SystemCallError.check("fstat", path) { fstat(fd, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SystemCallError(call: "open", path: path, errnoCode: EISDIR)
        }
        let size = Int(info.st_size)
        guard size <= limit else { throw tooLarge(size) }
        // One byte of room so a file that grew since fstat is noticed rather than cut short.
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var filled = 0
        while filled < bytes.count {
            let count = try bytes.withUnsafeMutableBytes { buffer in
                try SystemCallError.check("read", path) {
                    read(fd, buffer.baseAddress! + filled, buffer.count - filled)
                }
            }
            if count == 0 { break }
            filled += count
        }
        guard filled <= limit else { throw tooLarge(filled) }
        return Array(bytes[..<filled])
    }

    /// Creates `path` (which must not exist) with mode 0600, writes `bytes` and fsyncs it.
    /// The caller fsyncs the folder once the file has its final name.
    static func writeNewFile(_ path: String, _ bytes: [UInt8]) throws {
        let fd = try SystemCallError.check("open", path) {
            open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        var closed = false
        defer { if !closed { SystemCallError.close(fd) } }
        try SystemCallError.check("fchmod", path) { fchmod(fd, 0o600) }
        var written = 0
        while written < bytes.count {
            let count = try bytes.withUnsafeBytes { buffer in
                try SystemCallError.check("write", path) {
                    write(fd, buffer.baseAddress! + written, buffer.count - written)
                }
            }
            written += count
        }
        try SystemCallError.check("fsync", path) { fsync(fd) }
        closed = true
        try SystemCallError.check("close", path) { close(fd) }
    }

    /// Makes the folder's entries (a create, rename or unlink in it) survive a crash.
    static func syncDirectory(_ path: String) throws {
        let fd = try SystemCallError.check("open", path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { SystemCallError.close(fd) }
        try SystemCallError.check("fsync", path) { fsync(fd) }
    }

    /// The names in a folder (without "." and ".."), or nil when the folder does not exist.
    static func listDirectory(_ path: String) throws -> [String]? {
        guard let dir = opendir(path) else {
            let code = errno
            if code == ENOENT { return nil }
            throw SystemCallError(call: "opendir", path: path, errnoCode: code)
        }
        defer { SystemCallError.closeFolder(dir) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw SystemCallError(call: "readdir", path: path, errnoCode: errno) }
                break
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// True when `path` exists and is a directory (symlinks are not followed).
    static func isDirectory(_ path: String) -> Bool {
        guard let info = try? SystemCallError.status(path, followingSymlink: false) else { return false }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    /// Removes a file; a file that is already gone is not an error. Returns true when removed.
    @discardableResult
    static func removeFile(_ path: String) throws -> Bool {
        do {
            try SystemCallError.check("unlink", path) { unlink(path) }
            return true
        } catch let error as SystemCallError where error.errnoCode == ENOENT {
            return false
        }
    }

    /// Removes a folder when it is empty; returns false (and leaves it) when it is not or is gone.
    @discardableResult
    static func removeDirectoryIfEmpty(_ path: String) throws -> Bool {
        do {
            try SystemCallError.check("rmdir", path) { rmdir(path) }
            return true
        } catch let error as SystemCallError
            where error.errnoCode == ENOTEMPTY || error.errnoCode == EEXIST || error.errnoCode == ENOENT
        {
            return false
        }
    }

    /// A name for a temporary file next to `name`. The leading dot keeps it out of listings.
    static func temporaryName(for name: String) -> String {
        ".\(name).tmp-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
    }
}
