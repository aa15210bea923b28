import StashCore

/// Counts over every download: GetStats, and what keeps an idle stashd from exiting.
extension EngineState {
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
