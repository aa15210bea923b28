import CStashProto
import StashCore

extension GroupTotals {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__GroupTotals> {
        var message = Stash__V1__GroupTotals()
        stash__v1__group_totals__init(&message)
        message.bytes_downloaded = UInt64(clamping: bytesDownloaded)
        message.bytes_total = UInt64(clamping: bytesTotal)
        message.files_done = UInt32(clamping: filesDone)
        message.files_total = UInt32(clamping: filesTotal)
        // In state order, so the same totals always make the same bytes.
        let states = self.states.sorted { $0.key.rawValue < $1.key.rawValue }
        message.n_states = states.count
        message.states = arena.array(states) { state, count -> UnsafeMutablePointer<Stash__V1__StateCount>? in
            var entry = Stash__V1__StateCount()
            stash__v1__state_count__init(&entry)
            entry.state = state.wire
            entry.count = UInt32(clamping: count)
            return arena.store(entry)
        }
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__GroupTotals>) throws {
        let m = message.pointee
        self.init()
        bytesDownloaded = try WireValue.int64(m.bytes_downloaded, field: "GroupTotals.bytes_downloaded")
        bytesTotal = try WireValue.int64(m.bytes_total, field: "GroupTotals.bytes_total")
        filesDone = Int(m.files_done)
        filesTotal = Int(m.files_total)
        for entry in UnsafeBufferPointer(start: m.states, count: m.n_states) {
            let entry = try WireValue.message(entry, field: "GroupTotals.states")
            let state = try DownloadState(wire: entry.pointee.state, field: "StateCount.state")
            // A state listed twice means the sum; a UInt32 per entry cannot overflow an Int.
            states[state, default: 0] += Int(entry.pointee.count)
        }
    }
}
