import Foundation
import StashCore
import StashFetch
import StashKeys

extension Download {
    /// Drops an HLS download's segment list so its playlists are read again when it is next
    /// scheduled; the segments on disk stay and are found complete by that planning. Its text
    /// tracks' files go too: the planning puts them back after the segments.
    mutating func forgetPackagePlan() {
        files = []
        filesTotal = 0
        filesDone = 0
    }
}

extension Engine {
    var hlsPreparation: HLSPreparation {
        HLSPreparation(fetch: fetch, keys: keys, licenses: licenseClient, retry: RetryPolicy(config),
                       lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime, clock: clock)
    }

    /// An HLS download got its slot but has no files yet: its playlists are read off the
    /// engine, and `planned` turns the result into its files.
    func beginPlanning(_ entry: inout Entry) {
        let download = entry.download
        let id = download.id
        let generation = nextGeneration
        nextGeneration += 1
        queue.activate(id)
        entry.speed.reset()
        var preparation = hlsPreparation
        preparation.waitingForNetwork = { Task { await self.planningWaitsForNetwork(id, generation: generation) } }
        let folder = layout.assetFolder(id: id)
        let options = download.hls ?? HLSOptions()
        let held = HLSPreparation.HeldLicense(drm: download.drm, terms: download.license)
        let planning = Task.detached {
            let result: Result<HLSPreparation.Prepared, Error>
            do {
                result = .success(try await preparation.prepare(
                    id: id, uri: download.uri, headers: download.headers, options: options, folder: folder, held: held))
            } catch {
                result = .failure(error)
            }
            await self.planned(id, generation: generation, result)
        }
        entry.activity = .planning(planning, generation: generation)
    }

    /// A playlist or key of a download being planned waits for the network: the download
    /// says so, as a transfer of its files would.
    private func planningWaitsForNetwork(_ id: String, generation: UInt64) {
        guard let entry = entries[id], entry.activity.isPlanning(generation: generation),
              entry.download.state == .preparing else { return }
        _ = try? transition(id, .networkLost) { $0.stateReason = "the network is unreachable; the playlists and keys are read when it is back" }
    }

    /// A single-file download whose server says it is a playlist (by Content-Type) is an HLS
    /// stream: its transfer stops, its part file goes, and the playlist is read as for a
    /// .m3u8 URL with the default choice.
    func becomeHLS(_ id: String) {
        guard var entry = entries[id] else { return }
        let partPath = layout.filePath(id: id, entry.download.files[0]) + ".part"
        stopFiles(&entry)
        logger.info("the server sent a playlist: downloading it as HLS", metadata: ["id": "\(id)"])
        unindexContent(entry.download)
        entry.download.hls = HLSOptions()
        entry.download.forgetPackagePlan()
        entry.download.downloadedBytes = 0
        entry.download.totalBytes = nil
        entry.download.assetPath = layout.relativeFolderPath(id: id)
        if let stopped = stopping[id] {
            noteStopping(id, Task {
                await stopped.value
                // The plain file's part is not part of the package; left behind, verify finds it.
                try? SystemCallError.removeFile(partPath)
            })
        }
        beginPlanning(&entry)
        entries[id] = entry
        indexContent(entry.download)
        commits.submit(.add(entry.download), event: nil)
        schedule()
    }

    /// A pause, cancel or failure while the playlists are read: the reading stops, and a
    /// removal waits for it (it may be writing playlists into the folder being deleted).
    func stopPlanning(_ entry: inout Entry) {
        guard case .planning(let planning, _) = entry.activity else { return }
        entry.activity = .idle
        planning.cancel()
        let id = entry.download.id
        let previous = stopping[id]
        noteStopping(id, Task {
            await previous?.value
            await planning.value
        })
    }

    private func planned(_ id: String, generation: UInt64, _ result: Result<HLSPreparation.Prepared, Error>) {
        // At shutdown the fetch workers fail what is in flight; the download stays PREPARING
        // in the registry and is planned again at the next start.
        guard !shuttingDown, var entry = entries[id], entry.activity.isPlanning(generation: generation) else { return }
        entry.activity = .idle
        switch result {
        case .success(let prepared):
            entry.download.files = prepared.files + textTrackFiles(entry.download)
            entry.download.filesTotal = entry.download.files.count
            entry.download.filesDone = entry.download.files.reduce(0) { $0 + ($1.done ? 1 : 0) }
            entry.download.downloadedBytes = entry.download.files.saturatingSum(\.downloadedBytes)
            entry.download.hlsKeys = prepared.keyPaths
            entry.download.licenseKeyIDs = prepared.licenseKeyIDs
            if let license = prepared.license { entry.download.license = license }
            entry.download.hlsPlaylists = prepared.playlistPaths
            entry.download.quality = prepared.quality
            entry.download.hasSubtitles = prepared.hasSubtitles || !entry.download.textTracks.isEmpty
            entry.planEstimate = prepared.estimatedBytes
            entry.download.totalBytes = Self.estimatedTotal(of: entry.download, planned: prepared.estimatedBytes)
            entry.download.stateReason = "fetching \(entry.download.filesTotal - entry.download.filesDone) segments"
            beginFiles(&entry)
            entries[id] = entry
            logger.info("HLS package planned", metadata: [
                "id": "\(id)", "files": "\(prepared.files.count)", "quality": "\(prepared.quality)", "keys": "\(prepared.keyPaths.count)",
            ])
            if !prepared.warnings.isEmpty {
                // The plan shows these before an add; a download added without a plan says them here.
                logger.notice("HLS playlists read leniently", metadata: [
                    "id": "\(id)", "warnings": "\(prepared.warnings.map(\.withoutURLSecrets).joined(separator: "; "))",
                ])
            }
            // The file list is committed before any segment lands, so a restart resumes it.
            commits.submit(.add(entry.download), event: .progress(ProgressUpdate(entry.download)))
            if prepared.license != nil {
                commits.submit(nil, event: .license(LicenseEvent(
                    id: id, kind: .downloaded, message: "\(prepared.license!.kids.count) key(s) from \(entry.download.drm?.licenseServer ?? "")",
                    status: LicenseStatus(entry.download, at: clock.now()))))
                armLicenseTimer()
            }
            // Now that the size is known, a package that cannot fit waits for space.
            if let shortfall = storageShortfall(entry.download) {
                _ = try? transition(id, .requeue) { $0.stateReason = shortfall }
            }
        case .failure(let error):
            entries[id] = entry
            if let licensing = error as? LicenseFailure {
                commits.submit(nil, event: .license(LicenseEvent(id: id, kind: .error, message: licensing.message)))
            }
            let failure = (error as? LicenseFailure)?.downloadError ?? error as? DownloadError ?? DownloadError(.internal, "\(error)")
            _ = try? transition(id, .transferFailed) { record in
                record.error = failure
                record.stateReason = ""
            }
        }
        schedule()
    }

    /// The files of an HLS download's text tracks, as the disk has them: a file at its final
    /// path is whole (it is renamed there only once complete), a part file is resumed.
    private func textTrackFiles(_ download: Download) -> [DownloadFile] {
        download.textTracks.map { track in
            var file = track.file
            let path = layout.filePath(id: download.id, file)
            if let size = fileSize(path) {
                file.size = size
                file.downloadedBytes = size
                file.done = true
            } else {
                file.downloadedBytes = fileSize(path + ".part") ?? 0
            }
            return file
        }
    }

    /// What the stream at `uri` offers (`stash plan`); nothing is stored.
    public func manifestInfo(uri: String, headers: [HTTPHeader]) async throws -> ManifestInfo {
        try DownloadRequestRules.validateURI(uri)
        try DownloadRequestRules.validateHeaders(headers)
        let preparation = hlsPreparation
        do {
            return try await preparation.manifest(uri: uri, headers: headers)
        } catch let error as DownloadError {
            // A stream that is not valid HLS is the caller's input; a server that fails is not.
            throw StashError(error.kind == .validation ? .invalidArgument : .unavailable, error.message)
        }
    }

    /// Writes a completed HLS download as a folder an ordinary player opens offline.
    public func export(id: String, to dir: String, decrypt: Bool) async throws -> ExportResult {
        guard let entry = entries[id] else { throw StashError.notFound(id: id) }
        let download = entry.download
        guard download.hls != nil else {
            throw StashError(.failedPrecondition, "download '\(id)' is not an HLS download; its files are already at \(layout.absolute(download.assetPath))")
        }
        if !download.licenseKeyIDs.isEmpty {
            let check = download.license?.check(at: clock.now()) ?? LicenseCheck(verdict: .none, licenseSecondsLeft: nil, playbackSecondsLeft: nil, expiresAt: nil)
            guard check.isValid else { throw StashError(.failedPrecondition, Self.invalidLicenseMessage(id, check)) }
        }
        guard download.state == .completed else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(download.state.name), not COMPLETED; export it once it has completed")
        }
        var keyIDs: [String: String] = [:]
        for path in download.hlsKeys { keyIDs[path] = download.keyStoreID(forKeyPath: path) }
        let exporter = PackageExporter(
            keys: keys, asset: id, folder: layout.assetFolder(id: id), playlists: download.hlsPlaylists, keyIDs: keyIDs,
            textTrackPaths: download.textTracks.map(\.path))
        return try await Task.detached { try exporter.export(to: dir, decrypt: decrypt) }.value
    }
}
