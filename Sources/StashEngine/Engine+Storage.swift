import Foundation
import StashCore

extension Engine {
    /// How long a storage answer (GetSystemInfo, free space for the queue) is reused.
    static let storageTTL: TimeInterval = 2
    /// How often downloads held back for lack of space look again.
    static let storageRecheckInterval: TimeInterval = 2

    /// Disk and bytes held, from the records (not by walking the tree), cached for
    /// `storageTTL` and dropped on any change of state or files. The disk is the one holding
    /// `assets/`, where the bytes go (it may be a mount of its own).
    /// Free space below which GetSystemInfo calls the disk full: less than SQLite needs to
    /// append a transaction to its log.
    static let fullDiskBytes: Int64 = 64 * 1024

    package func systemInfo() -> SystemInfo {
        let now = clock.now().timeIntervalSinceReferenceDate
        if let cached = storageCache, now - cached.time < Self.storageTTL { return cached.info }
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
        var byState: [DownloadState: Int64] = [:]
        var held: Int64 = 0
        var assets = 0
        for entry in entries.values where entry.download.state != .removing {
            held = held.addingSaturating(entry.download.downloadedBytes)
            if entry.download.downloadedBytes > 0 {
                byState[entry.download.state] = (byState[entry.download.state] ?? 0).addingSaturating(entry.download.downloadedBytes)
            }
            assets += 1
        }
        let info = SystemInfo(
            dataDir: layout.dataDir, diskTotal: disk.total, diskFree: disk.free, bytesHeld: held,
            daemonVersion: StashVersion.daemon, socketPath: socketPath, downloadCount: entries.count,
            bytesByState: byState, assetCount: assets, lastVerify: lastVerify,
            warnings: warnings + diskWarnings + diskWatchWarnings)
        storageCache = (now, info)
        return info
    }
}
