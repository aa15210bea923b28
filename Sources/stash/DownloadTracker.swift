import StashClient

/// The latest record of each download being shown, kept current from events. Progress
/// events carry only the numbers, so they are applied to the last full record.
///
/// What is shown never goes back in time. A record read from the daemon (a snapshot) comes
/// over another connection than the events, so events already waiting in the stream may be
/// older than it: after a snapshot, the stream's state changes are skipped until the one that
/// leaves the snapshot's state (its `previous` is that state), and from there on the events
/// apply in their sequence order.
struct DownloadTracker {
    private(set) var records: [String: Download] = [:]
    /// First-seen order, so bars keep their lines.
    private(set) var order: [String] = []
    private(set) var removed: Set<String> = []
    /// Downloads shown from a snapshot whose next state change has not come yet.
    private var awaitingChange: Set<String> = []
    /// The stream delivers events in sequence order; one at or below this was seen already.
    private var lastSeq: UInt64 = 0

    /// Shows a record read after the event stream was opened (so the change that follows it
    /// is in the stream). `first`: the record is the download's first, the answer to the add
    /// that made it, so every event of it in the stream is newer.
    mutating func set(_ download: Download, first: Bool = false) {
        if records[download.id] == nil { order.append(download.id) }
        records[download.id] = download
        if first { awaitingChange.remove(download.id) } else { awaitingChange.insert(download.id) }
    }

    /// Applies an event; returns the updated record, or nil when there is nothing new to
    /// show: the event is about a download without a known record, is older than what is
    /// shown, or the download was removed.
    mutating func apply(_ event: DownloadEvent) -> Download? {
        guard event.seq > lastSeq else { return nil }
        lastSeq = event.seq
        switch event.kind {
        case .stateChanged(let download, let previous):
            if awaitingChange.contains(download.id), let shown = records[download.id] {
                // A change made before the snapshot was read: the snapshot shows its outcome.
                guard previous == shown.state else { return nil }
                awaitingChange.remove(download.id)
            }
            if records[download.id] == nil { order.append(download.id) }
            records[download.id] = download
            return download
        case .progress(let update):
            guard var download = records[update.id] else { return nil }
            // Bytes only grow between state changes; fewer than shown is a report from before
            // the snapshot.
            if awaitingChange.contains(update.id), update.downloadedBytes < download.downloadedBytes { return nil }
            download.downloadedBytes = update.downloadedBytes
            download.totalBytes = update.totalBytes
            // A report that left before a pause arrives after it: a paused download moves nothing.
            download.speed = download.state.isActive ? update.speed : 0
            download.filesDone = update.filesDone
            download.filesTotal = update.filesTotal
            records[update.id] = download
            return download
        case .removed(let id):
            removed.insert(id)
            return nil
        case .settingsChanged(let download, _):
            // Its settings are new; its state and bytes are the ones shown (the record's may be
            // older than the last progress).
            guard var shown = records[download.id] else { return nil }
            shown.priority = download.priority
            shown.rateLimit = download.rateLimit
            shown.uri = download.uri
            shown.files = download.files.isEmpty ? shown.files : download.files
            shown.headers = download.headers
            shown.drm = download.drm
            records[download.id] = shown
            return shown
        case .license, .eventsLost, .exportProgress:
            return nil
        }
    }
}
