import Foundation
import StashCore
import StashHLS

extension Engine {
    /// The subtitle renditions an HLS download keeps, read from its package's master.
    public func subtitles(id: String) throws -> [ManifestInfo.RenditionInfo] {
        let download = try hlsDownload(id)
        return try packageSubtitles(download).map { rendition in
            ManifestInfo.RenditionInfo(
                groupID: rendition.groupID, language: rendition.language ?? "", name: rendition.name,
                isDefault: rendition.isDefault, forced: rendition.forced, uri: rendition.uri ?? "")
        }
    }

    /// Adds subtitle languages to a completed HLS download. The stream is asked first, so a
    /// language it does not offer is refused with nothing changed; then the package is planned
    /// again with the languages added: its video and other files are on disk and are kept,
    /// only the new subtitles are fetched.
    public func addSubtitles(id: String, languages: [String]) async throws -> Download {
        let download = try hlsDownload(id)
        guard download.state == .completed else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(download.state.name); add subtitles once it has COMPLETED")
        }
        var options = download.hls ?? HLSOptions()
        let kept = options.subtitles
        if kept.contains(where: { $0.lowercased() == "all" }) {
            throw StashError(.failedPrecondition, "download '\(id)' already keeps every subtitle language of its stream")
        }
        let new = languages.filter { language in !kept.contains { $0.lowercased() == language.lowercased() } }
        options.subtitles = languages.contains { $0.lowercased() == "all" } ? ["all"] : kept + new
        try HLSRules.validate(options)
        if new.isEmpty, options.subtitles == kept { return publicView(download) }
        // The stream decides which languages exist; ask it before touching the download.
        do {
            let chosen = try await hlsPreparation.choose(uri: download.uri, headers: download.headers, options: options)
            guard chosen.selection != nil else {
                throw StashError.invalidArgument("download '\(id)' comes from a media playlist, which has no subtitle renditions; add the stream's master playlist instead")
            }
        } catch let error as DownloadError {
            throw StashError(error.kind == .validation ? .invalidArgument : .unavailable, error.message)
        }
        guard var entry = entries[id], entry.download.state == .completed else {
            throw StashError(.failedPrecondition, "download '\(id)' changed while its stream was read; try again")
        }
        entry.download.hls = options
        entry.download.forgetPackagePlan()
        entries[id] = entry
        let change = try transition(id, .repair) { record in
            record.completedAt = nil
            record.stateReason = "adding subtitles \(languages.joined(separator: ","))"
        }
        // The emptied file list is stored too, so a restart plans the package again.
        let planless = entries[id]?.download ?? entry.download
        commits.submit(.add(planless), event: nil)
        schedule()
        try await change?.ticket.wait()
        return change?.download ?? publicView(planless)
    }

    /// Removes subtitle languages from an HLS download that is not transferring: its master
    /// stops naming them, the registry stops listing their files, then their folders go.
    /// Works offline: nothing is fetched.
    public func removeSubtitles(id: String, languages: [String]) async throws -> Download {
        let download = try hlsDownload(id)
        guard !download.state.isActive, download.state != .queued, download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(download.state.name); pause it or let it complete before removing subtitles")
        }
        let present = try packageSubtitles(download)
        var removed: [Rendition] = []
        for language in languages {
            let matches = LocalMasterPlaylist.matching(language, in: present)
            guard !matches.isEmpty else {
                let offered = present.map { $0.language ?? "und" }
                throw StashError.invalidArgument("download '\(id)' has no subtitles '\(language)'; it has \(offered.isEmpty ? "none" : offered.joined(separator: ", "))")
            }
            removed += matches.filter { match in !removed.contains { $0.uri == match.uri } }
        }
        let playlistPaths = Set(removed.compactMap(\.uri))
        let folders = Set(playlistPaths.map { ($0 as NSString).deletingLastPathComponent })
        let masterPath = layout.assetFolder(id: id) + "/" + PackagePlan.masterPath
        let master = try readPackageText(masterPath)
        let edited = try LocalMasterPlaylist.removing(playlistPaths, from: master)
        try DurableFile.write(Array(edited.utf8), folder: layout.assetFolder(id: id), relativePath: PackagePlan.masterPath)

        guard var entry = entries[id] else { throw StashError.notFound(id: id) }
        func inRemoved(_ path: String) -> Bool { folders.contains { path.hasPrefix($0 + "/") } }
        entry.download.files.removeAll { inRemoved($0.path) }
        entry.download.hlsPlaylists.removeAll { inRemoved($0) }
        entry.download.hlsKeys.removeAll { inRemoved($0) }
        entry.download.filesTotal = entry.download.files.count
        entry.download.filesDone = entry.download.files.reduce(0) { $0 + ($1.done ? 1 : 0) }
        entry.download.downloadedBytes = entry.download.files.saturatingSum(\.downloadedBytes)
        if entry.download.state == .completed { entry.download.totalBytes = entry.download.downloadedBytes }
        let left = present.filter { rendition in !removed.contains { $0.uri == rendition.uri } }
        entry.download.hasSubtitles = !left.isEmpty
        // What is left is named exactly, so a later AddSubtitles of "all" is not a no-op.
        entry.download.hls?.subtitles = left.compactMap(\.language)
        entries[id] = entry
        storageCache = nil
        try await commits.submit(.add(entry.download), event: .progress(ProgressUpdate(entry.download))).wait()
        for folder in folders.sorted() {
            try? FileManager.default.removeItem(atPath: layout.assetFolder(id: id) + "/" + folder)
        }
        // A licence key may also serve the video; it goes with the licence, not with a rendition.
        for keyPath in download.hlsKeys where inRemoved(keyPath) && download.licenseKeyIDs[keyPath] == nil {
            try? keys.delete(asset: id, keyID: keyPath)
        }
        logger.info("subtitles removed", metadata: ["id": "\(id)", "languages": "\(languages.joined(separator: ","))"])
        return publicView(entry.download)
    }

    private func hlsDownload(_ id: String) throws -> Download {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard download.hls != nil else {
            throw StashError(.failedPrecondition, "download '\(id)' is not an HLS download; only HLS downloads have subtitle renditions")
        }
        return download
    }

    private func packageSubtitles(_ download: Download) throws -> [Rendition] {
        guard !download.hlsPlaylists.isEmpty else { return [] }
        let text = try readPackageText(layout.assetFolder(id: download.id) + "/" + PackagePlan.masterPath)
        do {
            return try LocalMasterPlaylist.subtitles(text)
        } catch {
            throw StashError(.failedPrecondition, "the package playlist of '\(download.id)' is damaged (\(error)); `stash verify --repair` rewrites it")
        }
    }

    private func readPackageText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StashError(.failedPrecondition, "\(path) is missing; `stash verify --repair` rewrites it")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
