/// What the downloads of a ListDownloads filter hold together: a group's bytes, files and
/// states (`stash ls --group G` ends with them).
public struct GroupTotals: Equatable, Sendable {
    public var bytesDownloaded: Int64 = 0
    /// Bytes of the downloads whose size is known.
    public var bytesTotal: Int64 = 0
    public var filesDone: Int = 0
    public var filesTotal: Int = 0
    /// Downloads per state, only states with at least one.
    public var states: [DownloadState: Int] = [:]

    public init() {}

    package mutating func add(_ download: Download) {
        bytesDownloaded = bytesDownloaded.addingSaturating(download.downloadedBytes)
        bytesTotal = bytesTotal.addingSaturating(download.totalBytes ?? 0)
        filesDone = Self.saturating(filesDone, download.filesDone)
        filesTotal = Self.saturating(filesTotal, download.filesTotal)
        states[download.state, default: 0] += 1
    }

    private static func saturating(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }
}
