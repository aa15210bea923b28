import Foundation
import StashCore

/// Verify's decisions: what its findings of missing or damaged files do to each download.
extension EngineState {
    /// Without `repair`: a download that says it is complete but has missing or damaged files
    /// is FAILED, naming them, and its damaged files are marked to be fetched again on resume
    /// (nothing is deleted). With `repair`: downloads with missing or damaged files go back to
    /// the queue; only those files are fetched again (a damaged one is deleted first). One
    /// whose licence has run out is restored too, when only its media files are damaged: they
    /// are fetched as they are (the keys stay sealed), and the licence check moves it back to
    /// LICENSE_EXPIRED or DRM_EXPIRED once it completes, so a renewal later finds it whole. Its
    /// playlists or keys are not restored: that reads the licence again, which has run out.
    /// Decides only; `.repairDamage` applies each.
    func damageRepairs(_ findings: [VerifyFinding], repair: Bool) -> [DamageRepair] {
        let damageKinds: Set<VerifyFinding.Kind> = [.missingFile, .wrongSize, .wrongDigest]
        // Without --repair only what still says it is complete changes.
        let repairable: Set<DownloadState> = repair ? [.completed, .failed, .licenseExpired, .drmExpired] : [.completed, .licenseExpired, .drmExpired]
        var byID: [String: [Int]] = [:]
        for (index, finding) in findings.enumerated() where damageKinds.contains(finding.kind) {
            byID[finding.id, default: []].append(index)
        }
        var repairs: [DamageRepair] = []
        for (id, findingIndexes) in byID.sorted(by: { $0.key < $1.key }) {
            guard let download = entries[id]?.download, repairable.contains(download.state), holds[id] == nil else { continue }
            let expired = download.state == .licenseExpired || download.state == .drmExpired
            var files: [Int] = []
            var deletions: [String] = []
            var covered: [Int] = []
            var replan = false
            var beyondFiles = false
            for findingIndex in findingIndexes {
                let finding = findings[findingIndex]
                guard let fileIndex = download.files.firstIndex(where: { layout.filePath(id: id, $0) == finding.path }) else {
                    beyondFiles = true
                    // A playlist or key of an HLS package: its playlists are read again, which
                    // writes them and seals the keys anew; segments on disk are kept.
                    if download.hls != nil {
                        replan = true
                        covered.append(findingIndex)
                    }
                    continue
                }
                if repair, finding.kind != .missingFile { deletions.append(finding.path) }
                files.append(fileIndex)
                covered.append(findingIndex)
            }
            if expired, beyondFiles { continue }
            let first = findings[findingIndexes[0]]
            repairs.append(DamageRepair(
                id: id, state: download.state, repair: repair, files: files, deletions: deletions, replan: replan, findings: covered,
                problem: "\(findingIndexes.count) file(s) missing or damaged; first: \(first.path): \(first.detail)"))
        }
        return repairs
    }

    /// The hold on a download whose damaged files verify deletes before requeueing it.
    static let repairHold = "verify --repair is deleting its damaged files"

    /// `damageRepairs`, with the downloads whose damaged files are deleted first held until
    /// their `.repairDamage`: the disk watch must not take the deletion for a loss and fail
    /// a download that is about to be repaired.
    mutating func decideRepairs(_ findings: [VerifyFinding], repair: Bool) -> [DamageRepair] {
        let repairs = damageRepairs(findings, repair: repair)
        for decision in repairs where !decision.deletions.isEmpty { holds[decision.id] = Self.repairHold }
        return repairs
    }

    /// Applies one of `damageRepairs`' decisions, unless the download moved on meanwhile, and
    /// ends its hold. A complete download the disk watch failed meanwhile, having seen the
    /// same files go, has not moved on: `--repair` takes a FAILED download too, and skipping
    /// it answered "not repaired" for a loss verify had found first.
    mutating func repairDamage(_ repair: DamageRepair, into effects: inout [EngineEffect]) {
        if holds[repair.id] == Self.repairHold { holds[repair.id] = nil }
        guard let entry = entries[repair.id] else { return }
        let failedSince = repair.repair && entry.download.state == .failed && repair.state != .failed
        guard entry.download.state == repair.state || failedSince else { return }
        let id = repair.id
        func refetch(_ record: inout Download) {
            for index in repair.files where record.files.indices.contains(index) {
                record.files[index].done = false
                record.files[index].downloadedBytes = 0
            }
            // Without --repair the file list stays, so its segments are still its own (a purge
            // would take them for strays); `resume` reads the playlists again.
            if repair.replan, repair.repair { record.forgetPackagePlan() }
            record.filesDone = record.files.reduce(0) { $0 + ($1.done ? 1 : 0) }
            record.downloadedBytes = record.files.saturatingSum(\.downloadedBytes)
            record.completedAt = nil
        }
        guard repair.repair else {
            log(.warning, "verify found files of a complete download gone or damaged", ["id": "\(id)", "problem": "\(repair.problem)"], into: &effects)
            _ = try? transition(id, .filesLost, into: &effects) { record in
                refetch(&record)
                record.error = DownloadError(.storage, repair.problem)
                record.stateReason = "\(repair.problem) (found by verify); resume or verify --repair fetches what is missing"
            }
            return
        }
        let changed = try? transition(id, .repair, into: &effects) { record in
            refetch(&record)
            record.error = nil
            record.stateReason = repair.replan
                ? "reading the playlists again to restore the package's playlists and keys (verify --repair)"
                : "fetching \(record.filesTotal - record.filesDone) missing or damaged file(s) again (verify --repair)"
        }
        guard changed == true, let download = entries[id]?.download else { return }
        // The emptied file list is stored too, so a restart plans the package again.
        if repair.replan { effects.append(.commit(.add(download), then: nil)) }
        schedule(into: &effects)
    }
}
