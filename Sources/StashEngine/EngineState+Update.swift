import StashCore

/// SetDownload's changes to a download after its add, other than its priority (which
/// `EngineState+Queue` decides, as it moves the download in the queue).
extension EngineState {
    /// Gives a download its own rate limit (0 = none), within the global one. Its running
    /// transfers take it at once; its later ones bring it in their request.
    mutating func setRateLimit(_ id: String, _ limit: Int64, into effects: inout [EngineEffect]) throws {
        guard limit >= 0 else {
            throw StashError.invalidArgument("rate_limit: \(limit) is negative; give bytes per second, 0 = none")
        }
        guard var entry = entries[id] else { throw StashError.notFound(id: id) }
        guard entry.download.rateLimit != limit else { return }
        guard entry.download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is REMOVING; its rate limit cannot change")
        }
        entry.download.rateLimit = limit
        entries[id] = entry
        effects.append(.commit(.save(entry.download), then: nil))
        effects.append(.setGroupRateLimit(id, limit))
    }
}

extension EngineState {
    /// Gives a single-file download a new URL (a signed one that expired, a moved file). The
    /// bytes held are kept: the next transfer resumes with the recorded validators in
    /// If-Range, so a new URL serving other content answers 200 and the file starts again
    /// (`uriChanged` says why). A running download restarts on the new URL at once; a paused
    /// or failed one keeps its state until it is resumed.
    mutating func setURI(_ id: String, _ uri: String, into effects: inout [EngineEffect]) throws {
        try DownloadRequestRules.validateURI(uri)
        guard var entry = entries[id] else { throw StashError.notFound(id: id) }
        let download = entry.download
        guard !download.isBundle else {
            throw StashError.invalidArgument("uri: '\(id)' is a bundle; changing a bundle file's URL (--file) is not supported yet")
        }
        guard download.hls == nil else {
            throw StashError.invalidArgument("uri: '\(id)' is an HLS download; changing its URL is not supported yet")
        }
        guard download.uri != uri else { return }
        guard download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is REMOVING; its URL cannot change")
        }
        guard replacements[id] == nil else {
            throw StashError(.failedPrecondition, "download '\(id)' is being replaced; change its URL once the replace ends")
        }
        unindexContent(download)
        entry.download.uri = uri
        for index in entry.download.files.indices { entry.download.files[index].url = uri }
        entry.uriChanged = true
        entries[id] = entry
        indexContent(entry.download)
        effects.append(.commit(.save(entry.download), then: nil))
        guard entry.download.state.isActive else { return }
        // Its transfers hold the old URL: they stop, and it takes its slot again on the new one.
        try transition(id, .requeue, into: &effects) { $0.stateReason = "restarting on its new URL" }
        schedule(into: &effects)
    }

    /// What a download that failed on a refused or gone URL (401, 403, 410) adds to its
    /// error: a signed URL that expired is renewed in place, not by adding it again.
    static func updateHint(_ download: Download, _ error: DownloadError) -> String {
        guard error.kind == .http, [401, 403, 410].contains(error.httpStatus), !download.isBundle, download.hls == nil else { return "" }
        return "; if its URL expired, give a new one: stash set \(download.id) --uri URL, then stash resume \(download.id)"
    }
}
