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
        (message.n_states, message.states) = StateCountsWire.wire(states, in: arena)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__GroupTotals>) throws {
        let m = message.pointee
        self.init()
        bytesDownloaded = try WireValue.int64(m.bytes_downloaded, field: "GroupTotals.bytes_downloaded")
        bytesTotal = try WireValue.int64(m.bytes_total, field: "GroupTotals.bytes_total")
        (filesDone, filesTotal) = try WireValue.counts(
            done: m.files_done, total: m.files_total, field: "GroupTotals.files_done", totalField: "files_total")
        states = try StateCountsWire.decode(m.states, count: m.n_states, field: "GroupTotals.states")
    }
}
