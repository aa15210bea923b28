import CStashProto
import StashCore

extension ProgressUpdate {
    func wire(in arena: PackArena) -> UnsafeMutablePointer<Stash__V1__Progress> {
        var message = Stash__V1__Progress()
        stash__v1__progress__init(&message)
        message.id = arena.cString(id)
        message.downloaded_bytes = UInt64(clamping: downloadedBytes)
        message.total_bytes = totalBytes ?? -1
        message.progress = UInt32(clamping: progressPercent)
        message.speed = UInt64(clamping: speed)
        message.remaining_time = remainingTime ?? -1
        message.files_done = UInt32(clamping: filesDone)
        message.files_total = UInt32(clamping: filesTotal)
        return arena.store(message)
    }

    init(wire message: UnsafePointer<Stash__V1__Progress>) throws {
        let m = message.pointee
        let files = try WireValue.counts(done: m.files_done, total: m.files_total, field: "Progress.files_done", totalField: "files_total")
        self.init(
            id: try WireValue.string(m.id, field: "Progress.id"),
            downloadedBytes: try WireValue.int64(m.downloaded_bytes, field: "Progress.downloaded_bytes"),
            totalBytes: try WireValue.optional(m.total_bytes, field: "Progress.total_bytes"),
            progressPercent: try WireValue.percent(m.progress, field: "Progress.progress"),
            speed: try WireValue.int64(m.speed, field: "Progress.speed"),
            remainingTime: try WireValue.optional(m.remaining_time, field: "Progress.remaining_time"),
            filesDone: files.done,
            filesTotal: files.total)
    }
}
