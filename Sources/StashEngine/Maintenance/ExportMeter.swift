import StashCore

/// Counts the bytes an export to one file has read of all it will read, and announces each
/// whole percent (and the start and the end) through `announce`.
final class ExportMeter {
    private let id: String
    private let file: String
    private(set) var total: Int64 = 0
    private(set) var done: Int64 = 0
    private var announced = -1
    private let announce: (ExportProgress) -> Void

    init(id: String, file: String, announce: @escaping (ExportProgress) -> Void) {
        self.id = id
        self.file = file
        self.announce = announce
    }

    /// Sets what will be read, and announces 0 %.
    func start(total: Int64) {
        self.total = max(0, total)
        report()
    }

    func add(_ bytes: Int) {
        done = min(total, done.addingReportingOverflow(Int64(bytes)).overflow ? total : done + Int64(bytes))
        report()
    }

    /// Everything is read: announces 100 %.
    func finish() {
        done = total
        report()
    }

    private func report() {
        let percent = total > 0 ? min(100, Int(Double(done) / Double(total) * 100)) : (done == total ? 100 : 0)
        guard percent != announced else { return }
        announced = percent
        announce(ExportProgress(id: id, file: file, bytesDone: done, bytesTotal: total, progressPercent: percent))
    }
}
