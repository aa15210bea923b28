import Foundation
import StashCore

/// An open folder: listed with readdir, and the base of the *at calls made on its entries, so
/// nothing below it is reached through a symlink. Every walk of an asset folder, and every
/// folder stash writes into or deletes from for a client (export, forget, adopt), goes through
/// one of these.
struct FolderHandle {
    let stream: OpaquePointer
    /// For messages.
    let path: String

    var descriptor: Int32 { dirfd(stream) }

    /// Opens `path`; with `followingSymlink`, a symlink at `path` itself is followed.
    static func open(_ path: String, followingSymlink: Bool) throws -> FolderHandle {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingSymlink ? 0 : O_NOFOLLOW)
        let descriptor = try SystemCallError.check("open folder", path) { openFile(path, flags) }
        return try adopt(descriptor, path: path)
    }

    /// Opens the folder `name` in this one, refusing a symlink (ELOOP).
    func child(_ name: String) throws -> FolderHandle {
        let path = self.path + "/" + name
        let parent = descriptor
        let child = try SystemCallError.check("open folder", path) {
            openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        return try Self.adopt(child, path: path)
    }

    /// Opens the folder `components` below this one, one component at a time, none of them
    /// through a symlink; with `creating`, a missing one is made (mode 0755, less the umask).
    /// With no components, a second handle on this folder.
    func descend<Components: Collection>(_ components: Components, creating: Bool = false) throws -> FolderHandle where Components.Element: StringProtocol {
        var current = try reopened()
        for component in components {
            let name = String(component)
            guard !name.isEmpty, name != ".", name != ".." else {
                current.release()
                throw SystemCallError(call: "open folder", path: current.path + "/" + name, errnoCode: EINVAL)
            }
            let next: FolderHandle
            do {
                if creating { try current.makeFolder(name) }
                next = try current.child(name)
            } catch {
                current.release()
                throw error
            }
            current.release()
            current = next
        }
        return current
    }

    /// A second handle on this folder, released on its own.
    func reopened() throws -> FolderHandle {
        let folder = descriptor
        let again = try SystemCallError.check("open folder", path) { openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        return try Self.adopt(again, path: path)
    }

    /// mkdirat of `name` (0755 less the umask); one that is there already is left to the
    /// open that follows to judge.
    func makeFolder(_ name: String) throws {
        let folder = descriptor
        do {
            try SystemCallError.check("mkdir", path + "/" + name) { mkdirat(folder, name, 0o755) }
        } catch let error as SystemCallError where error.errnoCode == EEXIST {
            // Made meanwhile, or a file or symlink: `child` decides.
        }
    }

    private static func openFile(_ path: String, _ flags: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.open(path, flags)
        #else
        return Darwin.open(path, flags)
        #endif
    }

    private static func adopt(_ descriptor: Int32, path: String) throws -> FolderHandle {
        guard let stream = fdopendir(descriptor) else {
            let code = errno
            SystemCallError.close(descriptor)
            throw SystemCallError(call: "fdopendir", path: path, errnoCode: code)
        }
        return FolderHandle(stream: stream, path: path)
    }

    /// Closes the folder (and its descriptor).
    func release() {
        SystemCallError.closeFolder(stream)
    }

    /// The names in the folder, without "." and "..", read in full before anything is
    /// done to them (readdir need not see a folder changed while it is read).
    func names() throws -> [String] {
        rewinddir(stream)
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                let code = errno
                if code != 0 { throw SystemCallError(call: "readdir", path: path, errnoCode: code) }
                return names
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// lstat of an entry of the folder.
    func status(_ name: String) throws -> stat {
        var info = stat()
        let folder = descriptor
        try SystemCallError.check("lstat", path + "/" + name) { fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) }
        return info
    }

    /// lstat of an entry, or nil when nothing has that name.
    func statusIfPresent(_ name: String) throws -> stat? {
        do {
            return try status(name)
        } catch let error as SystemCallError where error.errnoCode == ENOENT {
            return nil
        }
    }

    /// The folder's own status.
    func ownStatus() throws -> stat {
        var info = stat()
        let folder = descriptor
        try SystemCallError.check("fstat", path) { fstat(folder, &info) }
        return info
    }

    /// Opens the entry `name` with `flags` plus O_NOFOLLOW and O_CLOEXEC; returns the descriptor.
    func openEntry(_ name: String, _ flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
        let folder = descriptor
        return try SystemCallError.check("open", path + "/" + name) { openat(folder, name, flags | O_NOFOLLOW | O_CLOEXEC, mode) }
    }

    /// The bytes of the regular file `name` (no symlink followed).
    func read(_ name: String) throws -> [UInt8] {
        let fd = try openEntry(name, O_RDONLY)
        defer { SystemCallError.close(fd) }
        var info = stat()
        try SystemCallError.check("fstat", path + "/" + name) { fstat(fd, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SystemCallError(call: "read", path: path + "/" + name, errnoCode: EISDIR)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                try SystemCallError.check("read", path + "/" + name) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// fsync of the folder: the names made or removed in it are durable.
    func sync() throws {
        let folder = descriptor
        try SystemCallError.check("fsync", path) { fsync(folder) }
    }

    /// Calls `visit` for every entry below this folder that is not a folder (a symlink is one
    /// of those), with the folder it is in, its name and its path relative to this folder. A
    /// call that fails goes to `failed`, which may throw to end the walk or return to go on
    /// without what it would have shown.
    func walk(
        relative: String = "", failed: (Error) throws -> Void, _ visit: (FolderHandle, String, String, stat) throws -> Void
    ) rethrows {
        let names: [String]
        do {
            names = try self.names()
        } catch {
            try failed(error)
            return
        }
        for name in names {
            let path = relative.isEmpty ? name : relative + "/" + name
            let info: stat
            do {
                info = try status(name)
            } catch {
                try failed(error)
                continue
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                try visit(self, name, path, info)
                continue
            }
            let folder: FolderHandle
            do {
                folder = try child(name)
            } catch {
                try failed(error)
                continue
            }
            defer { folder.release() }
            try folder.walk(relative: path, failed: failed, visit)
        }
    }

    /// Deletes the entry `name` of this folder, a folder with everything in it; a symlink is
    /// unlinked, never followed. What cannot be deleted stays, and the rest still goes.
    func removeEntry(_ name: String, counting removed: inout (files: Int, bytes: Int64)) {
        guard let info = try? status(name) else { return }
        let folder = descriptor
        let path = self.path + "/" + name
        if info.st_mode & S_IFMT == S_IFDIR {
            // Replaced by a symlink since the lstat: the open refuses it and the rmdir fails.
            if let inner = try? child(name) {
                for entry in (try? inner.names()) ?? [] { inner.removeEntry(entry, counting: &removed) }
                inner.release()
            }
            _ = try? SystemCallError.check("rmdir", path) { unlinkat(folder, name, AT_REMOVEDIR) }
        } else {
            let unlinked = try? SystemCallError.check("unlink", path) { unlinkat(folder, name, 0) }
            guard unlinked != nil else { return }
            if info.st_mode & S_IFMT == S_IFREG {
                removed.files += 1
                removed.bytes += Int64(info.st_size)
            }
        }
    }

    /// Deletes the entry `name` as `removeEntry(_:counting:)` does.
    func removeEntry(_ name: String) {
        var removed: (files: Int, bytes: Int64) = (0, 0)
        removeEntry(name, counting: &removed)
    }
}
