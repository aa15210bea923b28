import StashCore

/// The engine's downloads, in list order, with the `ListIndex` that answers ListDownloads;
/// every write passes the progress counters on to the `RecordCache` and keeps the index's
/// order and totals up to date, whoever makes it.
///
/// A download of many files (a bundle, an HLS package) goes to the cache without its file
/// list: were the cache to share the engine's array, every change to one file would copy all
/// of them (copy-on-write), which costs a bundle of 50 files 50 copies per event and makes a
/// stream of thousands of segments quadratic. An HLS record is answered without its segments
/// anyway; a bundle's GetDownload, which lists the files, asks the engine (`Engine.get`).
///
/// Entries are boxed, one per position of the index, for the reason `RecordCache` gives; a
/// write replaces the box.
struct EntryTable {
    private final class Box {
        let entry: DownloadEntry
        init(_ entry: DownloadEntry) { self.entry = entry }
    }

    /// By the index's positions; nil for a removed download, and for one taken out (`take`).
    private var boxes: [Box?] = []
    private var positions: [String: Int] = [:]
    private(set) var index = ListIndex()
    let cache = RecordCache()
    /// Downloads that hold licence terms: the licence timer and checks look at these alone,
    /// not at every record (100,000 records took 0.2 s a pass at start).
    private(set) var licensed: Set<String> = []

    subscript(id: String) -> DownloadEntry? {
        get { positions[id].flatMap { boxes[$0]?.entry } }
        set {
            if let entry = newValue {
                put(id, entry)
            } else if let position = positions.removeValue(forKey: id) {
                index.remove(position)
                boxes[position] = nil
                if index.needsCompaction { compact() }
            }
            if newValue?.download.license != nil {
                licensed.insert(id)
            } else if !licensed.isEmpty {
                licensed.remove(id)
            }
            if let download = newValue?.download { cache.progress(id, from: download) }
        }
    }

    private mutating func put(_ id: String, _ entry: DownloadEntry) {
        if let position = positions[id] {
            index.update(position, entry.download)
            boxes[position] = Box(entry)
        } else if let position = index.append(seq: entry.seq, entry.download) {
            positions[id] = position
            boxes.append(Box(entry))
        } else {
            rebuild(adding: entry)
        }
    }

    /// Takes an entry out to change it, so the table does not share its arrays with the copy
    /// being changed; the caller puts it back (`self[id] = entry`) before anything else looks
    /// it up. The cache keeps the last record meanwhile, and the index its place and counts.
    mutating func take(_ id: String) -> DownloadEntry? {
        guard let position = positions[id], let box = boxes[position] else { return nil }
        boxes[position] = nil
        return box.entry
    }

    /// Closes up the positions of removed downloads.
    private mutating func compact() {
        let kept = index.compact()
        var moved = [Int](repeating: 0, count: boxes.count)
        for (new, old) in kept.enumerated() { moved[old] = new }
        // Through the ids' positions rather than the boxes: a taken entry has no box.
        positions = positions.mapValues { moved[$0] }
        boxes = kept.map { boxes[$0] }
    }

    /// An entry whose seq is below the last one's (the engine gives rising ones; a test may
    /// not): the order is made again with it in its place.
    private mutating func rebuild(adding entry: DownloadEntry) {
        let all = (boxes.compactMap { $0?.entry } + [entry]).enumerated().sorted {
            ($0.element.seq, $0.offset) < ($1.element.seq, $1.offset)
        }.map(\.element)
        boxes = []
        positions = [:]
        index = ListIndex()
        for entry in all { put(entry.download.id, entry) }
    }

    /// Room for `count` downloads at once, so loading a large registry does not rehash.
    mutating func reserveCapacity(_ count: Int) {
        positions.reserveCapacity(count)
        boxes.reserveCapacity(count)
        cache.reserveCapacity(count)
    }

    var count: Int { positions.count }
    /// In list order.
    var values: some Sequence<DownloadEntry> { boxes.lazy.compactMap { $0?.entry } }
    /// Ids in list order.
    var ids: [String] { boxes.compactMap { $0?.entry.download.id } }

    /// Up to `limit` entries after the one with seq `after`, in list order, in a state of
    /// `mask` and in `group` or a group under it (`ListIndex.page`); `more` when another follows.
    mutating func page(mask: UInt16, group: String, after seq: Int, limit: Int) -> (entries: [DownloadEntry], more: Bool) {
        let (found, more) = index.page(mask: mask, group: group, from: index.firstPosition(after: seq), limit: limit)
        return (found.compactMap { boxes[$0]?.entry }, more)
    }

    /// The count and totals of the downloads a filter matches, over all pages.
    mutating func totals(mask: UInt16, group: String) -> ListIndex.Totals {
        index.totals(mask: mask, group: group)
    }
}
