import Foundation
import Logging
import StashCore
import StashFetch

/// HLS planning: a download whose playlists are read before it has files.
extension EngineState {
    /// A single-file download whose server says it is a playlist or an MPD (by Content-Type) is
    /// a stream: its transfer stops, its part file goes, and it is read as for a .m3u8 or .mpd
    /// URL with the default choice.
    mutating func becomeHLS(_ id: String, into effects: inout [EngineEffect]) {
        guard var entry = entries[id] else { return }
        let partPath = layout.filePath(id: id, entry.download.files[0]) + ".part"
        stopFiles(&entry, into: &effects)
        log(.info, "the server sent a playlist or an MPD: downloading it as a stream", ["id": "\(id)"], into: &effects)
        unindexContent(entry.download)
        entry.download.hls = HLSOptions()
        entry.download.forgetPackagePlan()
        entry.download.downloadedBytes = 0
        entry.download.totalBytes = nil
        entry.download.assetPath = layout.relativeFolderPath(id: id)
        // The plain file's part is not part of the package; left behind, verify finds it.
        effects.append(.removeAfterStop(id: id, path: partPath))
        beginPlanning(&entry, into: &effects)
        entries[id] = entry
        indexContent(entry.download)
        effects.append(.commit(.add(entry.download), then: nil))
        schedule(into: &effects)
    }

    /// The playlists were read (or could not be): the download gets its files and transfers
    /// them, or fails.
    mutating func planned(
        _ id: String, generation: UInt64, _ result: Result<HLSPreparation.Prepared, Error>, into effects: inout [EngineEffect]
    ) {
        if !shuttingDown, replacementPlanned(id, generation: generation, result, into: &effects) { return }
        // At shutdown the fetch workers fail what is in flight; the download stays PREPARING
        // in the registry and is planned again at the next start.
        guard !shuttingDown, var entry = entries[id], entry.activity.isPlanning(generation: generation) else { return }
        entry.activity = .idle
        switch result {
        case .success(let prepared):
            if !retries.isEmpty { retries[id]?[FileRetry.planning] = nil }
            entry.download.files = prepared.files + textTrackFiles(entry.download)
            entry.download.filesTotal = entry.download.files.count
            entry.download.filesDone = entry.download.files.reduce(0) { $0 + ($1.done ? 1 : 0) }
            entry.download.downloadedBytes = entry.download.files.saturatingSum(\.downloadedBytes)
            entry.download.hlsKeys = prepared.keyPaths
            entry.download.licenseKeyIDs = prepared.licenseKeyIDs
            if let license = prepared.license { entry.download.license = license }
            entry.download.hlsPlaylists = prepared.playlistPaths
            // The record says what the package holds: an end past the stream is its duration.
            if let window = prepared.window, window.clampedFrom != nil { entry.download.hls?.end = window.end }
            entry.download.quality = prepared.quality
            entry.download.hasSubtitles = prepared.hasSubtitles || !entry.download.textTracks.isEmpty
            entry.planEstimate = prepared.estimatedBytes
            entry.download.totalBytes = SizeEstimate.total(of: entry.download, planned: prepared.estimatedBytes)
            entry.download.stateReason = "fetching \(entry.download.filesTotal - entry.download.filesDone) segments"
            beginFiles(&entry)
            entries[id] = entry
            var planned: Logger.Metadata = [
                "id": "\(id)", "files": "\(prepared.files.count)", "quality": "\(prepared.quality)", "keys": "\(prepared.keyPaths.count)",
            ]
            if let window = prepared.window { planned["range"] = "\(HLSRules.seconds(window.start))-\(HLSRules.seconds(window.end)) s" }
            log(.info, "HLS package planned", planned, into: &effects)
            if !prepared.warnings.isEmpty {
                // The plan shows these before an add; a download added without a plan says them here.
                log(.notice, "HLS playlists read leniently", [
                    "id": "\(id)", "warnings": "\(prepared.warnings.map(\.withoutURLSecrets).joined(separator: "; "))",
                ], into: &effects)
            }
            if !prepared.windowNotes.isEmpty {
                log(.notice, "HLS time range", [
                    "id": "\(id)", "notes": "\(prepared.windowNotes.joined(separator: "; "))",
                ], into: &effects)
            }
            // The file list is committed before any segment lands, so a restart resumes it.
            effects.append(.commit(.add(entry.download), then: .progress(ProgressUpdate(entry.download))))
            if let license = prepared.license {
                effects.append(.commit(nil, then: .license(LicenseEvent(
                    id: id, kind: .downloaded, message: "\(license.kids.count) key(s) from \(entry.download.drm?.licenseServer ?? "")",
                    status: LicenseStatus(entry.download, at: clock.now())))))
                armLicenseTimer(into: &effects)
            }
            // Now that the size is known, a package that cannot fit waits for space, or fails
            // when it never can.
            if let shortfall = storageShortfall(entry.download, into: &effects) {
                holdOrFail(id, for: shortfall, into: &effects)
            }
        case .failure(let later as FetchRetryLater):
            entries[id] = entry
            retryLater(id, index: FileRetry.planning, attempt: later.attempt, delayMs: later.delayMs, error: later.error, into: &effects)
        case .failure(let error):
            entries[id] = entry
            if let licensing = error as? LicenseFailure {
                effects.append(.commit(nil, then: .license(LicenseEvent(id: id, kind: .error, message: licensing.message))))
            }
            let failure = (error as? LicenseFailure)?.downloadError ?? error as? DownloadError ?? DownloadError(.internal, "\(error)")
            _ = try? transition(id, .transferFailed, into: &effects) { record in
                record.error = failure
                record.stateReason = ""
            }
        }
        schedule(into: &effects)
    }

    /// The files of an HLS download's text tracks, as the disk has them: a file at its final
    /// path is whole (it is renamed there only once complete), a part file is resumed.
    private func textTrackFiles(_ download: Download) -> [DownloadFile] {
        download.textTracks.map { track in
            var file = track.file
            let path = layout.filePath(id: download.id, file)
            if let size = disk.fileSize(path) {
                file.size = size
                file.downloadedBytes = size
                file.done = true
            } else {
                file.downloadedBytes = disk.fileSize(path + ".part") ?? 0
            }
            return file
        }
    }
}
