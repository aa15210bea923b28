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
        let sizes = LoadedFileSizes(
            downloads, assetsDir: layout.assetsDir, folders: AssetScanner.names(in: layout.assetsDir), probe: state.disk.regularFileSizes)
        for index in downloads.indices {
            let fileCount = downloads[index].files.count
            recovered.filesChecked += fileCount
            let (finals, parts) = sizes.sizes(of: index, fileCount: fileCount)
            var notes: [EngineEffect] = []
            let problem = state.reconcileFiles(&downloads[index], sizes: finals, parts: parts, findings: &recovered.findings, into: &notes)
            perform(notes)
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

    /// Moves a loaded record to where it belongs after a restart: interrupted downloads back
    /// to the queue, a complete one with `problem` to FAILED, a removal to its end.
    func recover(_ id: String, problem: String?) -> Recovery {
        guard let effects = try? state.on(.recover(id, problem: problem)) else { return .unchanged }
        let ticket = perform(effects)
        if entries[id]?.lifecycle.state == .removing { return .remove }
        return ticket.map { .commit($0) } ?? .unchanged
    }
}
