import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// A file made without a name in a folder (O_TMPFILE) and given one (linkat) only once it is
/// whole and durable, so nothing partial ever has a name: an export's one file, a small
/// download's file. The one place that knows how to open and name one.
package enum UnnamedFile {
    /// Opens an unnamed file in the folder `directory` (`path` names it in errors) with
    /// `flags` besides O_TMPFILE and O_CLOEXEC. Nil where the file system has no unnamed files,
    /// or refuses `flags` for one: EOPNOTSUPP (NFS, some FUSE), EISDIR (a kernel that reads
    /// O_TMPFILE as O_DIRECTORY), EINVAL (O_DIRECT on a file system without it). Any other
    /// failure throws.
    package static func open(in directory: Int32, path: @autoclosure () -> String, flags: Int32) throws -> Int32? {
        do {
            return try SystemCallError.check("open(O_TMPFILE)", path()) {
                openat(directory, ".", stash_o_tmpfile() | O_CLOEXEC | flags, 0o644)
            }
        } catch let error as SystemCallError where [EOPNOTSUPP, EISDIR, EINVAL].contains(error.errnoCode) {
            return nil
        }
    }

    /// Gives the unnamed file `descriptor` the name `name` in the folder `directory` (`path`
    /// is that name's path, for errors). linkat never replaces: a name already taken is EEXIST.
    /// Through its /proc/self/fd link, as linkat(2) with AT_EMPTY_PATH needs a capability.
    package static func link(_ descriptor: Int32, in directory: Int32, as name: String, path: @autoclosure () -> String) throws {
        let source = "/proc/self/fd/\(descriptor)"
        try SystemCallError.check("linkat", path()) { linkat(AT_FDCWD, source, directory, name, AT_SYMLINK_FOLLOW) }
    }

    /// Whether this process can name unnamed files: /proc is there to reach them through.
    package static let canLink = access("/proc/self/fd", X_OK) == 0
}
