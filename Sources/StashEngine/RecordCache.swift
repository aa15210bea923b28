import Foundation
import StashCore
import Synchronization

/// A copy of every download's record that can be read from any thread without waiting for
/// the engine. GetDownload and HasDownload are the calls apps make most (often in a loop, to
/// draw a list); answering them here keeps them off the engine's queue and out of its way.
///
/// It holds each record as committed to the registry (`CommitQueue` writes it once the
/// transaction is durable), so no read shows a state a crash could undo. Only the progress
/// counters of a running download (bytes, speed, files done) are live between commits,
/// written through `EntryTable`: they describe the part files, which a restart measures again.
///
/// A record here shares its storage with the engine's (`Download` is copied on write), so a
/// record at rest is held once, whoever holds it.
final class RecordCache: Sendable {
    private let records = Mutex<[String: Download]>([:])

    /// The record as committed, nil once deleted. A running download keeps the live counters
    /// it already shows when they are ahead of the committed ones and count the same files: a
    /// package planned again (its file list dropped, then rebuilt) starts its count anew.
    func commit(_ id: String, _ download: Download?) {
        guard var download = download.map(Self.cached) else {
            records.withLock { $0[id] = nil }
            return
        }
        records.withLock { records in
            if let shown = records[id], shown.state == download.state, shown.state.isActive,
               shown.filesTotal == download.filesTotal, shown.downloadedBytes > download.downloadedBytes {
                download.downloadedBytes = shown.downloadedBytes
                download.speed = shown.speed
                download.filesDone = max(download.filesDone, shown.filesDone)
            }
            records[id] = download
        }
    }

    /// The engine's live counters, shown only while the committed state is the engine's and
    /// running: a change not yet committed (a pause, a completion) is not shown half-made.
    func progress(_ id: String, from download: Download) {
        records.withLock { records in
            guard let shown = records[id], shown.state == download.state, shown.state.isActive else { return }
            guard shown.downloadedBytes != download.downloadedBytes || shown.speed != download.speed
                || shown.totalBytes != download.totalBytes || shown.filesDone != download.filesDone else { return }
            var live = shown
            live.downloadedBytes = download.downloadedBytes
            live.totalBytes = download.totalBytes
            live.speed = download.speed
            // Files done count against the committed total: a plan made again is shown once committed.
            if shown.filesTotal == download.filesTotal { live.filesDone = download.filesDone }
            records[id] = live
        }
    }

    /// A download of many files goes to the cache without its file list: see `EntryTable`.
    static func cached(_ download: Download) -> Download {
        guard download.isFolder else { return download }
        var download = download
        download.files = []
        return download
    }

    func reserveCapacity(_ count: Int) {
        records.withLock { $0.reserveCapacity(count) }
    }

    func get(_ id: String) -> Download? {
        records.withLock { $0[id] }
    }
}
