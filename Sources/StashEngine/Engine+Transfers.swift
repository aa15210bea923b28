import Foundation
import StashCore
import StashFetch

/// Transfers: the fetch service's side of what `EngineState` decides about them.
extension Engine {
    /// Handles the fetch events waiting, in order, then gives the slots they freed to waiting
    /// files once, not once per event. Events that came meanwhile are handled by a job of their
    /// own, queued behind the requests already waiting for the engine, so a busy stream of
    /// events never keeps a client's call waiting for long.
    func handleNotices() {
        let batch = notices.take()
        // An empty take ends the drain: the next event starts another.
        guard !batch.isEmpty else { return }
        for notice in batch {
            if notice.event.isFinal { transfers[notice.generation] = nil }
            run(.transfer(notice))
        }
        schedule()
        handleNoticesLater()
    }

    /// Queues a drain of the fetch events as a job of its own on the engine.
    nonisolated func handleNoticesLater() {
        Task { [weak self] in await self?.handleNotices() }
    }

    /// Stops the transfers in the background; `stopping` lets a removal wait until their files
    /// are closed, and `.transfersStopped` follows.
    func stopTransfers(_ id: String, generations: [UInt64]) {
        let previous = stopping[id]
        // Queued now, in order before any restart of this download reopens its part files.
        let (done, signal) = AsyncStream.makeStream(of: Void.self)
        for generation in generations {
            guard let transfer = transfers.removeValue(forKey: generation) else {
                signal.yield()
                continue
            }
            fetch.cancel(transfer) { signal.yield() }
        }
        let count = generations.count
        let stop = Task {
            await previous?.value
            var stoppedCount = 0
            for await _ in done {
                stoppedCount += 1
                if stoppedCount == count { break }
            }
        }
        noteStopping(id, stop, transfersStopped: true)
    }

    /// The download's total: exact when every file's size is known, else the known sizes plus
    /// their average for each unknown file (refined as files start), nil when none is known.
    static func estimatedTotal(_ files: [DownloadFile]) -> Int64? {
        estimatedTotal(files, planned: nil)
    }

    /// A download's total as `estimatedTotal(_:planned:)` makes it, its text tracks' files
    /// counted by their known sizes only: subtitles are small, and guessing one from the
    /// average of a video would hold the download back for disk space it does not need.
    static func estimatedTotal(of download: Download, planned: Int64? = nil) -> Int64? {
        guard !download.textTracks.isEmpty else { return estimatedTotal(download.files, planned: planned) }
        var content: [DownloadFile] = []
        var tracks: Int64 = 0
        for file in download.files {
            if download.isTextTrackFile(file) {
                tracks = tracks.addingSaturating(file.size ?? 0)
            } else {
                content.append(file)
            }
        }
        return estimatedTotal(content, planned: planned).map { $0.addingSaturating(tracks) }
    }

    /// With `planned`, an HLS package's size from its playlists: unknown files are guessed
    /// from the known ones of their own folder only (a subtitle segment is not a video
    /// segment), and the total is never below the playlists' figure until every size is known.
    static func estimatedTotal(_ files: [DownloadFile], planned: Int64?) -> Int64? {
        guard let planned else { return estimatedTotalByAverage(files) }
        var known: Int64 = 0
        var byFolder: [Substring: (sum: Int64, count: Int64, unknown: Int64)] = [:]
        for file in files {
            let folder = file.path[..<(file.path.lastIndex(of: "/") ?? file.path.startIndex)]
            if let size = file.size {
                known = known.addingSaturating(size)
                byFolder[folder, default: (0, 0, 0)].sum = byFolder[folder, default: (0, 0, 0)].sum.addingSaturating(size)
                byFolder[folder, default: (0, 0, 0)].count += 1
            } else {
                byFolder[folder, default: (0, 0, 0)].unknown += 1
            }
        }
        if byFolder.values.allSatisfy({ $0.unknown == 0 }) { return known }
        let guessed = byFolder.values.reduce(known) { total, folder in
            folder.count > 0 ? total.addingSaturating((folder.sum / folder.count).multipliedSaturating(by: folder.unknown)) : total
        }
        return max(guessed, planned)
    }

    private static func estimatedTotalByAverage(_ files: [DownloadFile]) -> Int64? {
        var known: Int64 = 0
        var count: Int64 = 0
        for file in files {
            if let size = file.size {
                known = known.addingSaturating(size)
                count += 1
            }
        }
        guard count > 0 else { return nil }
        if count == files.count { return known }
        return known.addingSaturating((known / count).multipliedSaturating(by: Int64(files.count) - count))
    }
}
