import Foundation
import StashCore

/// Queries: answered from the state (or the record cache, off the actor); they change nothing.
extension Engine {
    /// Answers from memory, on the caller's thread, unless the record lists files the cache
    /// does not hold (a bundle's): then nil, and `get(id:)` has the answer.
    package nonisolated func cachedGet(id: String) throws -> Download? {
        guard let download = records.get(id) else { throw StashError.notFound(id: id) }
        guard !download.isBundle else { return nil }
        return publicView(download)
    }

    /// The committed record with the engine's file list (a bundle's, which the cache leaves out).
    package func get(id: String) throws -> Download {
        guard var download = records.get(id) else { throw StashError.notFound(id: id) }
        download.files = entries[id]?.download.files ?? []
        // As from the cache: no answer carries an HLS package's segments.
        if download.hls != nil { download.files = [] }
        return publicView(download)
    }

    /// Answers from memory, on the caller's thread: never touches the disk.
    package nonisolated func has(id: String) -> (exists: Bool, state: DownloadState) {
        guard let download = records.get(id) else { return (false, .notDownloaded) }
        return (true, download.state)
    }

    package static let defaultPageSize = 100
    package static let maxPageSize = 1000

    package func list(states: [DownloadState], pageSize: Int, pageToken: String, group: String = "") throws -> DownloadPage {
        try DownloadRequestRules.validateGroup(group, field: "group filter")
        guard pageSize >= 0, pageSize <= Self.maxPageSize else {
            throw StashError.invalidArgument("page_size \(pageSize) is outside 0...\(Self.maxPageSize)")
        }
        let size = pageSize == 0 ? Self.defaultPageSize : pageSize
        var after = -1
        if !pageToken.isEmpty {
            guard let value = Int(pageToken), value >= 0 else {
                throw StashError.invalidArgument("page_token '\(pageToken.prefix(64))' is not a token from a previous ListDownloads")
            }
            after = value
        }
        return state.list(states: states, size: size, after: after, group: group)
    }

    package func subscribe(ids: [String], minProgressStep: Int, minIntervalMs: Int, replayFrom: UInt64) -> EventSubscription {
        bus.subscribe(
            ids: Set(ids), minProgressStep: minProgressStep == 0 ? Self.progressStep : minProgressStep,
            minInterval: minIntervalMs == 0 ? Self.progressInterval : Double(minIntervalMs) / 1000, replayFrom: replayFrom)
    }

    package func stats() -> DownloadStats {
        var counts: [DownloadState: Int] = [:]
        var speed: Int64 = 0
        for entry in entries.values {
            counts[entry.download.state, default: 0] += 1
            speed += entry.download.speed
        }
        return DownloadStats(speed: speed, counts: counts, activeTransfers: queue.active.count, downloadedBytes: state.sessionBytes)
    }
}
