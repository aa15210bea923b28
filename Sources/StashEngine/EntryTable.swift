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
struct EntryTable {
    /// By the index's positions; nil for a removed download, and for one taken out (`take`).
    /// Kept inline: an entry is small, its record being one reference (`Download`).
    private var slots: [DownloadEntry?] = []
    private var positions: [String: Int] = [:]
    private(set) var index = ListIndex()
    let cache = RecordCache()
    /// Downloads that hold licence terms: the licence timer and checks look at these alone,
    /// not at every record (100,000 records took 0.2 s a pass at start).
    private(set) var licensed: Set<String> = []

    subscript(id: String) -> DownloadEntry? {
        get { positions[id].flatMap { slots[$0] } }
        set {
            // Bound once and handed over to the table at the end: a look through `newValue?`
            // or a copy into the table retained the whole entry at each change.
            guard let entry = consume newValue else {
                if !licensed.isEmpty { licensed.remove(id) }
                if let position = positions.removeValue(forKey: id) {
                    index.remove(position)
                    slots[position] = nil
                    if index.needsCompaction { compact() }
                }
                return
            }
            if entry.download.license != nil {
                licensed.insert(id)
            } else if !licensed.isEmpty {
                licensed.remove(id)
            }
            // Live counters are shown only for a running download: the others skip the lock.
            if entry.download.state.isActive { cache.progress(id, from: entry.download) }
            put(id, entry)
        }
    }

    /// A download's priority, read in place: a look at every active download at every
    /// scheduling (`EngineState.preempt`) copied each whole entry.
    func priority(_ id: String) -> DownloadPriority? {
        guard let position = positions[id] else { return nil }
        return inPlace(position) { $0.priority }
    }

    /// Reads the record at `position` through the array's storage: `slots[position]?.download`
    /// copies the whole entry out first (a retain of the record and of the activity's payload,
    /// and their releases), which the engine's loops over active downloads paid at each step.
    private func inPlace<T>(_ position: Int, _ read: (borrowing Download) -> T) -> T? {
        slots.withUnsafeBufferPointer { slots in
            guard slots.indices.contains(position), slots[position] != nil else { return nil }
            return read(slots[position].unsafelyUnwrapped.download)
        }
    }

    /// The bytes a download still needs on disk (its size less what it holds), nil when its
    /// size is not known; read in place, as `priority`: the storage check adds this up over
    /// every active download each time one starts.
    func bytesStillNeeded(_ id: String) -> Int64? {
        guard let position = positions[id], let (total, downloaded) = inPlace(position, { ($0.totalBytes, $0.downloadedBytes) }), let total else { return nil }
        return max(0, total.subtractingSaturating(downloaded))
    }

    private mutating func put(_ id: String, _ entry: consuming DownloadEntry) {
        if let position = positions[id] {
            index.update(position, entry.download)
            slots[position] = entry
        } else if let position = index.append(seq: entry.seq, entry.download) {
            positions[id] = position
            slots.append(entry)
        } else {
            rebuild(adding: entry)
        }
    }

    /// Takes an entry out to change it, so the table does not share its arrays with the copy
    /// being changed; the caller puts it back (`self[id] = entry`) before anything else looks
    /// it up. The cache keeps the last record meanwhile, and the index its place and counts.
    mutating func take(_ id: String) -> DownloadEntry? {
        guard let position = positions[id], let entry = slots[position] else { return nil }
        slots[position] = nil
        return entry
    }

    /// Closes up the positions of removed downloads.
    private mutating func compact() {
        let kept = index.compact()
        var moved = [Int](repeating: 0, count: slots.count)
        for (new, old) in kept.enumerated() { moved[old] = new }
        // Through the ids' positions rather than the slots: a taken entry is not in its slot.
        positions = positions.mapValues { moved[$0] }
        slots = kept.map { slots[$0] }
    }

    /// An entry whose seq is below the last one's (the engine gives rising ones; a test may
    /// not): the order is made again with it in its place.
    private mutating func rebuild(adding entry: DownloadEntry) {
        let all = (slots.compactMap { $0 } + [entry]).enumerated().sorted {
            ($0.element.seq, $0.offset) < ($1.element.seq, $1.offset)
        }.map(\.element)
        slots = []
        positions = [:]
        index = ListIndex()
        for entry in all { put(entry.download.id, entry) }
    }

    /// Room for `count` downloads at once, so loading a large registry does not rehash.
    mutating func reserveCapacity(_ count: Int) {
        positions.reserveCapacity(count)
        slots.reserveCapacity(count)
        index.reserveCapacity(count)
        cache.reserveCapacity(count)
    }

    var count: Int { positions.count }
    /// In list order.
    var values: some Sequence<DownloadEntry> { slots.lazy.compactMap { $0 } }
    /// Ids in list order.
    var ids: [String] { slots.compactMap { $0?.download.id } }

    /// Up to `limit` entries after the one with seq `after`, in list order, in a state of
    /// `mask` and in `group` or a group under it (`ListIndex.page`); `more` when another follows.
    mutating func page(mask: UInt16, group: String, after seq: Int, limit: Int) -> (entries: [DownloadEntry], more: Bool) {
        let (found, more) = index.page(mask: mask, group: group, from: index.firstPosition(after: seq), limit: limit)
        return (found.compactMap { slots[$0] }, more)
    }

    /// The count and totals of the downloads a filter matches, over all pages.
    mutating func totals(mask: UInt16, group: String) -> ListIndex.Totals {
        index.totals(mask: mask, group: group)
    }
}
