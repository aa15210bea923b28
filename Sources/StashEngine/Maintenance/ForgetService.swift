import Foundation
import Logging
import StashCore
import Synchronization

/// Forget: a completed download's files become the user's (moved out of the data dir) and
/// its record goes, with its keys and licence released as on cancel. The move (a copy across
/// file systems, seconds for a large download) runs on the `FilePool`, not on the engine;
/// meanwhile `EngineState` holds the download (`.handOverStarts`), so nothing else changes its
/// files, and the disk watch does not take the move for a loss.
final class ForgetService: Sendable {
    private let layout: AssetLayout
    private let files: FilePool
    private let logger: Logger
    /// Moves run one at a time, so the journal names one copy at most.
    private let turn = Turn()

    init(layout: AssetLayout, files: FilePool, logger: Logger) {
        self.layout = layout
        self.files = files
        self.logger = logger
    }

    /// Moves the files to `moveTo/<file name>` (a single file) or `moveTo/<id>` (a folder, and a
    /// single file with text tracks, which go with it as they are in its folder),
    /// then removes the download as a cancel does. Returns the record as it was, its
    /// `assetPath` where the files are now.
    func forget(id: String, moveTo: String, host: some MaintenanceHost) async throws -> Download {
        guard let before = await host.download(id) else { throw StashError.notFound(id: id) }
        guard before.state == .completed else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(before.state.name); only a COMPLETED download can be forgotten with its files (cancel deletes them)")
        }
        let paths = DataDirGuard(dataDir: layout.dataDir)
        let folder = try paths.resolve(moveTo, field: "move_to", followingLast: true)
        guard folder.tail.isEmpty, let info = try? SystemCallError.status(folder.base), info.st_mode & S_IFMT == S_IFDIR else {
            throw StashError.invalidArgument("move_to \(folder.shown) is not an existing folder")
        }
        // Only a new entry is made in it: a folder that holds the data dir (the home folder)
        // is a fine place, as long as that entry is not the data dir itself (checked below).
        try paths.refuse(folder, field: "move_to", allowContaining: true)
        let start = try await host.submit(.handOverStarts(id))
        if start.stateChanged {
            let problem = start.download?.error?.message ?? "files missing or damaged"
            throw StashError(.failedPrecondition, "download '\(id)' is not whole (\(problem)); it is now FAILED: resume it, then forget it")
        }
        let download = await host.download(id) ?? before
        let target: ClientPath
        do {
            target = try await handOver(download, to: folder, paths: paths)
        } catch {
            _ = try? await host.submit(.handOverEnded(id, moved: false))
            // A client's cancel goes through the hold and deletes what was to be moved.
            if let now = await host.download(id), now.state != .removing { throw error }
            throw StashError(.failedPrecondition, "download '\(id)' was cancelled while forget moved its files; nothing was moved")
        }
        _ = try await host.submit(.handOverEnded(id, moved: true))
        logger.info("download forgotten; its files moved out", metadata: ["id": "\(id)", "to": "\(target.canonical)"])
        try await host.cancel(id: id)
        var moved = layout.publicView(download)
        moved.assetPath = target.canonical
        return moved
    }

    /// Moves the files of a held download into `folder`; returns where they are now.
    private func handOver(_ download: Download, to folder: ClientPath, paths: DataDirGuard) async throws -> ClientPath {
        let id = download.id
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
        let layout = self.layout
        let file = whole ? nil : name
        let base = folder.base
        do {
            try await turn.run {
                try await self.files.run { try Self.move(id, file, of: layout, to: base, as: name) }
            }
        } catch let error as SystemCallError where error.errnoCode == EEXIST {
            throw StashError(.alreadyExists, "\(target.canonical) exists; forget moves the files there and overwrites nothing")
        } catch let error as StashError {
            throw error
        } catch {
            throw StashError(.internal, "could not move the files of '\(id)' to \(target.canonical): \(error)")
        }
        return target
    }

    /// Moves the asset folder of `id` (or its file `file`) to `name` in `folder`, never
    /// replacing anything there; across file systems through a copy whose temporary name the
    /// journal notes while it runs, so a start after a crash deletes it. What is left in the
    /// data dir (all of it after a copy) goes with the cancel that follows.
    private static func move(_ id: String, _ file: String?, of layout: AssetLayout, to folder: String, as name: String) throws {
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
        _ = try NoReplaceMove.move(file ?? id, in: source, to: name, in: destination, temporary: temporary, willCopy: {
            try journal.note(folder: folder, name: temporary)
            noted = true
        })
    }
}

extension ForgetService {
    /// Runs one body at a time, in the order they came.
    final class Turn: Sendable {
        private struct State {
            var busy = false
            var waiting: [CheckedContinuation<Void, Never>] = []
        }

        private let state = Mutex(State())

        func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
            await withCheckedContinuation { (go: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    guard state.busy else {
                        state.busy = true
                        return true
                    }
                    state.waiting.append(go)
                    return false
                }
                if now { go.resume() }
            }
            defer {
                let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard !state.waiting.isEmpty else {
                        state.busy = false
                        return nil
                    }
                    return state.waiting.removeFirst()
                }
                next?.resume()
            }
            return try await body()
        }
    }
}
