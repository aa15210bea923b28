import Foundation
import StashCore

/// Start-up recovery: each record read from the registry is compared with the disk and moved
/// to where it belongs after a restart.
extension Engine {
    enum Recovery { case commit(CommitTicket), remove, unchanged }

    /// What entering the loaded records left to do: commits to wait for, removals to finish,
    /// and the start's verify findings.
    struct Recovered {
        var tickets: [CommitTicket] = []
        var removals: [String] = []
        var findings: [VerifyFinding] = []
        var filesChecked = 0
    }

    /// Enters every loaded record, as the registry holds it, after reading its files from the
    /// disk; moves the interrupted ones back to the queue, the damaged complete ones to FAILED,
    /// and those the crash guard names to FAILED. Reconciled in place: a copy taken out of the
    /// array would share its file list with the array and copy it on the first change.
    func enterLoaded(_ downloads: inout [Download], crashGuard: CrashGuard) -> Recovered {
        var recovered = Recovered()
        let sizes = LoadedFileSizes(downloads, assetsDir: layout.assetsDir, folders: AssetScanner.names(in: layout.assetsDir))
        for index in downloads.indices {
            let fileCount = downloads[index].files.count
            recovered.filesChecked += fileCount
            let (finals, parts) = sizes.sizes(of: index, fileCount: fileCount)
            let problem = reconcileFiles(&downloads[index], sizes: finals, parts: parts, findings: &recovered.findings)
            let download = downloads[index]
            let id = download.id
            // As the registry holds it; changes made while recovering show once committed.
            records.commit(id, download)
            run(.load(download))
            // FAILED instead of started again, and not started until a client resumes it.
            if let exits = crashGuard.failing[id], let ticket = try? perform(state.on(.crashed(id, exits: exits))) {
                recovered.tickets.append(ticket)
                continue
            }
            // Most records (complete and whole, queued, paused, failed) stay as they are.
            let recovering = download.state.isActive || download.state == .removing || (download.state.holdsCompleteFiles && problem != nil)
            guard recovering else { continue }
            switch recover(id, problem: problem) {
            case .commit(let ticket): recovered.tickets.append(ticket)
            case .remove: recovered.removals.append(id)
            case .unchanged: break
            }
        }
        return recovered
    }

    /// Reads one record's files from their sizes on the disk (`sizes`: of their final paths,
    /// in order; `parts`: of their part files, nil for a complete download, whose missing bytes
    /// are not fetched): which are complete (of the recorded size) and how many bytes the others
    /// hold. Returns what is wrong with a file that should be there, where a caller uses it (a
    /// complete, active or removed download: for a queued one, a file not there yet is no
    /// problem); the files a complete download lacks are the start's verify findings.
    func reconcileFiles(
        _ download: inout Download, sizes: ArraySlice<Int64?>, parts: ArraySlice<Int64?>? = nil, findings: inout [VerifyFinding]
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
                    commits.submit(.noteFile(id: id, index: index, file: download.files[index]), event: nil)
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
                let partial = download.state.holdsCompleteFiles ? nil : parts.flatMap { $0[$0.startIndex + offset] }
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

    /// Moves a loaded record to where it belongs after a restart: interrupted downloads back
    /// to the queue, a complete one with `problem` to FAILED, a removal to its end.
    func recover(_ id: String, problem: String?) -> Recovery {
        guard let effects = try? state.on(.recover(id, problem: problem)) else { return .unchanged }
        let ticket = perform(effects)
        if entries[id]?.lifecycle.state == .removing { return .remove }
        return ticket.map { .commit($0) } ?? .unchanged
    }
}
