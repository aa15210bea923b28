import Foundation
import StashCore

/// The disk watch: a complete download whose files are deleted, truncated or replaced outside
/// stash stops saying COMPLETED within a second (FAILED, naming the file), and `resume` fetches
/// only what is missing. `DiskWatch` says which downloads' folders changed; this looks at their
/// files and decides.
extension Engine {
    /// Starts the watch over every download that holds complete files. The watches are added
    /// off the engine (one system call per folder), so a start over 100,000 downloads does not
    /// wait for them.
    func startDiskWatch() {
        let watch: DiskWatch
        do {
            watch = try DiskWatch(settings: diskWatchSettings, logger: logger) { [weak self] ids in
                guard let self else { return }
                Task { await self.filesChanged(ids) }
            }
        } catch {
            logger.warning("the disk is not watched", metadata: ["error": "\(error)"])
            warnings.append("files deleted outside stash are found only by verify and at start: the disk watch could not start (\(error))")
            return
        }
        diskWatch = watch
        let wanted = entries.values.filter { $0.download.state.holdsCompleteFiles }.map { entry in
            (entry.download.id, watchedFolders(entry.download), watchedFiles(entry.download))
        }
        Task.detached { [weak self] in
            for (id, folders, files) in wanted { watch.watch(id: id, folders: folders, files: files) }
            // A download that stopped being complete while these were added keeps no watch.
            await self?.dropStaleWatches(wanted.map(\.0))
        }
    }

    private func dropStaleWatches(_ ids: [String]) {
        for id in ids where entries[id]?.download.state.holdsCompleteFiles != true {
            diskWatch?.unwatch(id: id)
        }
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
    func watchedFiles(_ download: Download) -> [String] {
        download.files.map { layout.filePath(id: download.id, $0) }
    }

    /// A state change in or out of the states that hold complete files starts or stops its
    /// watch.
    func followDiskWatch(_ download: Download, from previous: DownloadState) {
        guard let diskWatch, previous.holdsCompleteFiles != download.state.holdsCompleteFiles else { return }
        if download.state.holdsCompleteFiles {
            diskWatch.watch(id: download.id, folders: watchedFolders(download), files: watchedFiles(download))
        } else {
            diskWatch.unwatch(id: download.id)
        }
    }

    /// Looks at the files of downloads whose folders changed: one whose file is gone or has
    /// another size than recorded is FAILED, naming the file.
    func filesChanged(_ ids: [String]) {
        for id in ids {
            guard let entry = entries[id], entry.download.state.holdsCompleteFiles else { continue }
            _ = filesLost(id, entry.download, how: "outside stash")
        }
    }

    /// Checks a complete download's files against their recorded sizes; when one is wrong,
    /// moves the download to FAILED (its intact files stay done, so `resume` fetches only the
    /// rest) and returns the problem.
    func filesLost(_ id: String, _ download: Download, how: String) -> String? {
        let sizes = FileSizeProbe.sizes(of: download.files.map { id + "/" + $0.path }, under: layout.assetsDir)
        var checked = download
        var findings: [VerifyFinding] = []
        var lost = reconcileFiles(&checked, sizes: sizes[...], findings: &findings)
        if lost == nil, !download.hlsPlaylists.isEmpty {
            // The package's playlists are written by stash, not fetched: `resume` reads them again.
            let playlists = FileSizeProbe.sizes(of: download.hlsPlaylists.map { id + "/" + $0 }, under: layout.assetsDir)
            if let missing = zip(download.hlsPlaylists, playlists).first(where: { $0.1 == nil })?.0 {
                lost = "playlist missing on disk: \(layout.assetFolder(id: id))/\(missing)"
            }
        }
        guard let problem = lost else { return nil }
        logger.warning("files of a complete download are gone or changed", metadata: ["id": "\(id)", "problem": "\(problem)", "found": "\(how)"])
        entries[id]?.download.files = checked.files
        _ = try? transition(id, .filesLost) { record in
            record.files = checked.files
            record.filesDone = checked.filesDone
            record.downloadedBytes = checked.downloadedBytes
            record.error = DownloadError(.storage, problem)
            record.stateReason = "\(problem) (changed \(how)); resume fetches what is missing"
            record.completedAt = nil
        }
        return problem
    }

    /// What `stash info` says about the watch when it does not cover every complete download.
    var diskWatchWarnings: [String] {
        guard let diskWatch else { return [] }
        let unwatched = diskWatch.unwatchedCount
        guard unwatched > 0 else { return [] }
        return ["\(unwatched) complete download(s) could not be watched with inotify (the limit fs.inotify.max_user_watches was reached): their files are looked at every \(diskWatch.settings.pollInterval) s instead"]
    }
}
