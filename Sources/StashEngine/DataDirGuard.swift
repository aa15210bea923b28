import Foundation
import StashCore

/// The one rule for a path a client names: stash neither takes anything from its data dir
/// (the registry, the lock, the keys, another download's folder) nor puts anything there, and
/// does not act on a folder that holds it. Adopt's `path`, Forget's target and Export's `dir`
/// are resolved here (`resolve`) and refused when they are the data dir, inside it or contain
/// it (`refuse`), compared twice: as canonical real paths (symlinks of the existing part and
/// `..` resolved), and by device and inode of each folder above the path, which sees through a
/// bind mount or a second mount of the same file system too.
///
/// The rest of the rule lives beside it: below a folder opened here, and below an asset
/// folder, everything is reached through `FolderHandle` (openat with O_NOFOLLOW, one component
/// at a time), and moves are `NoReplaceMove`'s (renameat2 with RENAME_NOREPLACE, or a copy to
/// a temporary name renamed at the end across file systems). Paths inside an asset folder that
/// a client gives (bundle files, appended files, text tracks) are relative and checked by
/// `BundleRules.validatePath`; the transfers open them from the asset folder's descriptor.
struct DataDirGuard: Sendable {
    /// As stashd was given it.
    let dataDir: String

    /// How the data dir and a path are related, when they are.
    enum Overlap: Equatable {
        case same, inside, containing
    }

    /// Checks the form of `path` (absolute, no NUL, within PATH_MAX) and resolves it: the
    /// deepest existing folder of it as a canonical path, the rest as components. With
    /// `followingLast` false, the last component is kept as it is (a symlink there is the
    /// thing itself, not what it points at) and may be neither `.` nor `..`.
    func resolve(_ path: String, field: String, followingLast: Bool) throws -> ClientPath {
        let shown = String(path.prefix(200)).replacingOccurrences(of: "\0", with: "\\0")
        guard path.hasPrefix("/") else { throw StashError.invalidArgument("\(field) '\(shown)' must be an absolute path") }
        guard !path.utf8.contains(0) else { throw StashError.invalidArgument("\(field) '\(shown)' contains a NUL byte") }
        let limit = Int(PATH_MAX) - 1
        guard path.utf8.count <= limit else {
            throw StashError.invalidArgument("\(field) '\(shown)…' is \(path.utf8.count) bytes; the limit is \(limit)")
        }
        var components = ClientPath.components(of: path)
        var held: [String] = []
        if !followingLast, let last = components.popLast() {
            guard last != ".", last != ".." else {
                throw StashError.invalidArgument("\(field) '\(shown)' ends in '\(last)'; name the file or folder itself")
            }
            held = [last]
        }
        // The longest prefix that exists; what is below it cannot hold a symlink yet.
        var resolvedCount = components.count
        while true {
            let prefix = "/" + components[0..<resolvedCount].joined(separator: "/")
            do {
                let base = try ClientPath.realPath(prefix)
                let rest = Array(components[resolvedCount...])
                if let odd = rest.first(where: { $0 == "." || $0 == ".." }) {
                    throw StashError.invalidArgument("\(field) '\(shown)' has '\(odd)' below a folder that does not exist")
                }
                return ClientPath(given: path, base: base, tail: rest + held)
            } catch let error as SystemCallError where (error.errnoCode == ENOENT || error.errnoCode == ENOTDIR) && resolvedCount > 0 {
                resolvedCount -= 1
            } catch let error as SystemCallError {
                throw StashError.invalidArgument("\(field) '\(shown)' cannot be resolved: \(error)")
            }
        }
    }

    /// Refuses `path` when it is the data dir, inside it, or (unless `allowContaining`: a
    /// folder stash only puts a new entry into) contains it, with INVALID_ARGUMENT naming the
    /// field, the path and why.
    func refuse(_ path: ClientPath, field: String, allowContaining: Bool = false) throws {
        guard let overlap = overlap(path), overlap != .containing || !allowContaining else { return }
        let data = (try? ClientPath.realPath(dataDir)) ?? dataDir
        let why: String
        switch overlap {
        case .same: why = "is stash's data dir"
        case .inside: why = "is inside stash's data dir \(data)"
        case .containing: why = "contains stash's data dir \(data)"
        }
        throw StashError.invalidArgument(
            "\(field) \(path.shown) \(why): stash's registry, lock, keys and downloads are never taken, given away or overwritten; use a path outside it")
    }

    /// How `path` and the data dir overlap, if they do.
    func overlap(_ path: ClientPath) -> Overlap? {
        let data = (try? ClientPath.realPath(dataDir)) ?? dataDir
        let candidate = path.canonical
        if candidate == data { return .same }
        if candidate == "/" || data.hasPrefix(candidate + "/") { return .containing }
        if candidate.hasPrefix(data == "/" ? "/" : data + "/") { return .inside }
        return overlapByIdentity(path, data: data)
    }

    /// The same question by device and inode: the existing folders of `path`, from itself up
    /// to `/`, against the data dir; and `path` itself against the folders above the data dir.
    private func overlapByIdentity(_ path: ClientPath, data: String) -> Overlap? {
        guard let dataID = Self.identity(data, followingSymlink: true) else { return nil }
        var above: [Identity] = []
        var folder = data
        while folder != "/" {
            folder = Self.parent(of: folder)
            if let id = Self.identity(folder, followingSymlink: true) { above.append(id) }
        }
        // `path` itself, when something is there (a last component not followed is looked at
        // as it is).
        if let itself = Self.identity(path.canonical, followingSymlink: false) {
            if itself == dataID { return .same }
            if above.contains(itself) { return .containing }
        }
        var ancestor = path.tail.isEmpty ? Self.parent(of: path.base) : path.base
        while true {
            if Self.identity(ancestor, followingSymlink: true) == dataID { return .inside }
            if ancestor == "/" { return nil }
            ancestor = Self.parent(of: ancestor)
        }
    }

    private struct Identity: Equatable {
        var device: dev_t
        var inode: ino_t
    }

    private static func identity(_ path: String, followingSymlink: Bool) -> Identity? {
        guard let info = try? SystemCallError.status(path, followingSymlink: followingSymlink) else { return nil }
        return Identity(device: info.st_dev, inode: info.st_ino)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
