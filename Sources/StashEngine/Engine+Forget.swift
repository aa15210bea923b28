import Foundation
import StashCore

/// Forget: a completed download's files become the user's (moved out of the data dir) and
/// its record goes, with its keys and licence released as on cancel.
extension Engine {
    /// Moves the files to `moveTo/<file name>` (a single file) or `moveTo/<id>` (a folder, and a
    /// single file with text tracks, which go with it as they are in its folder),
    /// then removes the download as a cancel does. Returns the record as it was, its
    /// `assetPath` where the files are now.
    public func forget(id: String, moveTo: String) async throws -> Download {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard download.state == .completed else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(download.state.name); only a COMPLETED download can be forgotten with its files (cancel deletes them)")
        }
        guard moveTo.hasPrefix("/") else {
            throw StashError.invalidArgument("move_to '\(moveTo.prefix(200))' must be an absolute path")
        }
        guard let folder = try? SystemCallError.status(moveTo), (folder.st_mode & S_IFMT) == S_IFDIR else {
            throw StashError.invalidArgument("move_to '\(moveTo.prefix(200))' is not an existing folder")
        }
        // Files already damaged are not handed over as if whole.
        if let problem = filesLost(id, download, how: "found by forget") {
            throw StashError(.failedPrecondition, "download '\(id)' is not whole (\(problem)); it is now FAILED: resume it, then forget it")
        }
        let whole = download.isFolder || !download.textTracks.isEmpty
        guard whole || !download.files.isEmpty else {
            throw StashError(.failedPrecondition, "download '\(id)' has no file to hand over")
        }
        let source = whole ? layout.assetFolder(id: id) : layout.filePath(id: id, download.files[0])
        let name = whole ? id : download.files[0].path
        let target = (moveTo.hasSuffix("/") ? String(moveTo.dropLast()) : moveTo) + "/" + name
        if (try? SystemCallError.status(target, followingSymlink: false)) != nil {
            throw StashError(.alreadyExists, "\(target) exists; forget moves the files there and overwrites nothing")
        }
        // Its own move is not a loss the watch should report.
        diskWatch?.unwatch(id: id)
        do {
            try Self.move(source, to: target)
        } catch {
            followDiskWatch(download, from: .notDownloaded)
            throw StashError(.internal, "could not move \(source) to \(target): \(error)")
        }
        logger.info("download forgotten; its files moved out", metadata: ["id": "\(id)", "to": "\(target)"])
        try await cancel(id: id)
        var moved = publicView(download)
        moved.assetPath = target
        return moved
    }

    /// rename(2), or a copy and a delete across file systems.
    private static func move(_ source: String, to target: String) throws {
        do {
            try SystemCallError.check("rename", source) { rename(source, target) }
        } catch let error as SystemCallError where error.errnoCode == EXDEV {
            try FileManager.default.copyItem(atPath: source, toPath: target)
            try FileManager.default.removeItem(atPath: source)
        }
    }
}
