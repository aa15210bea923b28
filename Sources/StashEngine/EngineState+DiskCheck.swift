import Foundation
import StashCore

/// What is on disk against what a record says: at start (`reconcileFiles`, one stat per
/// file), and while stashd runs, when the disk watch names a download or forget is about to
/// hand its files over (`checkFiles`).
extension EngineState {
    /// Reads one loaded record's files from the disk (`sizes`: those of its final paths, in
    /// order; `parts`: those of their part files when a start measured them, else each is
    /// asked of the disk): which are complete (of the recorded size) and how many bytes the
    /// others hold. Returns what is wrong with a file that should be there, where a caller
    /// uses it (a complete, active or removed download: for a queued one a file not there yet
    /// is no problem); the files a complete download lacks are verify's findings (one stat
    /// per file serves both). A bundle file whose size was lost with the daemon is noted
    /// (`effects`).
    func reconcileFiles(
        _ download: inout Download, sizes: ArraySlice<Int64?>, parts: ArraySlice<Int64?>? = nil, findings: inout [VerifyFinding],
        into effects: inout [EngineEffect]
    ) -> String? {
        let id = download.id
        let shouldBeComplete = download.state.holdsCompleteFiles || (download.state == .failed && download.error?.kind == .storage)
        let describe = shouldBeComplete || download.state.isActive || download.state == .removing
        var problem: String?
        var done = 0
        var bytes: Int64 = 0
        for (offset, index) in download.files.indices.enumerated() {
            let size = sizes[sizes.startIndex + offset]
            if let size, download.files[index].size == nil || download.files[index].size == size {
                if download.files[index].size == nil, !download.state.holdsCompleteFiles {
                    // A bundle file that landed after its noted size was lost with the daemon:
                    // the final name exists only for a whole file, so its size is this one.
                    download.files[index].size = size
                    effects.append(.commit(.noteFile(id: id, index: index, file: download.files[index]), then: nil))
                }
                download.files[index].done = true
                download.files[index].downloadedBytes = size
                done += 1
            } else {
                if download.files[index].done { download.files[index].done = false }
                if describe {
                    let path = layout.filePath(id: id, download.files[index])
                    let finding: VerifyFinding
                    if let size, let expected = download.files[index].size {
                        finding = VerifyFinding(kind: .wrongSize, id: id, path: path, detail: "\(size) bytes on disk, expected \(expected)")
                    } else {
                        finding = VerifyFinding(kind: .missingFile, id: id, path: path, detail: "file missing on disk")
                    }
                    if shouldBeComplete { findings.append(finding) }
                    if problem == nil {
                        problem = finding.kind == .missingFile ? "file missing on disk: \(path)" : "file on disk has \(finding.detail): \(path)"
                    }
                }
                var partial: Int64?
                if !download.state.holdsCompleteFiles {
                    partial = parts.map { $0[$0.startIndex + offset] } ?? disk.fileSize(layout.filePath(id: id, download.files[index]) + ".part")
                }
                download.files[index].downloadedBytes = partial ?? 0
            }
            bytes = bytes.addingSaturating(download.files[index].downloadedBytes)
        }
        download.filesDone = done
        if !download.state.holdsCompleteFiles || problem != nil { download.downloadedBytes = bytes }
        guard let problem else { return nil }
        let missing = download.filesTotal - done
        return download.isFolder ? "\(missing) of \(download.filesTotal) files missing or damaged; first: \(problem)" : problem
    }

    /// Checks the files of a download that holds complete files against their recorded sizes
    /// (and an HLS package's playlists, which stash writes); when one is wrong, fails the
    /// download (its intact files stay done, so `resume` fetches only the rest) and returns
    /// the problem. `how` says who found it, for the record's reason and the journal. A held
    /// download is not looked at: what changes its files is the holder's own work.
    mutating func checkFiles(_ id: String, how: String, into effects: inout [EngineEffect]) -> String? {
        guard holds[id] == nil, let download = entries[id]?.download, download.state.holdsCompleteFiles else { return nil }
        let sizes = disk.regularFileSizes(download.files.map { id + "/" + $0.path }, layout.assetsDir)
        var checked = download
        var findings: [VerifyFinding] = []
        var lost = reconcileFiles(&checked, sizes: sizes[...], findings: &findings, into: &effects)
        if lost == nil, !download.hlsPlaylists.isEmpty {
            // The package's playlists are written by stash, not fetched: `resume` reads them again.
            let playlists = disk.regularFileSizes(download.hlsPlaylists.map { id + "/" + $0 }, layout.assetsDir)
            if let missing = zip(download.hlsPlaylists, playlists).first(where: { $0.1 == nil })?.0 {
                lost = "playlist missing on disk: \(layout.assetFolder(id: id))/\(missing)"
            }
        }
        guard let problem = lost else { return nil }
        log(.warning, "files of a complete download are gone or changed", ["id": "\(id)", "problem": "\(problem)", "found": "\(how)"], into: &effects)
        let changed = try? transition(id, .filesLost, into: &effects) { record in
            record.files = checked.files
            record.filesDone = checked.filesDone
            record.downloadedBytes = checked.downloadedBytes
            record.error = DownloadError(.storage, problem)
            record.stateReason = "\(problem) (changed \(how)); resume fetches what is missing"
            record.completedAt = nil
        }
        return changed == true ? problem : nil
    }
}
