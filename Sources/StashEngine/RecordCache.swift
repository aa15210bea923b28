import Foundation
import StashCore

/// A copy of every download's record that can be read from any thread without waiting for
/// the engine. GetDownload and HasDownload are the calls apps make most (often in a loop, to
/// draw a list); answering them here keeps them off the engine's queue and out of its way.
/// The engine writes through `EntryTable`, so the copy never lags behind its own state.
final class RecordCache: @unchecked Sendable {
    private let lock = NSLock()
    private var records: [String: Download] = [:]

    func set(_ id: String, _ download: Download?) {
        lock.lock()
        records[id] = download
        lock.unlock()
    }

    func reserveCapacity(_ count: Int) {
        lock.lock()
        records.reserveCapacity(count)
        lock.unlock()
    }

    func get(_ id: String) -> Download? {
        lock.lock()
        defer { lock.unlock() }
        return records[id]
    }
}

/// The engine's downloads, mirrored into a `RecordCache` on every write.
///
/// A download of many files (a bundle, an HLS package) goes to the cache without its file
/// list: were the cache to share the engine's array, every change to one file would copy all
/// of them (copy-on-write), which costs a bundle of 50 files 50 copies per event and makes a
/// stream of thousands of segments quadratic. An HLS record is answered without its segments
/// anyway; a bundle's GetDownload, which lists the files, asks the engine (`Engine.get`).
struct EntryTable {
    private var storage: [String: Engine.Entry] = [:]
    let cache = RecordCache()

    subscript(id: String) -> Engine.Entry? {
        get { storage[id] }
        set {
            storage[id] = newValue
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
        storage.removeValue(forKey: id)
    }

    /// Room for `count` downloads at once, so loading a large registry does not rehash.
    mutating func reserveCapacity(_ count: Int) {
        storage.reserveCapacity(count)
        cache.reserveCapacity(count)
    }

    var count: Int { storage.count }
    var values: Dictionary<String, Engine.Entry>.Values { storage.values }
}
