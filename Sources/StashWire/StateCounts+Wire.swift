import CStashProto
import StashCore

/// Downloads per state on the wire (`repeated StateCount`), shared by StatsResult and GroupTotals.
enum StateCountsWire {
    /// In state order, so the same counts always make the same bytes.
    static func wire(_ counts: [DownloadState: Int], in arena: PackArena) -> (count: Int, entries: UnsafeMutablePointer<UnsafeMutablePointer<Stash__V1__StateCount>?>?) {
        let sorted = counts.sorted { $0.key.rawValue < $1.key.rawValue }
        let entries = arena.array(sorted) { state, count -> UnsafeMutablePointer<Stash__V1__StateCount>? in
            var entry = Stash__V1__StateCount()
            stash__v1__state_count__init(&entry)
            entry.state = state.wire
            entry.count = UInt32(clamping: count)
            return arena.store(entry)
        }
        return (sorted.count, entries)
    }

    static func decode(_ entries: UnsafeMutablePointer<UnsafeMutablePointer<Stash__V1__StateCount>?>?, count: Int, field: StaticString) throws -> [DownloadState: Int] {
        var counts: [DownloadState: Int] = [:]
        for entry in UnsafeBufferPointer(start: entries, count: count) {
            let entry = try WireValue.message(entry, field: field)
            let state = try DownloadState(wire: entry.pointee.state, field: "StateCount.state")
            // A peer that lists a state twice means the sum, not whichever came last; a UInt32
            // per entry cannot overflow an Int.
            counts[state, default: 0] += Int(entry.pointee.count)
        }
        return counts
    }
}
