import StashCore

/// SetDownload's changes to a download after its add, other than its priority (which
/// `EngineState+Queue` decides, as it moves the download in the queue).
extension EngineState {
    /// Gives a download its own rate limit (0 = none), within the global one. Its running
    /// transfers take it at once; its later ones bring it in their request.
    mutating func setRateLimit(_ id: String, _ limit: Int64, into effects: inout [EngineEffect]) throws {
        guard try checkRateLimit(id, limit), var entry = entries[id] else { return }
        entry.download.rateLimit = limit
        entries[id] = entry
        effects.append(.commit(.save(entry.download), then: .settingsChanged(entry.download, changed: ["rate_limit"])))
        effects.append(.setGroupRateLimit(id, limit))
    }

    /// Refuses a rate limit `id` cannot take; false when it has it already.
    func checkRateLimit(_ id: String, _ limit: Int64) throws -> Bool {
        guard limit >= 0 else {
            throw StashError.invalidArgument("rate_limit: \(limit) is negative; give bytes per second, 0 = none")
        }
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard download.rateLimit != limit else { return false }
        guard download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is REMOVING; its rate limit cannot change")
        }
        return true
    }
}

extension EngineState {
    /// Gives a single-file download, or one file of a bundle (`file`, its path), a new URL (a
    /// signed one that expired, a moved file). The bytes held are kept: the next transfer
    /// resumes with the recorded validators in If-Range, so a new URL serving other content
    /// (another entity tag or size) answers with it whole and the file starts again
    /// (`DownloadFile.newURL` says why, across restarts). A running download restarts on the
    /// new URL at once; a paused or failed one keeps its state until it is resumed.
    mutating func setURI(_ id: String, _ uri: String, file path: String?, into effects: inout [EngineEffect]) throws {
        guard let (index, file) = try checkURI(id, uri, file: path), var entry = entries[id] else { return }
        let download = entry.download
        unindexContent(download)
        if let file {
            entry.download.files[file].url = uri
            entry.download.files[file].newURL = true
        }
        if download.isBundle {
            effects.append(.commit(
                .saveFile(id: id, index: index, file: entry.download.files[index]), then: .settingsChanged(entry.download, changed: ["uri"])))
        } else {
            entry.download.uri = uri
            // The file's row keeps its new URL's mark for a restart.
            if let file { effects.append(.commit(.saveFile(id: id, index: file, file: entry.download.files[file]), then: nil)) }
            effects.append(.commit(.save(entry.download), then: .settingsChanged(entry.download, changed: ["uri"])))
        }
        entries[id] = entry
        indexContent(entry.download)
        // A bundle file not yet started (or done) takes the new URL when it starts (or for a
        // later verify --repair): the other files' transfers need not stop for it.
        guard entry.download.state.isActive, !download.isBundle || entry.activity.transfers[index] != nil else { return }
        // Its transfer holds the old URL: the download's transfers stop, each keeping its
        // bytes, and it takes its slot again on the new one.
        try transition(id, .requeue, into: &effects) { $0.stateReason = "restarting on its new URL" }
        schedule(into: &effects)
    }

    /// Refuses a new URL `id` cannot take; the index of the file it is for and that file's
    /// index in the record (nil for a single file's lost row), or nil when it has that URL.
    func checkURI(_ id: String, _ uri: String, file path: String?) throws -> (index: Int, file: Int?)? {
        try DownloadRequestRules.validateURI(uri)
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        let index = try Self.fileToChange(download, path)
        // The registry rebuilds a single file's lost row; were one missing, only the
        // download's own URL would change rather than an index past the end being read.
        let file = download.files.indices.contains(index) ? index : nil
        guard file.map({ download.files[$0].url }) ?? download.uri != uri else { return nil }
        guard download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is REMOVING; its URL cannot change")
        }
        guard replacements[id] == nil else {
            throw StashError(.failedPrecondition, "download '\(id)' is being replaced; change its URL once the replace ends")
        }
        return (index, file)
    }

    /// The index of the file a new URL is for: a single file's own (no path), or the bundle
    /// file at `path`.
    private static func fileToChange(_ download: Download, _ path: String?) throws -> Int {
        let id = download.id
        guard download.hls == nil else {
            throw StashError.invalidArgument("uri: '\(id)' is an HLS download; changing its URL is not supported yet")
        }
        guard download.isBundle else {
            if let path {
                throw StashError.invalidArgument("file: '\(id)' is a single-file download, it has no file '\(path.prefix(256))'; give its new URL without --file")
            }
            return 0
        }
        guard let path, !path.isEmpty else {
            throw StashError.invalidArgument("uri: '\(id)' is a bundle; name the file whose URL changes with --file PATH (stash show \(id) lists its paths)")
        }
        // Text tracks are files of the record but not the bundle's content.
        guard let index = download.files.firstIndex(where: { $0.path == path && !download.isTextTrackFile($0) }) else {
            throw StashError(.notFound, "file: bundle '\(id)' has no file '\(path.prefix(256))'; stash show \(id) lists its files' paths")
        }
        return index
    }

    /// What a download that failed on a refused or gone URL (401, 403, 410) adds to its
    /// error: a signed URL that expired is renewed in place, not by adding it again.
    static func updateHint(_ download: Download, file index: Int, _ error: DownloadError) -> String {
        guard error.kind == .http, [401, 403, 410].contains(error.httpStatus), download.hls == nil else { return "" }
        // 401 asks for credentials: a token in a header as likely as a signed URL.
        let token = error.httpStatus == 401 ? " (or its token: --header 'Name: value')" : ""
        guard download.isBundle else {
            return "; if its URL expired, give a new one: stash set \(download.id) --uri URL\(token), then stash resume \(download.id)"
        }
        guard download.files.indices.contains(index), !download.isTextTrackFile(download.files[index]) else { return "" }
        return "; if its URL expired, give a new one: stash set \(download.id) --file '\(download.files[index].path)' --uri URL\(token), then stash resume \(download.id)"
    }
}
