import StashCore

/// The list order of the downloads and what ListDownloads counts of them, kept up to date as
/// each download changes, so that a page costs what its own records cost instead of a pass
/// over every download (100,000 records took 130–150 ms a page that way, and a full listing
/// grew with the square of the registry).
///
/// Each download has a position in list order (ascending `DownloadEntry.seq`), given as it
/// enters; a removed one leaves its position empty until most are (`compact`). Per position
/// it keeps what the download counts for (`Row`); per state a bitset of positions, so a state
/// filter skips 64 downloads a word; per group the positions of its downloads and its totals
/// (`GroupDirectory`); and the totals of every state, each adjusted by a change's delta
/// (`StateTally`). A page token is a seq, found by binary search.
struct ListIndex {
    /// What one download counts for in lists and totals.
    struct Row: Equatable {
        var seq: Int
        /// nil once the download is removed.
        var state: DownloadState?
        var group: Int32
        var bytes: Int64
        var totalBytes: Int64
        var filesDone: Int
        var filesTotal: Int

        init(seq: Int, _ download: Download, group: Int32) {
            self.seq = seq
            state = download.state
            self.group = group
            bytes = download.downloadedBytes
            totalBytes = download.totalBytes ?? 0
            filesDone = download.filesDone
            filesTotal = download.filesTotal
        }
    }

    /// What a filter matches over all pages.
    struct Totals {
        var count: Int
        var totals: GroupTotals
    }

    private(set) var rows: [Row] = []
    /// Per state (by raw value), a bit per position.
    private var bits = [[UInt64]](repeating: [], count: DownloadState.allCases.count)
    private var groups = GroupDirectory()
    private var tally = StateTally()
    private(set) var liveCount = 0

    /// A bit per state's raw value: the states of a filter, every state when it names none.
    static func mask(_ states: some Sequence<DownloadState>) -> UInt16 {
        let mask = states.reduce(UInt16(0)) { $0 | 1 << $1.rawValue }
        return mask == 0 ? (1 << DownloadState.allCases.count) - 1 : mask
    }

    mutating func reserveCapacity(_ count: Int) {
        rows.reserveCapacity(count)
    }

    /// Enters a download at the end of the order and returns its position; nil, with nothing
    /// changed, when `seq` is below the last one's, which only a rebuild in order can take.
    mutating func append(seq: Int, _ download: Download) -> Int? {
        if let last = rows.last, seq < last.seq { return nil }
        let row = Row(seq: seq, download, group: groups.number(for: download.group))
        let position = rows.count
        rows.append(row)
        setBit(position, row.state)
        groups.enter(row, at: position)
        tally.add(row)
        liveCount += 1
        return position
    }

    /// The download at `position` changed.
    mutating func update(_ position: Int, _ download: Download) {
        let old = rows[position]
        guard old.state != nil else { return }
        if download.group != groups.name(of: old.group) {
            // A group is given at the add and never changes; should it, the move is a leave and an enter.
            remove(position)
            revive(position, download)
            return
        }
        let new = Row(seq: old.seq, download, group: old.group)
        guard new != old else { return }
        if new.state != old.state {
            clearBit(position, old.state)
            setBit(position, new.state)
        }
        groups.change(from: old, to: new)
        tally.subtract(old)
        tally.add(new)
        rows[position] = new
    }

    /// Puts a download back at its own position after a group move (kept in that group's list
    /// order by a rebuild of the lists, which a move, never made by the engine, can afford).
    private mutating func revive(_ position: Int, _ download: Download) {
        let row = Row(seq: rows[position].seq, download, group: groups.number(for: download.group))
        rows[position] = row
        setBit(position, row.state)
        tally.add(row)
        liveCount += 1
        groups.enter(row, at: position)
        groups.renumberMembers(rows.map { $0.state == nil ? 0 : $0.group })
    }

    mutating func remove(_ position: Int) {
        let row = rows[position]
        guard row.state != nil else { return }
        clearBit(position, row.state)
        tally.subtract(row)
        rows[position].state = nil
        liveCount -= 1
        if groups.leave(row) {
            // A copy of the rows for the closure, released before they change again.
            let rows = self.rows
            groups.closeUp(row.group) { rows[Int($0)].state != nil }
        }
    }

    /// Whether removed positions are most of the order: then `compact` closes them up.
    var needsCompaction: Bool {
        let removed = rows.count - liveCount
        return removed > 1024 && removed > liveCount
    }

    /// Closes up the positions of removed downloads; returns, for each new position, the old one.
    mutating func compact() -> [Int] {
        let kept = rows.indices.filter { rows[$0].state != nil }
        rows = kept.map { rows[$0] }
        bits = [[UInt64]](repeating: [], count: DownloadState.allCases.count)
        for (position, row) in rows.enumerated() { setBit(position, row.state) }
        groups.renumberMembers(rows.map(\.group))
        return kept
    }

    /// The first position after the download with `seq` (a page token) in list order.
    func firstPosition(after seq: Int) -> Int {
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if rows[middle].seq <= seq { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Up to `limit` positions from `start` on, in order, of downloads in a state of `mask`
    /// and in `group` or a group under it (every download when empty); `more` when another
    /// one follows them.
    mutating func page(mask: UInt16, group: String, from start: Int, limit: Int) -> (positions: [Int], more: Bool) {
        if group.isEmpty { return page(mask: mask, from: start, limit: limit) }
        return page(mask: mask, groups: groups.matching(group), from: start, limit: limit)
    }

    /// The count and totals of the downloads a filter matches, over all pages.
    mutating func totals(mask: UInt16, group: String) -> Totals {
        var sum = StateTally.Totals()
        var states: [DownloadState: Int] = [:]
        if group.isEmpty {
            tally.sum(mask, into: &sum, states: &states)
        } else {
            for number in groups.matching(group) {
                groups.groups[Int(number)].tally.sum(mask, into: &sum, states: &states)
            }
        }
        var totals = GroupTotals()
        totals.bytesDownloaded = sum.bytes.clamped
        totals.bytesTotal = sum.totalBytes.clamped
        totals.filesDone = Int(sum.filesDone.clamped)
        totals.filesTotal = Int(sum.filesTotal.clamped)
        totals.states = states
        return Totals(count: sum.count, totals: totals)
    }

    /// Without a group: the state bitsets, a word at a time.
    private func page(mask: UInt16, from start: Int, limit: Int) -> (positions: [Int], more: Bool) {
        let states = DownloadState.allCases.map(\.rawValue).filter { mask & (1 << $0) != 0 }
        var positions: [Int] = []
        positions.reserveCapacity(min(limit, liveCount))
        var word = start >> 6
        let words = (rows.count + 63) >> 6
        while word < words {
            var set: UInt64 = 0
            for state in states where word < bits[state].count { set |= bits[state][word] }
            if word == start >> 6 { set &= ~0 << UInt64(start & 63) }
            while set != 0 {
                if positions.count == limit { return (positions, true) }
                positions.append(word << 6 + set.trailingZeroBitCount)
                set &= set - 1
            }
            word += 1
        }
        return (positions, false)
    }

    /// With groups: their lists of positions merged in order (a heap when there are several).
    private func page(mask: UInt16, groups numbers: [Int32], from start: Int, limit: Int) -> (positions: [Int], more: Bool) {
        var merge = PositionMerge(numbers.map { groups.groups[Int($0)].members }, from: Int32(clamping: start))
        var positions: [Int] = []
        while let next = merge.next() {
            let position = Int(next)
            guard let state = rows[position].state, mask & (1 << state.rawValue) != 0 else { continue }
            if positions.count == limit { return (positions, true) }
            positions.append(position)
        }
        return (positions, false)
    }

    private mutating func setBit(_ position: Int, _ state: DownloadState?) {
        guard let state else { return }
        let word = position >> 6
        while bits[state.rawValue].count <= word { bits[state.rawValue].append(0) }
        bits[state.rawValue][word] |= 1 << UInt64(position & 63)
    }

    private mutating func clearBit(_ position: Int, _ state: DownloadState?) {
        guard let state, position >> 6 < bits[state.rawValue].count else { return }
        bits[state.rawValue][position >> 6] &= ~(1 << UInt64(position & 63))
    }
}
