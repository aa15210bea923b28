import Foundation

/// Where the daemon keeps things and how much room is left (GetSystemInfo).
public struct SystemInfo: Equatable, Sendable {
    public var dataDir: String
    public var diskTotal: Int64
    public var diskFree: Int64
    /// Bytes of the files stash keeps, complete and partial.
    public var bytesHeld: Int64
    public var daemonVersion: String
    public var socketPath: String
    public var downloadCount: Int
    /// Bytes held per state, for states holding any.
    public var bytesByState: [DownloadState: Int64]
    /// Asset folders owned by a download.
    public var assetCount: Int
    /// The verify run at start, or the last one a client asked for.
    public var lastVerify: VerifyReport
    /// What keeps the daemon from working fully (a full disk under the registry, …), each
    /// saying what to do; empty when all is well.
    public var warnings: [String]
    /// The global rate limit in force now (bytes/s, 0 = unlimited): the rate schedule's rule
    /// covering this moment, or the `rate-limit` setting.
    public var rateLimitNow: Int64
    /// When the rate schedule next changes the limit (nil: never), and the limit from then on.
    public var rateLimitChangesAt: Date?
    public var rateLimitNext: Int64
    /// What the desktop says over D-Bus (docs/DESKTOP.md): the network is metered, the machine
    /// runs on battery; and what the daemon sees of NetworkManager and UPower, in words.
    public var metered = false
    public var onBattery = false
    public var networkService = ""
    public var powerService = ""
    /// What is seen of logind's sleep lock: "held (delay)", "not held", "no logind on the
    /// system bus", ...
    public var sleepInhibitor = ""
    /// What is seen of the notification service: "sent (last id 3)", "no session bus", ...
    public var notificationService = ""

    public init(
        dataDir: String, diskTotal: Int64, diskFree: Int64, bytesHeld: Int64, daemonVersion: String, socketPath: String, downloadCount: Int,
        bytesByState: [DownloadState: Int64] = [:], assetCount: Int = 0, lastVerify: VerifyReport = VerifyReport(),
        warnings: [String] = [], rateLimitNow: Int64 = 0, rateLimitChangesAt: Date? = nil, rateLimitNext: Int64 = 0
    ) {
        self.dataDir = dataDir
        self.diskTotal = diskTotal
        self.diskFree = diskFree
        self.bytesHeld = bytesHeld
        self.daemonVersion = daemonVersion
        self.socketPath = socketPath
        self.downloadCount = downloadCount
        self.bytesByState = bytesByState
        self.assetCount = assetCount
        self.lastVerify = lastVerify
        self.warnings = warnings
        self.rateLimitNow = rateLimitNow
        self.rateLimitChangesAt = rateLimitChangesAt
        self.rateLimitNext = rateLimitNext
    }
}
