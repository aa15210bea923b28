import Foundation

/// A tmpfs of a few MiB mounted for a test, so "the disk is full" is real rather than faked.
/// Mounting needs root (CAP_SYS_ADMIN); `mount` returns nil where it is not allowed, and the
/// test skips.
package final class SmallDisk: @unchecked Sendable {
    package let path: String
    private var mounted = true

    private init(path: String) {
        self.path = path
    }

    /// Mounts a tmpfs of `bytes` at `path` (created when missing); nil when this process may not.
    package static func mount(at path: String, bytes: Int) throws -> SmallDisk? {
        guard getuid() == 0 else { return nil }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard try run("/bin/mount", "-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", path) else { return nil }
        return SmallDisk(path: path)
    }

    /// Mounts a ramfs at `path`, a file system that refuses O_DIRECT (EINVAL) where tmpfs now
    /// takes it; nil when this process may not mount. A ramfs has no size: nothing fills it.
    package static func mountWithoutDirectIO(at path: String) throws -> SmallDisk? {
        guard getuid() == 0 else { return nil }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard try run("/bin/mount", "-t", "ramfs", "ramfs", path) else { return nil }
        return SmallDisk(path: path)
    }

    /// Grows (or shrinks) the file system in place; its files stay.
    package func resize(bytes: Int) throws -> Bool {
        try Self.run("/bin/mount", "-o", "remount,size=\(bytes)", path)
    }

    /// Remounts the file system read-only: every write to it fails with EROFS, also root's,
    /// which a folder's permission bits would not do.
    package func makeReadOnly() throws -> Bool {
        try Self.run("/bin/mount", "-o", "remount,ro", path)
    }

    /// Lazily, so a file a failed test left open cannot keep the mount (and the folder) around.
    package func unmount() {
        guard mounted else { return }
        mounted = false
        _ = try? Self.run("/bin/umount", "-l", path)
    }

    deinit {
        unmount()
    }

    private static func run(_ executable: String, _ arguments: String...) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
