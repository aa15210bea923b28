import StashCore

/// Appending files to a bundle (AddDownload with `append`): a chapter that gains pages, a
/// lesson that gains a recording. Only the new files are fetched; the ones on disk stay.
extension Engine {
    /// Adds files to the bundle `id` and returns its record once the new file list is committed.
    /// Entries it already holds (the same URL at the same path) are skipped; the rules and
    /// limits are `BundleRules.appended`'s. A COMPLETED bundle goes back to QUEUED and fetches
    /// only the new files; a transferring one takes them into its transfers; a queued, paused,
    /// stopped or failed one keeps its state and fetches them with the rest when it runs.
    public func append(id: String, files specs: [BundleFileSpec]) async throws -> Download {
        try DownloadRequestRules.validateID(id)
        guard let current = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard current.isBundle else {
            let what = current.hls != nil ? "an HLS stream" : "a single file"
            throw StashError(.failedPrecondition, "download '\(id)' is \(what), not a bundle; files can be appended only to a bundle")
        }
        guard current.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(current.state.name): it is being removed")
        }
        let added = try BundleRules.appended(specs, to: current.files, fileName: AssetLayout.fileName(from:))
        try checkPathLengths(added, id: id) { _ in "files" }
        // Nothing new: the record as committed, as an add of a list already there answers.
        if added.isEmpty { return try get(id: id) }

        guard var entry = entries.take(id) else { throw StashError.notFound(id: id) }
        // The content key hashes the file list: the bundle is found by its new list from now on.
        unindexContent(entry.download)
        entry.download.files += added
        entry.download.filesTotal = entry.download.files.count
        entry.download.totalBytes = Self.estimatedTotal(entry.download.files)
        if entry.download.state.isActive {
            // The new files wait for transfer slots behind those not started yet; the running
            // transfers keep theirs. A completion under way (the folder sync) did not cover them.
            if entry.activity.isCompleting { entry.activity = .transferring([:]) }
            let running = entry.activity.transfers
            let files = entry.download.files
            slots.activate(id, seq: entry.seq, files: files.indices.filter { !files[$0].done && running[$0] == nil }.map { ($0, files[$0].host) })
            slotsChanged = true
        }
        entries[id] = entry
        indexContent(entry.download)
        storageCache = nil
        var change: Change?
        if entry.download.state == .completed {
            change = try transition(id, .repair) { record in
                record.completedAt = nil
                record.stateReason = "fetching \(added.count) appended file(s)"
            }
        }
        // After the state change: should stashd stop between the two commits, the bundle
        // restarts with its old list rather than reading COMPLETED with files it lacks.
        guard let appended = entries[id]?.download else { throw StashError.notFound(id: id) }
        let saved = commits.submit(.add(appended), event: change == nil ? .progress(ProgressUpdate(appended)) : nil)
        schedule()
        logger.info("files appended to a bundle", metadata: ["id": "\(id)", "files": "\(added.count)", "state": "\(appended.state.name)"])
        try await saved.wait()
        return change?.download ?? publicView(appended)
    }
}
