import StashClient

/// The latest record of each download being shown, kept current from events. Progress
/// events carry only the numbers, so they are applied to the last full record.
struct DownloadTracker {
    private(set) var records: [String: Download] = [:]
    /// First-seen order, so bars keep their lines.
    private(set) var order: [String] = []
    private(set) var removed: Set<String> = []

    mutating func set(_ download: Download) {
        if records[download.id] == nil { order.append(download.id) }
        records[download.id] = download
    }

    /// Applies an event; returns the updated record, or nil when the event is about a
    /// download without a known record, or it was removed.
    mutating func apply(_ event: DownloadEvent) -> Download? {
        switch event.kind {
        case .stateChanged(let download, _):
            set(download)
            return download
        case .progress(let update):
            guard var download = records[update.id] else { return nil }
            download.downloadedBytes = update.downloadedBytes
            download.totalBytes = update.totalBytes
            download.speed = update.speed
            download.filesDone = update.filesDone
            download.filesTotal = update.filesTotal
            records[update.id] = download
            return download
        case .removed(let id):
            removed.insert(id)
            return nil
        case .license, .eventsLost:
            return nil
        }
    }
}
