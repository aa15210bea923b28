import Foundation
import StashCore
import Synchronization

/// Storage figures for GetSystemInfo: the disk holding `assets/` (it may be a mount of its
/// own) and the bytes the downloads hold, from the records (not by walking the tree). The
/// answer is kept for `ttl` and dropped on any change of state or files (`.forgetStorageInfo`).
final class StorageService: Sendable {
    /// How long an answer is reused.
    static let ttl: TimeInterval = 2
    /// Free space below which GetSystemInfo calls the disk full: less than SQLite needs to
    /// append a transaction to its log.
    static let fullDiskBytes: Int64 = 64 * 1024

    /// What the records say, from `EngineState.storageFigures`.
    struct Figures {
        var downloadCount: Int
        var bytesHeld: Int64 = 0
        var bytesByState: [DownloadState: Int64] = [:]
        var assetCount = 0
        /// The global rate limit in force and the schedule's next change (`RateTimer`).
        var rateLimitNow: Int64 = 0
        var rateNext: (at: Date, limit: Int64)?
    }

    /// What the answer is made of beside the disk's figures, gathered by the engine.
    struct Inputs {
        var figures: Figures
        var lastVerify: VerifyReport
        /// The engine's warnings before and after the disk's own.
        var warnings: [String]
        var laterWarnings: [String]
    }

    private let layout: AssetLayout
    private let socketPath: String
    private let clock: WallClock
    private let cache = Mutex<(time: TimeInterval, info: SystemInfo)?>(nil)

    init(layout: AssetLayout, socketPath: String, clock: WallClock) {
        self.layout = layout
        self.socketPath = socketPath
        self.clock = clock
    }

    /// The answer kept, or a new one from `inputs` (called only then).
    func systemInfo(_ inputs: () async -> Inputs) async -> SystemInfo {
        let now = clock.now().timeIntervalSinceReferenceDate
        if let cached = cache.withLock({ $0 }), now - cached.time < Self.ttl { return cached.info }
        let given = await inputs()
        var diskWarnings: [String] = []
        let disk: (total: Int64, free: Int64)
        do {
            disk = try DiskSpace.of(path: layout.assetsDir)
            if disk.free < Self.fullDiskBytes {
                diskWarnings.append("the disk holding \(layout.assetsDir) is full (\(disk.free) bytes free): downloads wait and the registry may not be written; cancel or purge downloads to free space")
            }
        } catch {
            disk = (0, 0)
            diskWarnings.append("cannot read the size and free space of the disk holding \(layout.assetsDir): \(error)")
        }
        let figures = given.figures
        let info = SystemInfo(
            dataDir: layout.dataDir, diskTotal: disk.total, diskFree: disk.free, bytesHeld: figures.bytesHeld,
            daemonVersion: StashVersion.daemon, socketPath: socketPath, downloadCount: figures.downloadCount,
            bytesByState: figures.bytesByState, assetCount: figures.assetCount, lastVerify: given.lastVerify,
            warnings: given.warnings + diskWarnings + given.laterWarnings, rateLimitNow: figures.rateLimitNow,
            rateLimitChangesAt: figures.rateNext?.at, rateLimitNext: figures.rateNext?.limit ?? 0)
        cache.withLock { $0 = (now, info) }
        return info
    }

    /// The figures kept are stale: a download changed.
    func forget() {
        cache.withLock { $0 = nil }
    }
}
