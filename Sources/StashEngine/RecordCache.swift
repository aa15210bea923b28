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
/// Records are kept boxed: a dictionary keeps its values inline in a table with room to
/// spare, and a `Download` is 464 bytes, so 100,000 inline records touched 120 MB of table
/// where boxes take 8 bytes a slot plus one allocation each.
final class RecordCache: Sendable {
    private final class Record {
        let download: Download
        init(_ download: Download) { self.download = download }
    }

    private let records = Mutex<[String: Record]>([:])

    /// The record as committed, nil once deleted. A running download keeps the live counters
    /// it already shows when they are ahead of the committed ones and count the same files: a
    /// package planned again (its file list dropped, then rebuilt) starts its count anew.
    func commit(_ id: String, _ download: Download?) {
        guard var download = download.map(Self.cached) else {
            records.withLock { $0[id] = nil }
            return
        }
        records.withLock { records in
            if let shown = records[id]?.download, shown.state == download.state, shown.state.isActive,
               shown.filesTotal == download.filesTotal, shown.downloadedBytes > download.downloadedBytes {
                download.downloadedBytes = shown.downloadedBytes
                download.speed = shown.speed
                download.filesDone = max(download.filesDone, shown.filesDone)
            }
            records[id] = Record(download)
        }
    }

    /// The engine's live counters, shown only while the committed state is the engine's and
    /// running: a change not yet committed (a pause, a completion) is not shown half-made.
    func progress(_ id: String, from download: Download) {
        records.withLock { records in
            guard let shown = records[id]?.download, shown.state == download.state, shown.state.isActive else { return }
            guard shown.downloadedBytes != download.downloadedBytes || shown.speed != download.speed
                || shown.totalBytes != download.totalBytes || shown.filesDone != download.filesDone else { return }
            var live = shown
            live.downloadedBytes = download.downloadedBytes
            live.totalBytes = download.totalBytes
            live.speed = download.speed
            // Files done count against the committed total: a plan made again is shown once committed.
            if shown.filesTotal == download.filesTotal { live.filesDone = download.filesDone }
            records[id] = Record(live)
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
        records.withLock { $0[id]?.download }
    }
}

/// The engine's downloads; every write passes the progress counters on to the `RecordCache`.
///
/// A download of many files (a bundle, an HLS package) goes to the cache without its file
/// list: were the cache to share the engine's array, every change to one file would copy all
/// of them (copy-on-write), which costs a bundle of 50 files 50 copies per event and makes a
/// stream of thousands of segments quadratic. An HLS record is answered without its segments
/// anyway; a bundle's GetDownload, which lists the files, asks the engine (`Engine.get`).
///
/// Entries are boxed in the table for the reason `RecordCache` gives; a write replaces the box.
struct EntryTable {
    private final class Box {
        let entry: DownloadEntry
        init(_ entry: DownloadEntry) { self.entry = entry }
    }

    private var storage: [String: Box] = [:]
    let cache = RecordCache()
    /// Downloads that hold licence terms: the licence timer and checks look at these alone,
    /// not at every record (100,000 records took 0.2 s a pass at start).
    private(set) var licensed: Set<String> = []

    subscript(id: String) -> DownloadEntry? {
        get { storage[id]?.entry }
        set {
            storage[id] = newValue.map(Box.init)
            if newValue?.download.license != nil {
                licensed.insert(id)
            } else if !licensed.isEmpty {
                licensed.remove(id)
            }
            if let download = newValue?.download { cache.progress(id, from: download) }
        }
    }

    /// Takes an entry out to change it, so the table does not share its arrays with the copy
    /// being changed; the caller puts it back (`self[id] = entry`) before anything else looks
    /// it up. The cache keeps the last record meanwhile.
    mutating func take(_ id: String) -> DownloadEntry? {
        storage.removeValue(forKey: id)?.entry
    }

    /// Room for `count` downloads at once, so loading a large registry does not rehash.
    mutating func reserveCapacity(_ count: Int) {
        storage.reserveCapacity(count)
        cache.reserveCapacity(count)
    }

    var count: Int { storage.count }
    var values: some Sequence<DownloadEntry> { storage.values.lazy.map(\.entry) }
}
