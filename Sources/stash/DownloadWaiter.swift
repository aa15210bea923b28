import StashClient

/// Follows downloads until each is COMPLETED or FAILED (or another terminal state, or
/// removed); shared by `wait` and `add --wait`.
enum DownloadWaiter {
    /// The states a wait ends in: a stream opened with these alone (`outcomesOnly`) carries
    /// one event a download instead of every step and progress report on the way.
    static let outcomes = DownloadState.allCases.filter(\.isTerminal)

    /// `events` must have been opened before the records are fetched here, so a change that
    /// happens in between is still seen. `known`: records of some of `ids` read after `events`
    /// was opened (the answers of the adds just made), which need no GetDownload: for 2,000
    /// downloads that was 2,000 round trips one after the other. Returns true when every
    /// download completed; the others are reported on stderr. `quiet`: nothing else is printed.
    /// `created`: downloads whose record in `known` is the answer to the add that made them.
    /// `outcomesOnly`: `events` was opened with `Self.outcomes`, so it holds no step on the way.
    static func wait(
        for ids: [String], known: [Download] = [], created: Set<String> = [], client: StashClient,
        events: AsyncThrowingStream<DownloadEvent, Error>, json: Bool, quiet: Bool = false, outcomesOnly: Bool = false
    ) async throws -> Bool {
        var wanted: [String] = []
        var seen: Set<String> = []
        for id in ids where seen.insert(id).inserted { wanted.append(id) }
        let interrupt = InterruptNotice(ids: wanted)
        defer { interrupt.cancel() }
        var tracker = DownloadTracker()
        let reporter = ProgressReporter(json: json, quiet: quiet)
        var read: [String: Download] = [:]
        for download in known { read[download.id] = download }
        for id in wanted {
            let download = if let record = read[id] { record } else { try await client.getDownload(id: id) }
            tracker.set(download, first: created.contains(id))
            reporter.show(download)
        }
        var pending = Set(wanted.filter { tracker.records[$0]?.state.isTerminal == false })
        if !pending.isEmpty {
            for try await event in events {
                if case .eventsLost = event.kind {
                    // Too far behind: read the pending downloads again instead.
                    for id in pending {
                        guard let download = try? await client.getDownload(id: id) else { continue }
                        tracker.set(download)
                        reporter.show(download)
                        if download.state.isTerminal { pending.remove(id) }
                    }
                    if pending.isEmpty { break }
                    continue
                }
                guard pending.contains(event.downloadID) else { continue }
                let id = event.downloadID
                if outcomesOnly, !created.contains(id), case .stateChanged = event.kind {
                    // Without the steps between, an outcome cannot be placed before or after a
                    // record read once the stream was open (a download that completed, then
                    // was started again): the record is read again, and is the truth.
                    let download = try await client.getDownload(id: id)
                    tracker.set(download)
                    reporter.show(download)
                    if download.state.isTerminal { pending.remove(id) }
                } else if let download = tracker.apply(event) {
                    reporter.show(download)
                    if download.state.isTerminal { pending.remove(id) }
                } else if tracker.removed.contains(id) {
                    reporter.remove(id: id)
                    pending.remove(id)
                }
                if pending.isEmpty { break }
            }
            guard pending.isEmpty else { throw StashError.connectionFailure("connection to stashd closed") }
        }
        reporter.finish()
        var allCompleted = true
        for id in wanted {
            if tracker.removed.contains(id) {
                Output.error("download \(id) was cancelled")
                allCompleted = false
            } else if let download = tracker.records[id], download.state != .completed {
                let reason = download.error.map { $0.description } ?? download.stateReason
                Output.error("download \(id) ended \(download.state.name)" + (reason.isEmpty ? "" : ": \(reason)"))
                allCompleted = false
            }
        }
        return allCompleted
    }
}
