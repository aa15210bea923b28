import Foundation
import StashCore

extension Engine {
    /// Compares the registry with the disk and, with `repair`, fixes what it found: downloads
    /// with missing or damaged files go back to the queue (fetching only those files), and
    /// orphans and stale part files are deleted. The scan runs off the engine.
    package func verify(deep: Bool, repair: Bool) async throws -> VerifyReport {
        let started = clock.now()
        let (scan, checked) = await scanAssets(deep: deep)
        var report = VerifyReport(
            findings: scan.findings + missingKeys() + orphanKeys(), downloadsChecked: checked, filesChecked: scan.filesChecked, deep: deep, repaired: repair,
            digestsChecked: scan.digestsChecked)
        if repair {
            await deleteOrphans(&report)
        }
        // Answered once the new states are committed: a GetDownload after this answer shows
        // them. Without --repair a complete download with damage is FAILED, as the disk watch
        // makes it; with it, back in the queue to fetch what is missing.
        try await handleDamaged(&report, repair: repair)?.wait()
        // And once every change made before it is committed too (the disk watch may have
        // failed a download it found damaged): a read after the answer sees them.
        try await commits.submit(nil, event: nil).wait()
        report.finishedAt = clock.now()
        report.durationMs = Int(clock.now().timeIntervalSince(started) * 1000)
        lastVerify = report
        storageCache = nil
        logger.notice("verify finished", metadata: [
            "findings": "\(report.findings.count)", "deep": "\(deep)", "repair": "\(repair)",
            "requeued": "\(report.requeued)", "files_deleted": "\(report.filesDeleted)",
        ])
        schedule()
        return report
    }

    /// Deletes orphan folders and files and stale part files.
    package func purge() async throws -> PurgeResult {
        let (scan, _) = await scanAssets(deep: false)
        var report = VerifyReport(findings: scan.findings + orphanKeys())
        await deleteOrphans(&report)
        storageCache = nil
        let paths = report.findings.filter(\.repaired).map(\.path)
        logger.notice("purge finished", metadata: ["files_deleted": "\(report.filesDeleted)", "bytes_freed": "\(report.bytesFreed)"])
        return PurgeResult(filesDeleted: report.filesDeleted, bytesFreed: report.bytesFreed, paths: paths)
    }

    /// The fast verify of every start: `findings` are the files `recover` found missing or of
    /// the wrong size (stat only); to them it adds the entries of `assets/` that nobody owns.
    /// Its report is in `systemInfo().lastVerify`.
    func verifyAtStart(findings: [VerifyFinding], filesChecked: Int, started: Date, orphans scan: AssetScanner.Result) {
        logScanErrors(scan)
        let all = (findings + scan.findings).sorted { $0.path < $1.path }
        lastVerify = VerifyReport(
            findings: all, downloadsChecked: order.count, filesChecked: filesChecked,
            finishedAt: clock.now(), durationMs: Int(clock.now().timeIntervalSince(started) * 1000))
        if !all.isEmpty {
            logger.warning("verify at start found problems; `stash verify --repair` fixes them", metadata: ["findings": "\(all.count)"])
        }
    }

    /// Scans every download's files and folder off the engine; returns the scan and how many
    /// downloads it covered.
    private func scanAssets(deep: Bool) async -> (AssetScanner.Result, Int) {
        let expected = expectations()
        let assetsDir = layout.assetsDir
        let scan = await Task.detached {
            AssetScanner.scan(assetsDir: assetsDir, downloads: expected, deep: deep)
        }.value
        logScanErrors(scan)
        return (scan, expected.count)
    }

    /// A folder the scan could not read (permissions) is not a finding, but must not pass unseen.
    private func logScanErrors(_ scan: AssetScanner.Result) {
        for error in scan.errors.prefix(20) {
            logger.warning("verify could not read part of assets/", metadata: ["error": "\(error)"])
        }
    }

    /// What each download should have on disk. A completed download must have every file;
    /// so must one that failed for a storage reason (its files went missing). An HLS
    /// package's playlists are files of it too, written by the daemon rather than fetched.
    private func expectations() -> [AssetScanner.Expected] {
        order.compactMap { id in
            guard let entry = entries[id], entry.download.state != .removing else { return nil }
            let download = entry.download
            let playlists = download.hlsPlaylists.map { DownloadFile(url: "", path: $0) }
            return AssetScanner.Expected(
                id: id, folder: layout.assetFolder(id: id), files: download.files + playlists, shouldBeComplete: Self.shouldBeComplete(download))
        }
    }

    private static func shouldBeComplete(_ download: Download) -> Bool {
        download.state.holdsCompleteFiles || (download.state == .failed && download.error?.kind == .storage)
    }

    /// Key folders whose download is gone (the daemon stopped between deleting the record and
    /// the keys): orphans, deleted by repair and purge like folders under `assets/`.
    private func orphanKeys() -> [VerifyFinding] {
        guard let owners = try? keys.assets() else { return [] }
        return owners.filter { entries[$0] == nil }.map { asset in
            VerifyFinding(kind: .orphanFolder, id: "", path: keys.directory + "/" + asset,
                          detail: "sealed keys of a download that no longer exists")
        }
    }

    /// The sealed keys a complete HLS package needs and the key store lacks. The finding's
    /// path is the key store's folder of the download; its detail names the key.
    private func missingKeys() -> [VerifyFinding] {
        order.flatMap { id -> [VerifyFinding] in
            guard let download = entries[id]?.download, download.hls != nil, Self.shouldBeComplete(download) else { return [] }
            // Licence keys that were released are gone on purpose; a licence brings them back.
            let expected = download.hlsKeys.filter { download.licenseKeyIDs[$0] == nil || download.license != nil }
            return expected.filter { !keys.exists(asset: id, keyID: download.keyStoreID(forKeyPath: $0)) }.map { keyPath in
                VerifyFinding(kind: .missingFile, id: id, path: keys.directory + "/" + id,
                              detail: "the sealed key for \(keyPath) is missing from the key store")
            }
        }
    }

    private func deleteOrphans(_ report: inout VerifyReport) async {
        let orphanKinds: Set<VerifyFinding.Kind> = [.orphanFolder, .orphanFile, .stalePart]
        // A folder that became a download's while the scan ran is no longer an orphan.
        let targets = report.findings.indices.filter { index in
            let finding = report.findings[index]
            guard orphanKinds.contains(finding.kind) else { return false }
            if finding.kind == .orphanFolder { return entries[(finding.path as NSString).lastPathComponent] == nil }
            return true
        }
        let findings = targets.map { report.findings[$0] }
        let removed = await Task.detached { findings.map { AssetScanner.remove($0) } }.value
        for (index, result) in zip(targets, removed) {
            report.findings[index].repaired = true
            report.filesDeleted += result.files
            report.bytesFreed += result.bytes
        }
    }

    /// Without `repair`: a download that says it is complete but has missing or damaged files
    /// is FAILED, naming them, and its damaged files are marked to be fetched again on resume
    /// (nothing is deleted). With `repair`: downloads with missing or damaged files go back to
    /// the queue; only those files are fetched again (a damaged one is deleted first). One whose licence has run out is
    /// restored too, when only its media files are damaged: they are fetched as they are (the
    /// keys stay sealed), and the licence check moves it back to LICENSE_EXPIRED or DRM_EXPIRED
    /// once it completes, so a renewal later finds it whole. Its playlists or keys are not
    /// restored: that reads the licence again, which has run out.
    /// Returns the ticket of the last change it queued.
    private func handleDamaged(_ report: inout VerifyReport, repair: Bool) -> CommitTicket? {
        var last: CommitTicket?
        let damageKinds: Set<VerifyFinding.Kind> = [.missingFile, .wrongSize, .wrongDigest]
        // Without --repair only what still says it is complete changes.
        let repairable: Set<DownloadState> = repair ? [.completed, .failed, .licenseExpired, .drmExpired] : [.completed, .licenseExpired, .drmExpired]
        var byID: [String: [Int]] = [:]
        for (index, finding) in report.findings.enumerated() where damageKinds.contains(finding.kind) {
            byID[finding.id, default: []].append(index)
        }
        for (id, findingIndexes) in byID.sorted(by: { $0.key < $1.key }) {
            guard var entry = entries[id], repairable.contains(entry.download.state) else { continue }
            let expired = entry.download.state == .licenseExpired || entry.download.state == .drmExpired
            if expired, findingIndexes.contains(where: { index in
                !entry.download.files.contains { layout.filePath(id: id, $0) == report.findings[index].path }
            }) { continue }
            var replan = false
            for findingIndex in findingIndexes {
                let path = report.findings[findingIndex].path
                guard let fileIndex = entry.download.files.firstIndex(where: { layout.filePath(id: id, $0) == path }) else {
                    // A playlist or key of an HLS package: its playlists are read again, which
                    // writes them and seals the keys anew; segments on disk are kept.
                    if entry.download.hls != nil {
                        replan = true
                        report.findings[findingIndex].repaired = repair
                    }
                    continue
                }
                if repair, report.findings[findingIndex].kind != .missingFile {
                    let size = fileSize(path) ?? 0
                    do {
                        try SystemCallError.removeFile(path)
                        report.filesDeleted += 1
                        report.bytesFreed = report.bytesFreed.addingSaturating(size)
                    } catch {
                        logger.warning("verify cannot delete a damaged file", metadata: ["path": "\(path)", "error": "\(error)"])
                    }
                }
                entry.download.files[fileIndex].done = false
                entry.download.files[fileIndex].downloadedBytes = 0
                report.findings[findingIndex].repaired = repair
            }
            // Without --repair the file list stays, so its segments are still its own (a purge
            // would take them for strays); `resume` reads the playlists again.
            if replan, repair { entry.download.forgetPackagePlan() }
            entry.download.filesDone = entry.download.files.reduce(0) { $0 + ($1.done ? 1 : 0) }
            entry.download.downloadedBytes = entry.download.files.saturatingSum(\.downloadedBytes)
            entries[id] = entry
            let missing = entry.download.filesTotal - entry.download.filesDone
            guard repair else {
                let first = report.findings[findingIndexes[0]]
                let problem = "\(findingIndexes.count) file(s) missing or damaged; first: \(first.path): \(first.detail)"
                logger.warning("verify found files of a complete download gone or damaged", metadata: ["id": "\(id)", "problem": "\(problem)"])
                if let change = try? transition(id, .filesLost, edit: { record in
                    record.error = DownloadError(.storage, problem)
                    record.completedAt = nil
                    record.stateReason = "\(problem) (found by verify); resume or verify --repair fetches what is missing"
                }) {
                    last = change.ticket
                }
                continue
            }
            if let change = try? transition(id, .repair, edit: { record in
                record.error = nil
                record.completedAt = nil
                record.stateReason = replan
                    ? "reading the playlists again to restore the package's playlists and keys (verify --repair)"
                    : "fetching \(missing) missing or damaged file(s) again (verify --repair)"
            }) {
                report.requeued += 1
                last = change.ticket
                // The emptied file list is stored too, so a restart plans the package again.
                if replan, let download = entries[id]?.download { last = commits.submit(.add(download), event: nil) }
            }
        }
        return last
    }
}
