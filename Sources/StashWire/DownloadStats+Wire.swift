import CStashProto
import StashCore

extension DownloadStats {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__StatsResult> {
        var message = Stash__V1__StatsResult()
        stash__v1__stats_result__init(&message)
        message.speed = UInt64(clamping: speed)
        (message.n_counts, message.counts) = StateCountsWire.wire(counts, in: arena)
        message.active_transfers = UInt32(clamping: activeTransfers)
        message.downloaded_bytes = UInt64(clamping: downloadedBytes)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__StatsResult>) throws {
        let m = message.pointee
        let counts = try StateCountsWire.decode(m.counts, count: m.n_counts, field: "StatsResult.counts")
        self.init(
            speed: try WireValue.int64(m.speed, field: "StatsResult.speed"),
            counts: counts,
            activeTransfers: Int(m.active_transfers),
            downloadedBytes: try WireValue.int64(m.downloaded_bytes, field: "StatsResult.downloaded_bytes"))
    }
}
