import Foundation
import Logging
import StashCore
import Synchronization

/// The disk watch as the engine sees it: a complete download whose files are deleted,
/// truncated or replaced outside stash stops saying COMPLETED within a second (FAILED, naming
/// the file), and `resume` fetches only what is missing. `DiskWatch` says which downloads'
/// folders changed; this service hands that on as `.diskChanged`, and `EngineState` looks at
/// their files and decides. The engine's `.watch` and `.unwatch` effects come here.
final class DiskWatchService: Sendable {
    let settings: DiskWatchSettings
    private let layout: AssetLayout
    private let logger: Logger
    private let state = Mutex<State>(State())

    private struct State {
        var watch: DiskWatch?
        /// Why the watch could not start, once it could not.
        var failure: String?
    }

    init(settings: DiskWatchSettings, layout: AssetLayout, logger: Logger) {
        self.settings = settings
        self.layout = layout
        self.logger = logger
    }

    /// Starts the watch over `downloads` (those that hold complete files). `changed` is told
    /// the ids whose folders changed; `added`, once every watch is added (on `files`, so a
    /// start over 100,000 downloads does not wait for them), the ids it watched.
    func start(
        _ downloads: [Download], files: FilePool, changed: @escaping @Sendable ([String]) -> Void,
        added: @escaping @Sendable ([String]) -> Void
    ) {
        let watch: DiskWatch
        do {
            watch = try DiskWatch(settings: settings, logger: logger, changed: changed)
        } catch {
            logger.warning("the disk is not watched", metadata: ["error": "\(error)"])
            state.withLock { $0.failure = "\(error)" }
            return
        }
        state.withLock { $0.watch = watch }
        let wanted = downloads.map { download in (download.id, watchedFolders(download), watchedFiles(download)) }
        // Nothing to watch yet: no job for the file pool, whose threads would start for nothing,
        // and which a test that holds the pool's threads right after a start would find taken.
        guard !wanted.isEmpty else { return added([]) }
        Task {
            _ = try? await files.run {
                for (id, folders, files) in wanted { watch.watch(id: id, folders: folders, files: files) }
            }
            added(wanted.map(\.0))
        }
    }

    /// Watches a download's folders, and those of its files that have other names.
    func watch(_ download: Download) {
        state.withLock { $0.watch }?.watch(id: download.id, folders: watchedFolders(download), files: watchedFiles(download))
    }

    func unwatch(_ id: String) {
        state.withLock { $0.watch }?.unwatch(id: id)
    }

    func close() {
        state.withLock { $0.watch }?.close()
    }

    /// What `stash info` says when the watch could not start.
    var startWarnings: [String] {
        guard let failure = state.withLock({ $0.failure }) else { return [] }
        return ["files deleted outside stash are found only by verify and at start: the disk watch could not start (\(failure))"]
    }

    /// What `stash info` says about the watch when it does not cover every complete download.
    var coverageWarnings: [String] {
        guard let watch = state.withLock({ $0.watch }) else { return [] }
        let unwatched = watch.unwatchedCount
        guard unwatched > 0 else { return [] }
        return ["\(unwatched) complete download(s) could not be watched with inotify (the limit fs.inotify.max_user_watches was reached): their files are looked at every \(settings.pollInterval) s instead"]
    }

    /// Every folder that holds a file of the download, and its asset folder.
    func watchedFolders(_ download: Download) -> [String] {
        let base = layout.assetFolder(id: download.id)
        // Most downloads keep their files in the asset folder itself.
        if !download.files.contains(where: { $0.path.utf8.contains(UInt8(ascii: "/")) }) { return [base] }
        var folders: Set<String> = [base]
        for file in download.files {
            // By components, not NSString's path methods (which trap on some inputs).
            var folder = base
            for part in file.path.split(separator: "/").dropLast() {
                folder += "/" + part
                folders.insert(folder)
            }
        }
        return folders.sorted()
    }

    /// Every file of the download: those with other names (hard links) are watched as files too.
    private func watchedFiles(_ download: Download) -> [String] {
        download.files.map { layout.filePath(id: download.id, $0) }
    }
}
