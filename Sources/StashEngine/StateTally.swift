import StashCore

/// What the downloads of one state hold together (how many, their bytes and files), per state
/// with at least one download: the totals ListDownloads answers with, kept by adding and
/// taking out each download's share as it changes (`ListIndex`).
struct StateTally: Equatable {
    struct Totals: Equatable {
        var count = 0
        var bytes = ExactSum()
        var totalBytes = ExactSum()
        var filesDone = ExactSum()
        var filesTotal = ExactSum()

        mutating func add(_ other: Totals) {
            count += other.count
            bytes.add(other.bytes)
            totalBytes.add(other.totalBytes)
            filesDone.add(other.filesDone)
            filesTotal.add(other.filesTotal)
        }
    }

    /// Sparse, as most groups hold downloads of one or two states.
    private var tallies: [(state: DownloadState, totals: Totals)] = []

    var isEmpty: Bool { tallies.isEmpty }

    mutating func add(_ row: ListIndex.Row) {
        guard let state = row.state else { return }
        change(state) { totals in
            totals.count += 1
            totals.bytes.add(row.bytes)
            totals.totalBytes.add(row.totalBytes)
            totals.filesDone.add(Int64(row.filesDone))
            totals.filesTotal.add(Int64(row.filesTotal))
        }
    }

    mutating func subtract(_ row: ListIndex.Row) {
        guard let state = row.state else { return }
        change(state) { totals in
            totals.count -= 1
            totals.bytes.subtract(row.bytes)
            totals.totalBytes.subtract(row.totalBytes)
            totals.filesDone.subtract(Int64(row.filesDone))
            totals.filesTotal.subtract(Int64(row.filesTotal))
        }
    }

    private mutating func change(_ state: DownloadState, _ body: (inout Totals) -> Void) {
        if let index = tallies.firstIndex(where: { $0.state == state }) {
            body(&tallies[index].totals)
            // A state no download is in any more is not one the answer names.
            if tallies[index].totals.count == 0 { tallies.remove(at: index) }
        } else {
            var totals = Totals()
            body(&totals)
            tallies.append((state, totals))
        }
    }

    /// Adds the totals of the states in `mask` (a bit per state's raw value) to `sum`, and
    /// their counts to `states`.
    func sum(_ mask: UInt16, into sum: inout Totals, states: inout [DownloadState: Int]) {
        for (state, totals) in tallies where mask & (1 << state.rawValue) != 0 {
            sum.add(totals)
            states[state, default: 0] += totals.count
        }
    }

    static func == (lhs: StateTally, rhs: StateTally) -> Bool {
        lhs.tallies.count == rhs.tallies.count
            && lhs.tallies.allSatisfy { entry in rhs.tallies.contains { $0.state == entry.state && $0.totals == entry.totals } }
    }
}
