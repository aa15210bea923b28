import Foundation
import StashCore

/// Start-up recovery: each record read from the registry is compared with the disk and moved
/// to where it belongs after a restart.
extension Engine {
    enum Recovery { case commit(CommitTicket), remove, unchanged }

    /// Reads one loaded record's files from the disk (`sizes`: those of its final paths, in
    /// order): which are complete (of the recorded size) and how many bytes the others hold. Returns what is wrong with a
    /// file that should be there, if any; the files a complete download lacks are the start's
    /// verify findings (one stat per file serves both).
    func reconcileFiles(_ download: inout Download, sizes: ArraySlice<Int64?>, findings: inout [VerifyFinding]) -> String? {
        let id = download.id
        let shouldBeComplete = download.state.holdsCompleteFiles || (download.state == .failed && download.error?.kind == .storage)
        var problem: String?
        var done = 0
        var bytes: Int64 = 0
        for (index, size) in zip(download.files.indices, sizes) {
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
                download.files[index].done = false
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
                download.files[index].downloadedBytes = download.state.holdsCompleteFiles ? 0 : fileSize(path + ".part") ?? 0
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
