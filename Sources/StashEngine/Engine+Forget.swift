import Foundation
import StashCore

/// Forget: a completed download's files become the user's (moved out of the data dir) and
/// its record goes, with its keys and licence released as on cancel.
extension Engine {
    /// Moves the files to `moveTo/<file name>` (a single file) or `moveTo/<id>` (a folder, and a
    /// single file with text tracks, which go with it as they are in its folder),
    /// then removes the download as a cancel does. Returns the record as it was, its
    /// `assetPath` where the files are now.
    package func forget(id: String, moveTo: String) async throws -> Download {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard download.state == .completed else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(download.state.name); only a COMPLETED download can be forgotten with its files (cancel deletes them)")
        }
        let paths = DataDirGuard(dataDir: layout.dataDir)
        let folder = try paths.resolve(moveTo, field: "move_to", followingLast: true)
        guard folder.tail.isEmpty, let info = try? SystemCallError.status(folder.base), info.st_mode & S_IFMT == S_IFDIR else {
            throw StashError.invalidArgument("move_to \(folder.shown) is not an existing folder")
        }
        // Only a new entry is made in it: a folder that holds the data dir (the home folder)
        // is a fine place, as long as that entry is not the data dir itself (checked below).
        try paths.refuse(folder, field: "move_to", allowContaining: true)
        // Files already damaged are not handed over as if whole.
        if let problem = filesLost(id, download, how: "found by forget") {
            throw StashError(.failedPrecondition, "download '\(id)' is not whole (\(problem)); it is now FAILED: resume it, then forget it")
        }
        let whole = download.isFolder || !download.textTracks.isEmpty
        guard whole || !download.files.isEmpty else {
            throw StashError(.failedPrecondition, "download '\(id)' has no file to hand over")
        }
        let name = whole ? id : download.files[0].path
        let target = folder.appending(name)
        try paths.refuse(target, field: "move_to")
        if (try? SystemCallError.status(target.canonical, followingSymlink: false)) != nil {
            throw StashError(.alreadyExists, "\(target.canonical) exists; forget moves the files there and overwrites nothing")
        }
        // Its own move is not a loss the watch should report.
        diskWatch?.unwatch(id: id)
        do {
            try handOver(id, whole ? nil : name, to: folder.base, as: name)
        } catch {
            followDiskWatch(download, from: .notDownloaded)
            if let error = error as? SystemCallError, error.errnoCode == EEXIST {
                throw StashError(.alreadyExists, "\(target.canonical) exists; forget moves the files there and overwrites nothing")
            }
            if let error = error as? StashError { throw error }
            throw StashError(.internal, "could not move the files of '\(id)' to \(target.canonical): \(error)")
        }
        logger.info("download forgotten; its files moved out", metadata: ["id": "\(id)", "to": "\(target.canonical)"])
        try await cancel(id: id)
        var moved = publicView(download)
        moved.assetPath = target.canonical
        return moved
    }

    /// Moves the asset folder of `id` (or its file `file`) to `name` in `folder`, never
    /// replacing anything there; across file systems through a copy whose temporary name the
    /// journal notes while it runs, so a start after a crash deletes it. What is left in the
    /// data dir (all of it after a copy) goes with the cancel that follows.
    private func handOver(_ id: String, _ file: String?, to folder: String, as name: String) throws {
        let assets = try FolderHandle.open(layout.assetsDir, followingSymlink: true)
        defer { assets.release() }
        let source = try file == nil ? assets.reopened() : assets.child(id)
        defer { source.release() }
        let destination = try FolderHandle.open(folder, followingSymlink: true)
        defer { destination.release() }
        let journal = ForgetJournal(dataDir: layout.dataDir)
        let temporary = ForgetJournal.temporaryName(id: id)
        var noted = false
        // Renamed into place or taken back by the move: either way nothing is left to clean.
        defer { if noted { journal.clear() } }
        try NoReplaceMove.move(file ?? id, in: source, to: name, in: destination, temporary: temporary, willCopy: {
            try journal.note(folder: folder, name: temporary)
            noted = true
        })
    }
}
