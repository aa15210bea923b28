import Foundation
import StashCore
import StashHLS

extension Engine {
    /// The subtitles a download keeps: an HLS download's renditions, read from its package's
    /// master, and the side-loaded text tracks of any download.
    package func subtitles(id: String) throws -> (renditions: [ManifestInfo.RenditionInfo], textTracks: [TextTrack]) {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard download.hls != nil || !download.textTracks.isEmpty else {
            throw StashError(.failedPrecondition, "download '\(id)' is not an HLS download and has no text tracks; `stash subtitles add \(id) --text-track uri=URL,lang=LANG` adds one")
        }
        let renditions = download.hls == nil ? [] : try packageSubtitles(download).map { rendition in
            ManifestInfo.RenditionInfo(
                groupID: rendition.groupID, language: rendition.language ?? "", name: rendition.name,
                isDefault: rendition.isDefault, forced: rendition.forced, uri: rendition.uri ?? "")
        }
        return (renditions, download.textTracks)
    }

    /// Adds subtitles to a download: languages of an HLS download's stream, or side-loaded
    /// text tracks of any download (`addTextTracks`); one kind per request.
    package func addSubtitles(id: String, languages: [String], textTracks: [TextTrack]) async throws -> Download {
        guard textTracks.isEmpty else {
            guard languages.isEmpty else {
                throw StashError.invalidArgument("give languages (of an HLS stream) or text_tracks, not both (\(languages.count) languages and \(textTracks.count) text tracks)")
            }
            return try await addTextTracks(id: id, textTracks)
        }
        return try await addSubtitles(id: id, languages: languages)
    }

    /// Adds text tracks to a download in any state but REMOVING; a track it has is skipped.
    /// Only the new tracks' files are fetched (`takeNewFiles`): a COMPLETED download goes back
    /// to QUEUED for them. An HLS download whose playlists are not read yet gets their files
    /// with its segments.
    func addTextTracks(id: String, _ specs: [TextTrack]) async throws -> Download {
        guard let current = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard current.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(current.state.name): it is being removed")
        }
        let tracks = try TextTrackRules.added(specs, to: current.textTracks, files: current.files)
        if tracks.isEmpty { return try get(id: id) }
        let files = current.hls != nil && current.files.isEmpty ? [] : tracks.map(\.file)
        try checkPathLengths(files, id: id) { _ in "text_tracks" }
        let names = tracks.map(\.stem).joined(separator: ",")
        logger.info("text tracks added", metadata: ["id": "\(id)", "tracks": "\(names)"])
        return try await takeNewFiles(id, files, reason: "fetching text tracks \(names)") { record in
            record.textTracks += tracks
            record.hasSubtitles = true
        }
    }

    /// Adds subtitle languages to a completed HLS download. The stream is asked first, so a
    /// language it does not offer is refused with nothing changed; then the package is planned
    /// again with the languages added: its video and other files are on disk and are kept,
    /// only the new subtitles are fetched.
    private func addSubtitles(id: String, languages: [String]) async throws -> Download {
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

    /// Removes subtitles from a download that is not transferring: an HLS download's languages
    /// (its master stops naming them) and text tracks, named by language or by file name
    /// (`es-2`). The registry stops listing their files, then the files go. Works offline:
    /// nothing is fetched.
    package func removeSubtitles(id: String, languages: [String]) async throws -> Download {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard download.hls != nil || !download.textTracks.isEmpty else {
            throw StashError(.failedPrecondition, "download '\(id)' is not an HLS download and has no text tracks; it has no subtitles to remove")
        }
        guard !download.state.isActive, download.state != .queued, download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(download.state.name); pause it or let it complete before removing subtitles")
        }
        let present = download.hls == nil ? [] : try packageSubtitles(download)
        var removed: [Rendition] = []
        var removedTracks: [TextTrack] = []
        for language in languages {
            let matches = LocalMasterPlaylist.matching(language, in: present)
            let tracks = download.textTracks.filter { TextTrackRules.names(language, $0) }
            guard !matches.isEmpty || !tracks.isEmpty else {
                let offered = present.map { $0.language ?? "und" } + download.textTracks.map(\.stem)
                throw StashError.invalidArgument("download '\(id)' has no subtitles '\(language.prefix(60))'; it has \(offered.isEmpty ? "none" : offered.joined(separator: ", "))")
            }
            removed += matches.filter { match in !removed.contains { $0.uri == match.uri } }
            removedTracks += tracks.filter { track in !removedTracks.contains { $0.path == track.path } }
        }
        let playlistPaths = Set(removed.compactMap(\.uri))
        let folders = Set(playlistPaths.map { ($0 as NSString).deletingLastPathComponent })
        let trackPaths = Set(removedTracks.map(\.path))
        // Opened before anything changes, from the asset folder's descriptor: a symlink planted
        // in the way refuses the removal instead of leading out of the folder.
        let removal = try AssetRemoval(
            assetFolder: layout.assetFolder(id: id), paths: folders.sorted() + trackPaths.sorted().flatMap { [$0, $0 + ".part"] })
        defer { removal.release() }
        if !removed.isEmpty {
            let master = try readMaster(id)
            let edited = try LocalMasterPlaylist.removing(playlistPaths, from: master)
            try DurableFile.write(Array(edited.utf8), folder: layout.assetFolder(id: id), relativePath: PackagePlan.masterPath)
        }

        guard var entry = entries[id] else { throw StashError.notFound(id: id) }
        func inRemoved(_ path: String) -> Bool { folders.contains { path.hasPrefix($0 + "/") } }
        entry.download.files.removeAll { inRemoved($0.path) || trackPaths.contains($0.path) }
        entry.download.hlsPlaylists.removeAll { inRemoved($0) }
        entry.download.hlsKeys.removeAll { inRemoved($0) }
        entry.download.textTracks.removeAll { trackPaths.contains($0.path) }
        entry.download.filesTotal = entry.download.files.count
        entry.download.filesDone = entry.download.files.reduce(0) { $0 + ($1.done ? 1 : 0) }
        entry.download.downloadedBytes = entry.download.files.saturatingSum(\.downloadedBytes)
        if entry.download.state == .completed {
            entry.download.totalBytes = entry.download.downloadedBytes
        } else if !removedTracks.isEmpty {
            entry.download.totalBytes = Self.estimatedTotal(of: entry.download, planned: entry.planEstimate)
        }
        let left = present.filter { rendition in !removed.contains { $0.uri == rendition.uri } }
        entry.download.hasSubtitles = !left.isEmpty || !entry.download.textTracks.isEmpty
        // What is left is named exactly, so a later AddSubtitles of "all" is not a no-op.
        if !removed.isEmpty { entry.download.hls?.subtitles = left.compactMap(\.language) }
        entries[id] = entry
        storageCache = nil
        try await commits.submit(.add(entry.download), event: .progress(ProgressUpdate(entry.download))).wait()
        for path in removal.remove() {
            // The record no longer names it: verify reports it as an orphan, and purge deletes it.
            logger.warning("a removed subtitle's file could not be deleted", metadata: ["id": "\(id)", "path": "\(path)"])
        }
        if !trackPaths.isEmpty { removal.removeFolderIfEmpty(TextTrackRules.folder) }
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
        let text = try readMaster(download.id)
        do {
            return try LocalMasterPlaylist.subtitles(text)
        } catch {
            throw StashError(.failedPrecondition, "the package playlist of '\(download.id)' is damaged (\(error)); `stash verify --repair` rewrites it")
        }
    }

    /// The package's master playlist, read without following a symlink.
    private func readMaster(_ id: String) throws -> String {
        let folder = layout.assetFolder(id: id)
        do {
            let asset = try FolderHandle.open(folder, followingSymlink: false)
            defer { asset.release() }
            return String(decoding: try asset.read(PackagePlan.masterPath), as: UTF8.self)
        } catch {
            throw StashError(.failedPrecondition, "\(folder)/\(PackagePlan.masterPath) is missing or unreadable (\(error)); `stash verify --repair` rewrites it")
        }
    }
}
