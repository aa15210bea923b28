import Foundation
import Logging
import StashCore
import StashKeys
import Synchronization

/// Verify and purge: the registry compared with the disk. The scan (stat, and with deep a
/// SHA-256 of every file with a digest) and every deletion run on the `FilePool`; what the
/// findings mean for a download (FAILED, or back to QUEUED with repair) is `EngineState`'s
/// decision (`damageRepairs`, `.repairDamage`). Keeps the last report, for GetSystemInfo.
final class VerifyService: Sendable {
    private let layout: AssetLayout
    private let keys: KeyStore
    private let files: FilePool
    private let clock: WallClock
    private let logger: Logger
    private let last = Mutex(VerifyReport())

    init(layout: AssetLayout, keys: KeyStore, files: FilePool, clock: WallClock, logger: Logger) {
        self.layout = layout
        self.keys = keys
        self.files = files
        self.clock = clock
        self.logger = logger
    }

    /// The last verify (at start or asked for).
    var lastVerify: VerifyReport { last.withLock { $0 } }

    /// Compares the registry with the disk and, with `repair`, fixes what it found: downloads
    /// with missing or damaged files go back to the queue (fetching only those files), and
    /// orphans and stale part files are deleted. Without it a complete download with damage is
    /// FAILED, as the disk watch makes it. Answered once the new states are committed, and
    /// every change made before it too (the disk watch may have failed a download meanwhile):
    /// a read after the answer sees them.
    func verify(deep: Bool, repair: Bool, host: some MaintenanceHost) async throws -> VerifyReport {
        let started = clock.now()
        let downloads = await host.downloads()
        let scan = try await self.scan(downloads, deep: deep, missingKeys: true)
        var report = VerifyReport(
            findings: scan.result.findings + scan.keyFindings, downloadsChecked: scan.downloadsChecked, filesChecked: scan.result.filesChecked,
            deep: deep, repaired: repair, digestsChecked: scan.result.digestsChecked)
        if repair { try await deleteOrphans(&report, host: host) }
        try await handleDamaged(&report, repair: repair, host: host)
        try await host.flush()
        report.finishedAt = clock.now()
        report.durationMs = Int(clock.now().timeIntervalSince(started) * 1000)
        last.withLock { $0 = report }
        logger.notice("verify finished", metadata: [
            "findings": "\(report.findings.count)", "deep": "\(deep)", "repair": "\(repair)",
            "requeued": "\(report.requeued)", "files_deleted": "\(report.filesDeleted)",
        ])
        return report
    }

    /// Deletes orphan folders and files and stale part files.
    func purge(host: some MaintenanceHost) async throws -> PurgeResult {
        let scan = try await self.scan(await host.downloads(), deep: false, missingKeys: false)
        var report = VerifyReport(findings: scan.result.findings + scan.keyFindings)
        try await deleteOrphans(&report, host: host)
        let paths = report.findings.filter(\.repaired).map(\.path)
        logger.notice("purge finished", metadata: ["files_deleted": "\(report.filesDeleted)", "bytes_freed": "\(report.bytesFreed)"])
        return PurgeResult(filesDeleted: report.filesDeleted, bytesFreed: report.bytesFreed, paths: paths)
    }

    /// Lists `assets/` for the entries nobody owns, beside the start's file checks (it needs
    /// only the ids); `atStart` takes the result.
    func scanOrphans(owners: [String]) -> Task<AssetScanner.Result, Never> {
        let assetsDir = layout.assetsDir
        let files = self.files
        return Task { (try? await files.run { AssetScanner.orphans(assetsDir: assetsDir, owners: owners) }) ?? AssetScanner.Result() }
    }

    /// The fast verify of every start: `findings` are the files the start found missing or of
    /// the wrong size (stat only); to them it adds the entries of `assets/` that nobody owns.
    func atStart(findings: [VerifyFinding], downloadsChecked: Int, filesChecked: Int, started: Date, orphans scan: AssetScanner.Result) {
        logScanErrors(scan)
        let all = (findings + scan.findings).sorted { $0.path < $1.path }
        let report = VerifyReport(
            findings: all, downloadsChecked: downloadsChecked, filesChecked: filesChecked,
            finishedAt: clock.now(), durationMs: Int(clock.now().timeIntervalSince(started) * 1000))
        last.withLock { $0 = report }
        if !all.isEmpty {
            logger.warning("verify at start found problems; `stash verify --repair` fixes them", metadata: ["findings": "\(all.count)"])
        }
    }

    private struct Scan: Sendable {
        var result: AssetScanner.Result
        /// Sealed keys missing (when asked for) and key folders nobody owns.
        var keyFindings: [VerifyFinding]
        var downloadsChecked: Int
    }

    /// Scans every download's files and folder, and the key store, on the file pool.
    private func scan(_ downloads: [Download], deep: Bool, missingKeys: Bool) async throws -> Scan {
        let layout = self.layout
        let keys = self.keys
        let scan = try await files.run {
            // What each download should have on disk. A completed download must have every
            // file; so must one that failed for a storage reason (its files went missing). An
            // HLS package's playlists are files of it too, written by the daemon rather than fetched.
            let expected = downloads.filter { $0.state != .removing }.map { download in
                AssetScanner.Expected(
                    id: download.id, folder: layout.assetFolder(id: download.id),
                    files: download.files + download.hlsPlaylists.map { DownloadFile(url: "", path: $0) },
                    shouldBeComplete: Self.shouldBeComplete(download), inFlight: Replacement.names(of: download),
                    inFlightFolders: Replacement.folders(of: download))
            }
            let result = AssetScanner.scan(assetsDir: layout.assetsDir, downloads: expected, deep: deep)
            let lacking = missingKeys ? Self.missingKeys(downloads, keys: keys) : []
            return Scan(result: result, keyFindings: lacking + Self.orphanKeys(owners: Set(downloads.map(\.id)), keys: keys), downloadsChecked: expected.count)
        }
        logScanErrors(scan.result)
        return scan
    }

    /// A folder the scan could not read (permissions) is not a finding, but must not pass unseen.
    private func logScanErrors(_ scan: AssetScanner.Result) {
        for error in scan.errors.prefix(20) {
            logger.warning("verify could not read part of assets/", metadata: ["error": "\(error)"])
        }
    }

    private static func shouldBeComplete(_ download: Download) -> Bool {
        download.state.holdsCompleteFiles || (download.state == .failed && download.error?.kind == .storage)
    }

    /// Key folders whose download is gone (the daemon stopped between deleting the record and
    /// the keys): orphans, deleted by repair and purge like folders under `assets/`.
    private static func orphanKeys(owners: Set<String>, keys: KeyStore) -> [VerifyFinding] {
        guard let assets = try? keys.assets() else { return [] }
        return assets.filter { !owners.contains($0) }.map { asset in
            VerifyFinding(kind: .orphanFolder, id: "", path: keys.directory + "/" + asset, detail: "sealed keys of a download that no longer exists")
        }
    }

    /// The sealed keys a complete HLS package needs and the key store lacks. The finding's
    /// path is the key store's folder of the download; its detail names the key.
    private static func missingKeys(_ downloads: [Download], keys: KeyStore) -> [VerifyFinding] {
        downloads.flatMap { download -> [VerifyFinding] in
            guard download.hls != nil, shouldBeComplete(download) else { return [] }
            let id = download.id
            // Licence keys that were released are gone on purpose; a licence brings them back.
            let expected = download.hlsKeys.filter { download.licenseKeyIDs[$0] == nil || download.license != nil }
            return expected.filter { !keys.exists(asset: id, keyID: download.keyStoreID(forKeyPath: $0)) }.map { keyPath in
                VerifyFinding(kind: .missingFile, id: id, path: keys.directory + "/" + id, detail: "the sealed key for \(keyPath) is missing from the key store")
            }
        }
    }

    private func deleteOrphans(_ report: inout VerifyReport, host: some MaintenanceHost) async throws {
        let orphanKinds: Set<VerifyFinding.Kind> = [.orphanFolder, .orphanFile, .stalePart]
        var targets: [Int] = []
        for (index, finding) in report.findings.enumerated() where orphanKinds.contains(finding.kind) {
            // A folder that became a download's while the scan ran is no longer an orphan.
            if finding.kind == .orphanFolder, await host.download((finding.path as NSString).lastPathComponent) != nil { continue }
            targets.append(index)
        }
        let findings = targets.map { report.findings[$0] }
        let removed = try await files.run { findings.map { AssetScanner.remove($0) } }
        for (index, result) in zip(targets, removed) {
            report.findings[index].repaired = true
            report.filesDeleted += result.files
            report.bytesFreed += result.bytes
        }
    }

    /// What the state decides for the downloads with missing or damaged files, carried out: a
    /// damaged file deleted first (with repair), then each decision applied, every one of
    /// them (each ends a hold) even when one fails.
    private func handleDamaged(_ report: inout VerifyReport, repair: Bool, host: some MaintenanceHost) async throws {
        let repairs = await host.decideRepairs(report.findings, repair: repair)
        let deletions = repairs.flatMap(\.deletions)
        if !deletions.isEmpty {
            do {
                let deleted = try await files.run { deletions.map(Self.delete) }
                for (path, result) in zip(deletions, deleted) {
                    switch result {
                    case .success(let bytes):
                        report.filesDeleted += 1
                        report.bytesFreed = report.bytesFreed.addingSaturating(bytes)
                    case .failure(let error):
                        logger.warning("verify cannot delete a damaged file", metadata: ["path": "\(path)", "error": "\(error)"])
                    }
                }
            } catch {
                logger.warning("verify cannot delete the damaged files", metadata: ["error": "\(error)"])
            }
        }
        var failure: Error?
        for decision in repairs {
            do {
                guard try await host.submit(.repairDamage(decision)).stateChanged else { continue }
            } catch {
                failure = failure ?? error
                continue
            }
            for index in decision.findings { report.findings[index].repaired = repair }
            if repair { report.requeued += 1 }
        }
        if let failure { throw failure }
    }

    /// Deletes a damaged file; its bytes, or why not.
    private static func delete(_ path: String) -> Result<Int64, any Error> {
        let size = (try? SystemCallError.status(path)).map { Int64($0.st_size) } ?? 0
        return Result {
            try SystemCallError.removeFile(path)
            return size
        }
    }
}
