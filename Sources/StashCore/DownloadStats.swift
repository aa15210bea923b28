/// The daemon's traffic and queue at one moment (GetStats).
public struct DownloadStats: Equatable, Sendable {
    /// Bytes per second over all downloads.
    public var speed: Int64
    /// Downloads per state; states with none are absent.
    public var counts: [DownloadState: Int]
    public var activeTransfers: Int
    /// Bytes received since the daemon started.
    public var downloadedBytes: Int64

    public init(speed: Int64, counts: [DownloadState: Int], activeTransfers: Int, downloadedBytes: Int64) {
        self.speed = speed
        self.counts = counts
        self.activeTransfers = activeTransfers
        self.downloadedBytes = downloadedBytes
    }
}
