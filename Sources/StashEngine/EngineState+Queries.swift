import StashCore

/// Reads for queries: GetDownload, GetStats, and what keeps an idle stashd from exiting.
extension EngineState {
    /// The committed record (`RecordCache`) with the engine's file list (a bundle's, which the
    /// cache leaves out).
    func committedRecord(_ id: String) throws -> Download {
        guard var download = entries.cache.get(id) else { throw StashError.notFound(id: id) }
        download.files = entries[id]?.download.files ?? []
        // As from the cache: no answer carries an HLS package's segments.
        if download.hls != nil { download.files = [] }
        return download
    }

    func stats() -> DownloadStats {
        var counts: [DownloadState: Int] = [:]
        var speed: Int64 = 0
        for entry in entries.values {
            counts[entry.download.state, default: 0] += 1
            speed += entry.download.speed
        }
        return DownloadStats(speed: speed, counts: counts, activeTransfers: queue.active.count, downloadedBytes: sessionBytes)
    }

    /// Downloads with work under way or waiting: preparing, queued, transferring, waiting for
    /// the network, restarting or being removed.
    var busyCount: Int {
        var busy = 0
        for entry in entries.values {
            switch entry.download.state {
            case .preparing, .queued, .downloading, .waitingForNetwork, .restarting, .removing: busy += 1
            default: continue
            }
        }
        return busy
    }
}
