import StashCore

/// Start-up recovery: each record read from the registry is compared with the disk and moved
/// to where it belongs after a restart.
extension EngineState {
    /// What entering the loaded records decided: the effects to carry out, in order (the
    /// commits of what recovery changed, among them), the removals to finish, and the start's
    /// verify findings.
    struct Recovery {
        var effects: [EngineEffect] = []
        var removals: [String] = []
        var findings: [VerifyFinding] = []
        var filesChecked = 0
    }

    /// Enters every loaded record, as the registry holds it, with its files as `sizes` found
    /// them on disk; moves the interrupted ones back to the queue, the damaged complete ones to
    /// FAILED, and those the crash guard names to FAILED (not started until a client resumes
    /// them). Reconciled in place: a copy taken out of the array would share its file list
    /// with the array and copy it on the first change.
    mutating func enterLoaded(_ downloads: inout [Download], sizes: LoadedFileSizes, crashGuard: CrashGuard) -> Recovery {
        var recovery = Recovery()
        entries.reserveCapacity(downloads.count)
        for download in downloads where download.state != .removing { indexContent(download) }
        for index in downloads.indices {
            let fileCount = downloads[index].files.count
            recovery.filesChecked += fileCount
            let (finals, parts) = sizes.sizes(of: index, fileCount: fileCount)
            let problem = reconcileFiles(&downloads[index], sizes: finals, parts: parts, findings: &recovery.findings, into: &recovery.effects)
            let download = downloads[index]
            let id = download.id
            // As the registry holds it; changes made while recovering show once committed.
            entries.cache.commit(id, download)
            recovery.effects += (try? on(.load(download))) ?? []
            if let exits = crashGuard.failing[id], let failed = try? on(.crashed(id, exits: exits)) {
                recovery.effects += failed
                continue
            }
            // Most records (complete and whole, queued, paused, failed) stay as they are.
            let recovering = download.state.isActive || download.state == .removing || (download.state.holdsCompleteFiles && problem != nil)
            // Only a download that held complete files can miss one; an interrupted one's final
            // files are not there yet, and it goes back to the queue without an error.
            let missing = download.state.holdsCompleteFiles ? problem : nil
            guard recovering, let recovered = try? on(.recover(id, problem: missing)) else { continue }
            recovery.effects += recovered
            if entries[id]?.lifecycle.state == .removing { recovery.removals.append(id) }
        }
        return recovery
    }
}
