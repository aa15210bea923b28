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

    public func systemInfo() -> SystemInfo {
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

    /// The most a download may need in all (1 PiB): far above any disk a desktop has, and far
    /// below where sums of sizes saturate. A plan, a declared size or a Content-Length above
    /// it is a hostile or broken server's, not a file to wait for.
    static let largestDownload: Int64 = 1 << 50

    /// Why a download cannot start for its size, or nil when it fits: it never can when its
    /// size is above `largestDownload` or the whole disk's; otherwise the bytes it still needs
    /// must fit in the free space above the reserve, minus what the active downloads still
    /// need, or it waits.
    func storageShortfall(_ download: Download) -> StorageShortfall? {
        guard let total = download.totalBytes else { return nil }
        // Read every time (one statvfs): a figure even a second old misses what just landed.
        let disk: (total: Int64, free: Int64)?
        do {
            disk = try DiskSpace.of(path: layout.assetsDir)
        } catch {
            // Not a reason to hold it back: its transfer meets the same failure and reports it.
            logger.warning("cannot read the free space for a download", metadata: ["id": "\(download.id)", "error": "\(error)"])
            disk = nil
        }
        let size = download.hls != nil ? "its playlists' sizes add up to \(total) bytes"
            : download.isBundle ? "its files' sizes add up to \(total) bytes" : "its size is \(total) bytes"
        if total > Self.largestDownload {
            return .never(DownloadError(.validation, "\(size), beyond the limit of \(Self.largestDownload) bytes (1 PiB) for a download; no disk would ever hold it"))
        }
        if let disk, disk.total > 0, total > disk.total {
            return .never(DownloadError(.validation, "\(size), more than the \(disk.total) bytes of the whole disk holding \(layout.assetsDir); it could never fit"))
        }
        let need = total.subtractingSaturating(download.downloadedBytes)
        guard need > 0, let free = disk?.free else { return nil }
        var promised: Int64 = 0
        for id in queue.active where id != download.id {
            if let other = entries[id]?.download, let otherTotal = other.totalBytes {
                promised = promised.addingSaturating(max(0, otherTotal.subtractingSaturating(other.downloadedBytes)))
            }
        }
        let available = free.subtractingSaturating(config.storageReserve).subtractingSaturating(promised)
        guard need > available else { return nil }
        return .waits("insufficient storage: needs \(need) more bytes, \(max(0, available)) free above the \(config.storageReserve)-byte reserve"
            + (promised > 0 ? " and the \(promised) bytes active downloads still need" : "")
            + "; starts when space frees")
    }

    /// A download that does not fit: one that never can fails (queued or running); one that
    /// must wait stays in the queue, or goes back to it, and is looked at again every few
    /// seconds.
    func holdOrFail(_ id: String, for shortfall: StorageShortfall) {
        switch shortfall {
        case .never(let error):
            logger.notice("download can never fit", metadata: ["id": "\(id)", "error": "\(error.message)"])
            _ = try? transition(id, .transferFailed) { record in
                record.error = error
                record.stateReason = ""
            }
        case .waits(let reason):
            if entries[id]?.lifecycle.state == .queued {
                holdForStorage(id, reason: reason)
            } else {
                _ = try? transition(id, .requeue) { $0.stateReason = reason }
            }
        }
    }

    /// Keeps a download in the queue for lack of space and looks again every few seconds.
    private func holdForStorage(_ id: String, reason: String) {
        guard var entry = entries[id] else { return }
        if entry.download.stateReason != reason {
            entry.download.stateReason = reason
            entries[id] = entry
            commits.submit(.save(entry.download), event: nil)
        }
        queue.hold(id)
        guard storageRecheck == nil else { return }
        let clock = self.clock
        storageRecheck = Task { [weak self] in
            await clock.sleep(Self.storageRecheckInterval)
            await self?.recheckStorage()
        }
    }

    /// Held downloads go back to the front of the queue (they are the oldest) and the
    /// scheduler looks at them again with a fresh free-space figure.
    private func recheckStorage() {
        storageRecheck = nil
        guard queue.hasHeld, !shuttingDown else { return }
        queue.releaseHeld()
        schedule()
    }
}
