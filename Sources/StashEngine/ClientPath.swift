import Foundation
import StashCore

/// A path a client named (Adopt's `path`, Forget's `move_to`, Export's `dir`), resolved: the
/// deepest folder of it that exists, as its canonical real path (symlinks and `..` resolved),
/// and the components below it that were not resolved (missing, or a last component whose
/// symlink is not to be followed). Made by `DataDirGuard.resolve`, which also refuses the data
/// dir through it.
struct ClientPath: Sendable, Equatable {
    /// As the client gave it, for messages.
    let given: String
    /// The canonical real path of the deepest existing folder.
    let base: String
    /// Below `base`, not resolved; no component is empty, `.` or `..`.
    let tail: [String]

    /// The canonical path: `base` with `tail`.
    var canonical: String {
        tail.reduce(base) { $0 == "/" ? "/" + $1 : $0 + "/" + $1 }
    }

    /// The entry `name` in this path, which must be a folder that exists (`tail` empty).
    func appending(_ name: String) -> ClientPath {
        ClientPath(given: given.hasSuffix("/") ? given + name : given + "/" + name, base: base, tail: tail + [name])
    }

    /// For messages: the path as given, and the canonical one when it differs.
    var shown: String {
        let given = String(self.given.prefix(200))
        return canonical == self.given ? "'\(given)'" : "'\(given)' (\(canonical.prefix(200)))"
    }

    /// Opens `base`; the caller releases it.
    func openBase() throws -> FolderHandle {
        try FolderHandle.open(base, followingSymlink: true)
    }

    /// Splits an absolute path: its components, without empty ones.
    static func components(of path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }

    /// realpath(3): the canonical path of what is at `path`, which must exist.
    static func realPath(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else {
            throw SystemCallError(call: "realpath", path: path, errnoCode: errno)
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
