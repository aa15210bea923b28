import Foundation
import StashCore

/// A download's file list changes after its add: files appended to a bundle (a chapter that
/// gains pages), text tracks added, subtitle languages of an HLS package added or removed.
/// Only the new files are fetched; the ones on disk stay.
extension EngineState {
    /// Entries the bundle already holds (the same URL at the same path) are skipped; the rules
    /// and limits are `BundleRules.appended`'s, over the bundle's own files (its text tracks'
    /// files are not counted, but their paths are taken). Nothing new changes nothing.
    mutating func appendFiles(_ id: String, _ specs: [BundleFileSpec], into effects: inout [EngineEffect]) throws {
        guard let current = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard current.isBundle else {
            let what = current.hls != nil ? "an HLS stream" : "a single file"
            throw StashError(.failedPrecondition, "download '\(id)' is \(what), not a bundle; files can be appended only to a bundle")
        }
        guard current.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(current.state.name): it is being removed")
        }
        let added = ContentRules.inheriting(
            try BundleRules.appended(specs, to: current.contentFiles, alongside: current.files.filter(current.isTextTrackFile), fileName: AssetLayout.fileName(from:)),
            expect: current.expect, minSize: current.minSize)
        try layout.checkPathLengths(added, id: id) { _ in "files" }
        if added.isEmpty { return }
        try takeNewFiles(id, added, reason: "fetching \(added.count) appended file(s)", into: &effects)
    }

    /// Adds text tracks to a download in any state but REMOVING; a track it has is skipped.
    /// Only the new tracks' files are fetched: a COMPLETED download goes back to QUEUED for
    /// them. An HLS download whose playlists are not read yet gets their files with its
    /// segments.
    mutating func addTextTracks(_ id: String, _ specs: [TextTrack], into effects: inout [EngineEffect]) throws {
        guard let current = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard current.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(current.state.name): it is being removed")
        }
        let tracks = try TextTrackRules.added(specs, to: current.textTracks, files: current.files)
        if tracks.isEmpty { return }
        let files = current.hls != nil && current.files.isEmpty ? [] : tracks.map(\.file)
        try layout.checkPathLengths(files, id: id) { _ in "text_tracks" }
        let names = tracks.map(\.stem).joined(separator: ",")
        log(.info, "text tracks added", ["id": "\(id)", "tracks": "\(names)"], into: &effects)
        try takeNewFiles(id, files, reason: "fetching text tracks \(names)", into: &effects) { record in
            record.textTracks += tracks
            record.hasSubtitles = true
        }
    }

    /// Takes `added` files into a download; `edit` changes the record beside (its text
    /// tracks). A download that holds complete files (COMPLETED, or with its licence run out)
    /// goes back to QUEUED and fetches only the new files; a transferring one takes them into
    /// its transfers; a queued, paused, stopped or failed one keeps its state and fetches them
    /// with the rest when it runs.
    private mutating func takeNewFiles(
        _ id: String, _ added: [DownloadFile], reason: String, into effects: inout [EngineEffect], edit: (inout Download) -> Void = { _ in }
    ) throws {
        try checkNotHeld(id)
        guard var entry = entries.take(id) else { throw StashError.notFound(id: id) }
        // The content key of a bundle hashes its file list: it is found by the new list from now on.
        unindexContent(entry.download)
        edit(&entry.download)
        entry.download.files += added
        entry.download.filesTotal = entry.download.files.count
        entry.download.totalBytes = SizeEstimate.total(of: entry.download, planned: entry.planEstimate)
        let state = entry.download.state
        if state.isActive, !added.isEmpty, !entry.activity.isPlanning {
            // The new files wait for transfer slots behind those not started yet; the running
            // transfers keep theirs. A completion under way (the folder sync) did not cover them.
            if entry.activity.isCompleting { entry.activity = .transferring([:]) }
            let running = entry.activity.transfers
            let files = entry.download.files
            slots.activate(
                id, seq: entry.seq, files: files.indices.filter { !files[$0].done && running[$0] == nil }.map { ($0, files[$0].host) },
                fileSlots: entry.download.hls?.segmentConcurrency)
            slotsChanged = true
        }
        entries[id] = entry
        indexContent(entry.download)
        effects.append(.forgetStorageInfo)
        var changed = false
        if state.holdsCompleteFiles, !added.isEmpty {
            changed = try transition(id, .repair, into: &effects) { record in
                record.completedAt = nil
                record.stateReason = reason
            }
        }
        // After the state change: should stashd stop between the two commits, the download
        // restarts with its old list rather than reading COMPLETED with files it lacks.
        guard let updated = entries[id]?.download else { throw StashError.notFound(id: id) }
        effects.append(.commit(.add(updated), then: changed ? nil : .progress(ProgressUpdate(updated))))
        schedule(into: &effects)
        log(.info, "files added to a download", ["id": "\(id)", "files": "\(added.count)", "state": "\(updated.state.name)"], into: &effects)
    }

    /// A completed HLS download keeps more subtitle languages: its package is planned again
    /// (its video and other files are on disk and kept; only the new subtitles are fetched).
    mutating func addSubtitleLanguages(_ id: String, _ options: HLSOptions, languages: [String], into effects: inout [EngineEffect]) throws {
        guard var entry = entries[id], entry.download.state == .completed else {
            throw StashError(.failedPrecondition, "download '\(id)' changed while its stream was read; try again")
        }
        try checkNotHeld(id)
        entry.download.hls = options
        entry.download.forgetPackagePlan()
        entries[id] = entry
        try transition(id, .repair, into: &effects) { record in
            record.completedAt = nil
            record.stateReason = "adding subtitles \(languages.joined(separator: ","))"
        }
        // The emptied file list is stored too, so a restart plans the package again.
        if let planless = entries[id]?.download { effects.append(.commit(.add(planless), then: nil)) }
        schedule(into: &effects)
    }

    /// The record stops listing the removed subtitles' files; the files themselves go after
    /// this is committed.
    mutating func removeSubtitles(_ id: String, _ removal: SubtitleRemoval, into effects: inout [EngineEffect]) {
        // A cancel goes through the hold: a download being removed keeps its record as it is.
        guard var entry = entries[id], entry.download.state != .removing else { return }
        func inRemoved(_ path: String) -> Bool { removal.renditionFolders.contains { path.hasPrefix($0 + "/") } }
        let trackPaths = removal.trackPaths
        entry.download.files.removeAll { inRemoved($0.path) || trackPaths.contains($0.path) }
        entry.download.hlsPlaylists.removeAll { inRemoved($0) }
        entry.download.hlsKeys.removeAll { inRemoved($0) }
        entry.download.textTracks.removeAll { trackPaths.contains($0.path) }
        entry.download.filesTotal = entry.download.files.count
        entry.download.filesDone = entry.download.files.reduce(0) { $0 + ($1.done ? 1 : 0) }
        entry.download.downloadedBytes = entry.download.files.saturatingSum(\.downloadedBytes)
        if entry.download.state == .completed {
            entry.download.totalBytes = entry.download.downloadedBytes
        } else if !trackPaths.isEmpty {
            entry.download.totalBytes = SizeEstimate.total(of: entry.download, planned: entry.planEstimate)
        }
        entry.download.hasSubtitles = removal.renditionsLeft || !entry.download.textTracks.isEmpty
        // What is left is named exactly, so a later AddSubtitles of "all" is not a no-op.
        if let left = removal.languagesLeft { entry.download.hls?.subtitles = left }
        entries[id] = entry
        effects.append(.forgetStorageInfo)
        effects.append(.commit(.add(entry.download), then: .progress(ProgressUpdate(entry.download))))
    }
}
