import Foundation
import Logging
import StashCore

/// How an adopted file or folder enters `assets/<id>/`: moved (renameat2 without replacing,
/// or across file systems a copy under a temporary name renamed at the end, the originals
/// deleted only once the download is recorded) or, with `link`, hard-linked file by file.
/// Everything is reached from open folders without following a symlink.
struct AdoptPlacement {
    enum Placed: Equatable {
        /// Renamed into place: the user's path is empty now.
        case moved
        /// Copied across file systems: the user's originals are still there.
        case copied
        /// Hard links: the user's files stay where they are.
        case linked
    }

    /// The file or folder adopted (its last component not followed).
    let source: ClientPath
    let id: String
    let assetsDir: String
    /// The name a single file takes in the asset folder; nil for a folder, which becomes the
    /// asset folder itself.
    let fileName: String?
    let link: Bool

    private var entry: String { source.tail[0] }
    /// A copy in progress, in `assets/`: should stashd die meanwhile, it is an orphan that
    /// verify reports and purge deletes.
    private var temporary: String { ".stash-adopt-\(id).part" }

    /// Puts the files in place; on a failure nothing of the user's has moved and nothing is
    /// left in `assets/`.
    func place(files: [DownloadFile]) throws -> Placed {
        do {
            let parent = try source.openBase()
            defer { parent.release() }
            let assets = try FolderHandle.open(assetsDir, followingSymlink: true)
            defer { assets.release() }
            guard let fileName else {
                if link { return try linkFolder(files, from: parent, into: assets) }
                let outcome = try NoReplaceMove.move(entry, in: parent, to: id, in: assets, temporary: temporary)
                return outcome == .renamed ? .moved : .copied
            }
            let folder = try makeAssetFolder(in: assets)
            defer { folder.release() }
            do {
                if link {
                    try Self.link(entry, in: parent, to: fileName, in: folder)
                    return .linked
                }
                let outcome = try NoReplaceMove.move(entry, in: parent, to: fileName, in: folder, temporary: temporary)
                return outcome == .renamed ? .moved : .copied
            } catch {
                // The folder made above, still empty (a move that failed took nothing in).
                assets.removeEntry(id)
                throw error
            }
        } catch let error as SystemCallError where link && error.errnoCode == EXDEV {
            throw StashError.invalidArgument("\(source.shown) is on another file system than the data dir, where a hard link cannot go; adopt it without link to move it")
        } catch let error as SystemCallError where error.errnoCode == EEXIST {
            throw StashError(.alreadyExists, "\(assetsDir)/\(id) exists though no download owns it; `stash purge` deletes it, or adopt under another id")
        } catch let error as StashError {
            throw error
        } catch {
            throw StashError(.internal, "could not take \(source.shown) into \(assetsDir)/\(id): \(error)")
        }
    }

    /// A download that could not be recorded: the files go back where they were, as far as
    /// they can; copies and links are deleted (the originals are still in place).
    func takeBack(_ placed: Placed, logger: Logger) {
        guard let assets = try? FolderHandle.open(assetsDir, followingSymlink: true) else { return }
        defer { assets.release() }
        if placed == .moved {
            do {
                let parent = try source.openBase()
                defer { parent.release() }
                if let fileName {
                    let folder = try assets.child(id)
                    defer { folder.release() }
                    try NoReplaceMove.rename(fileName, in: folder, to: entry, in: parent)
                } else {
                    try NoReplaceMove.rename(id, in: assets, to: entry, in: parent)
                }
            } catch {
                // What could not go back stays in assets/: an orphan that purge would delete,
                // so the log says where it is.
                logger.error("an adopted file could not be put back", metadata: ["id": "\(id)", "path": "\(source.canonical)", "error": "\(error)"])
                return
            }
            if fileName == nil { return }
        }
        assets.removeEntry(id)
    }

    /// Deletes the user's originals of a copy that is now recorded.
    func removeSource(logger: Logger) {
        do {
            let parent = try source.openBase()
            defer { parent.release() }
            parent.removeEntry(entry)
            if try parent.statusIfPresent(entry) != nil {
                throw SystemCallError(call: "remove", path: source.canonical, errnoCode: ENOTEMPTY)
            }
        } catch {
            logger.warning("the originals of an adopted copy could not be deleted", metadata: ["id": "\(id)", "path": "\(source.canonical)", "error": "\(error)"])
        }
    }

    /// `assets/<id>`, made here: one that exists belongs to nobody and is not taken.
    private func makeAssetFolder(in assets: FolderHandle) throws -> FolderHandle {
        let folder = assets.descriptor
        try SystemCallError.check("mkdir", assets.path + "/" + id) { mkdirat(folder, id, 0o755) }
        return try assets.child(id)
    }

    /// Hard-links each file of the folder into a new asset folder, folders made as needed.
    private func linkFolder(_ files: [DownloadFile], from parent: FolderHandle, into assets: FolderHandle) throws -> Placed {
        let folder = try makeAssetFolder(in: assets)
        defer { folder.release() }
        do {
            let from = try parent.child(entry)
            defer { from.release() }
            for file in files {
                let components = file.path.split(separator: "/")
                guard let name = components.last.map(String.init) else { continue }
                let sourceFolder = try from.descend(components.dropLast())
                defer { sourceFolder.release() }
                let targetFolder = try folder.descend(components.dropLast(), creating: true)
                defer { targetFolder.release() }
                try Self.link(name, in: sourceFolder, to: name, in: targetFolder)
            }
        } catch {
            // Links only: nothing of the user's is lost.
            assets.removeEntry(id)
            throw error
        }
        return .linked
    }

    /// linkat(2) without following a symlink at `name`.
    private static func link(_ name: String, in source: FolderHandle, to target: String, in destination: FolderHandle) throws {
        let from = source.descriptor
        let to = destination.descriptor
        try SystemCallError.check("link", destination.path + "/" + target) { linkat(from, name, to, target, 0) }
    }
}
