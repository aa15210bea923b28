import Foundation
import Logging
import StashCore
import StashHLS
import StashKeys

/// Subtitles of a download: an HLS download's renditions (read from its package's master) and
/// the side-loaded text tracks of any download. Reading the stream and the package's files is
/// this service's; which files the record lists, and whether the download goes back to the
/// queue to fetch new ones, is `EngineState`'s (`EngineState+NewFiles`).
struct SubtitleService: Sendable {
    let layout: AssetLayout
    let keys: KeyStore
    let logger: Logger

    /// The subtitles a download keeps.
    func subtitles(of download: Download) throws -> (renditions: [ManifestInfo.RenditionInfo], textTracks: [TextTrack]) {
        let id = download.id
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
    /// text tracks of any download; one kind per request.
    func add(id: String, languages: [String], textTracks: [TextTrack], preparation: HLSPreparation, host: some MaintenanceHost) async throws -> Download {
        guard textTracks.isEmpty else {
            guard languages.isEmpty else {
                throw StashError.invalidArgument("give languages (of an HLS stream) or text_tracks, not both (\(languages.count) languages and \(textTracks.count) text tracks)")
            }
            let outcome = try await host.submit(.addTextTracks(id, textTracks))
            guard outcome.changed, let download = outcome.download else { return try await host.get(id: id) }
            return download
        }
        return try await add(id: id, languages: languages, preparation: preparation, host: host)
    }

    /// Adds subtitle languages to a completed HLS download. The stream is asked first, so a
    /// language it does not offer is refused with nothing changed; then the package is planned
    /// again with the languages added: its video and other files are on disk and are kept,
    /// only the new subtitles are fetched.
    private func add(id: String, languages: [String], preparation: HLSPreparation, host: some MaintenanceHost) async throws -> Download {
        guard let download = await host.download(id) else { throw StashError.notFound(id: id) }
        guard download.hls != nil else {
            throw StashError(.failedPrecondition, "download '\(id)' is not an HLS download; only HLS downloads have subtitle renditions")
        }
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
        if new.isEmpty, options.subtitles == kept { return layout.publicView(download) }
        // The stream decides which languages exist; ask it before touching the download.
        do {
            let chosen = try await preparation.choose(uri: download.uri, headers: download.headers, options: options)
            guard chosen.selection != nil else {
                throw StashError.invalidArgument("download '\(id)' comes from a media playlist, which has no subtitle renditions; add the stream's master playlist instead")
            }
        } catch let error as DownloadError {
            throw StashError(error.kind == .validation ? .invalidArgument : .unavailable, error.message)
        } catch is FoundMPD {
            throw StashError(.failedPrecondition, "download '\(id)' is a DASH download; adding subtitle languages to it is not supported yet (add it again with --subtitles)")
        }
        let outcome = try await host.submit(.addSubtitleLanguages(id, options, languages: languages))
        return outcome.download ?? layout.publicView(download)
    }

    /// Removes subtitles from a download that is not transferring: an HLS download's languages
    /// (its master stops naming them) and text tracks, named by language or by file name
    /// (`es-2`). The download is held meanwhile; the master is rewritten, the registry stops
    /// listing their files, then the files go. Works offline: nothing is fetched.
    func remove(id: String, languages: [String], host: some MaintenanceHost) async throws -> Download {
        _ = try await host.submit(.subtitleRemovalStarts(id))
        let removal: SubtitleRemoval
        let download: Download
        let assetRemoval: AssetRemoval
        do {
            guard let held = await host.download(id) else { throw StashError.notFound(id: id) }
            download = held
            (removal, assetRemoval) = try prepareRemoval(of: languages, from: download)
        } catch {
            _ = try? await host.submit(.subtitleRemovalEnded(id, nil))
            throw error
        }
        defer { assetRemoval.release() }
        let outcome = try await host.submit(.subtitleRemovalEnded(id, removal))
        for path in assetRemoval.remove() {
            // The record no longer names it: verify reports it as an orphan, and purge deletes it.
            logger.warning("a removed subtitle's file could not be deleted", metadata: ["id": "\(id)", "path": "\(path)"])
        }
        if !removal.trackPaths.isEmpty { assetRemoval.removeFolderIfEmpty(TextTrackRules.folder) }
        // A licence key may also serve the video; it goes with the licence, not with a rendition.
        for keyPath in download.hlsKeys where Self.isIn(removal.renditionFolders, keyPath) && download.licenseKeyIDs[keyPath] == nil {
            try? keys.delete(asset: id, keyID: keyPath)
        }
        logger.info("subtitles removed", metadata: ["id": "\(id)", "languages": "\(languages.joined(separator: ","))"])
        return outcome.download ?? layout.publicView(download)
    }

    /// What a removal takes out of the record, with the files to delete opened, and the
    /// package's master rewritten without the renditions removed.
    private func prepareRemoval(of languages: [String], from download: Download) throws -> (SubtitleRemoval, AssetRemoval) {
        let id = download.id
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
        let assetRemoval = try AssetRemoval(
            assetFolder: layout.assetFolder(id: id), paths: folders.sorted() + trackPaths.sorted().flatMap { [$0, $0 + ".part"] })
        if !removed.isEmpty {
            do {
                let master = try readMaster(id)
                let edited = try LocalMasterPlaylist.removing(playlistPaths, from: master)
                try DurableFile.write(Array(edited.utf8), folder: layout.assetFolder(id: id), relativePath: PackagePlan.masterPath)
            } catch {
                assetRemoval.release()
                throw error
            }
        }
        let left = present.filter { rendition in !removed.contains { $0.uri == rendition.uri } }
        let removal = SubtitleRemoval(
            renditionFolders: folders, trackPaths: trackPaths, languagesLeft: removed.isEmpty ? nil : left.compactMap(\.language),
            renditionsLeft: !left.isEmpty)
        return (removal, assetRemoval)
    }

    private static func isIn(_ folders: Set<String>, _ path: String) -> Bool {
        folders.contains { path.hasPrefix($0 + "/") }
    }

    private func packageSubtitles(_ download: Download) throws -> [Rendition] {
        // A DASH package's text tracks are in its MPD, which this does not read yet.
        guard !download.hlsPlaylists.isEmpty, !download.isDASHPackage else { return [] }
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
