import CStashProto
import StashCore

extension DownloadStats {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__StatsResult> {
        var message = Stash__V1__StatsResult()
        stash__v1__stats_result__init(&message)
        message.speed = UInt64(clamping: speed)
        // In state order, so the same stats always make the same bytes.
        let counts = self.counts.sorted { $0.key.rawValue < $1.key.rawValue }
        message.n_counts = counts.count
        message.counts = arena.array(counts) { state, count -> UnsafeMutablePointer<Stash__V1__StateCount>? in
            var entry = Stash__V1__StateCount()
            stash__v1__state_count__init(&entry)
            entry.state = state.wire
            entry.count = UInt32(clamping: count)
            return arena.store(entry)
        }
        message.active_transfers = UInt32(clamping: activeTransfers)
        message.downloaded_bytes = UInt64(clamping: downloadedBytes)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__StatsResult>) throws {
        let m = message.pointee
        var counts: [DownloadState: Int] = [:]
        for entry in UnsafeBufferPointer(start: m.counts, count: m.n_counts) {
            let entry = try WireValue.message(entry, field: "StatsResult.counts")
            let state = try DownloadState(wire: entry.pointee.state, field: "StateCount.state")
            // A peer that lists a state twice means the sum, not whichever came last.
            counts[state, default: 0] += Int(entry.pointee.count)
        }
        self.init(
            speed: try WireValue.int64(m.speed, field: "StatsResult.speed"),
            counts: counts,
            activeTransfers: Int(m.active_transfers),
            downloadedBytes: try WireValue.int64(m.downloaded_bytes, field: "StatsResult.downloaded_bytes"))
    }
}
