import StashCore

/// Appending files to a bundle (AddDownload with `append`): a chapter that gains pages, a
/// lesson that gains a recording. Only the new files are fetched; the ones on disk stay.
extension Engine {
    /// Adds files to the bundle `id` and returns its record once the new file list is committed.
    /// Entries it already holds (the same URL at the same path) are skipped; the rules and
    /// limits are `BundleRules.appended`'s, over the bundle's own files (its text tracks' files
    /// are not counted, but their paths are taken).
    package func append(id: String, files specs: [BundleFileSpec]) async throws -> Download {
        try DownloadRequestRules.validateID(id)
        guard let current = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard current.isBundle else {
            let what = current.hls != nil ? "an HLS stream" : "a single file"
            throw StashError(.failedPrecondition, "download '\(id)' is \(what), not a bundle; files can be appended only to a bundle")
        }
        guard current.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(current.state.name): it is being removed")
        }
        let added = try BundleRules.appended(specs, to: current.contentFiles, alongside: current.files.filter(current.isTextTrackFile),
                                             fileName: AssetLayout.fileName(from:))
        try checkPathLengths(added, id: id) { _ in "files" }
        // Nothing new: the record as committed, as an add of a list already there answers.
        if added.isEmpty { return try get(id: id) }
        return try await takeNewFiles(id, added, reason: "fetching \(added.count) appended file(s)")
    }

    /// Takes `added` files into a download (files appended to a bundle, the files of new text
    /// tracks) and returns its record once the new file list is committed; `edit` changes the
    /// record beside (its text tracks). A download that holds complete files (COMPLETED, or
    /// with its licence run out) goes back to QUEUED and fetches only the new files; a
    /// transferring one takes them into its transfers; a queued, paused, stopped or failed one
    /// keeps its state and fetches them with the rest when it runs.
    func takeNewFiles(_ id: String, _ added: [DownloadFile], reason: String, edit: (inout Download) -> Void = { _ in }) async throws -> Download {
        guard var entry = entries.take(id) else { throw StashError.notFound(id: id) }
        // The content key of a bundle hashes its file list: it is found by the new list from now on.
        unindexContent(entry.download)
        edit(&entry.download)
        entry.download.files += added
        entry.download.filesTotal = entry.download.files.count
        entry.download.totalBytes = Self.estimatedTotal(of: entry.download, planned: entry.planEstimate)
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
        storageCache = nil
        var change: Change?
        if state.holdsCompleteFiles, !added.isEmpty {
            change = try transition(id, .repair) { record in
                record.completedAt = nil
                record.stateReason = reason
            }
        }
        // After the state change: should stashd stop between the two commits, the download
        // restarts with its old list rather than reading COMPLETED with files it lacks.
        guard let updated = entries[id]?.download else { throw StashError.notFound(id: id) }
        let saved = commits.submit(.add(updated), event: change == nil ? .progress(ProgressUpdate(updated)) : nil)
        schedule()
        logger.info("files added to a download", metadata: ["id": "\(id)", "files": "\(added.count)", "state": "\(updated.state.name)"])
        try await saved.wait()
        return change?.download ?? publicView(updated)
    }
}
