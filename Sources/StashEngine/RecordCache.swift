import Foundation
import StashCore

/// A copy of every download's record that can be read from any thread without waiting for
/// the engine. GetDownload and HasDownload are the calls apps make most (often in a loop, to
/// draw a list); answering them here keeps them off the engine's queue and out of its way.
/// The engine writes through `EntryTable`, so the copy never lags behind its own state.
///
/// Records are kept boxed: a dictionary keeps its values inline in a table with room to
/// spare, and a `Download` is 464 bytes, so 100,000 inline records touched 120 MB of table
/// where boxes take 8 bytes a slot plus one allocation each.
final class RecordCache: @unchecked Sendable {
    private final class Record {
        let download: Download
        init(_ download: Download) { self.download = download }
    }

    private let lock = NSLock()
    private var records: [String: Record] = [:]

    func set(_ id: String, _ download: Download?) {
        let record = download.map(Record.init)
        lock.lock()
        records[id] = record
        lock.unlock()
    }

    func reserveCapacity(_ count: Int) {
        lock.lock()
        records.reserveCapacity(count)
        lock.unlock()
    }

    func get(_ id: String) -> Download? {
        lock.lock()
        let record = records[id]
        lock.unlock()
        return record?.download
    }
}

/// The engine's downloads, mirrored into a `RecordCache` on every write.
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
        let entry: Engine.Entry
        init(_ entry: Engine.Entry) { self.entry = entry }
    }

    private var storage: [String: Box] = [:]
    let cache = RecordCache()
    /// Downloads that hold licence terms: the licence timer and checks look at these alone,
    /// not at every record (100,000 records took 0.2 s a pass at start).
    private(set) var licensed: Set<String> = []

    subscript(id: String) -> Engine.Entry? {
        get { storage[id]?.entry }
        set {
            storage[id] = newValue.map(Box.init)
            if newValue?.download.license != nil {
                licensed.insert(id)
            } else if !licensed.isEmpty {
                licensed.remove(id)
            }
            guard var download = newValue?.download, download.isFolder else {
                cache.set(id, newValue?.download)
                return
            }
            download.files = []
            cache.set(id, download)
        }
    }

    /// Takes an entry out to change it, so the table does not share its arrays with the copy
    /// being changed; the caller puts it back (`self[id] = entry`) before anything else looks
    /// it up. The cache keeps the last record meanwhile.
    mutating func take(_ id: String) -> Engine.Entry? {
        storage.removeValue(forKey: id)?.entry
    }

    /// Room for `count` downloads at once, so loading a large registry does not rehash.
    mutating func reserveCapacity(_ count: Int) {
        storage.reserveCapacity(count)
        cache.reserveCapacity(count)
    }

    var count: Int { storage.count }
    var values: some Sequence<Engine.Entry> { storage.values.lazy.map(\.entry) }
}
