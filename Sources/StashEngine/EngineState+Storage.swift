import Foundation
import StashCore

/// Storage holds: a queued download that does not fit on the disk waits outside the queue and
/// is looked at again when the recheck's timer fires.
extension EngineState {
    /// How often downloads held back for lack of space look again.
    static let storageRecheckInterval: TimeInterval = 2

    /// The most a download may need in all (1 PiB): far above any disk a desktop has, and far
    /// below where sums of sizes saturate. A plan, a declared size or a Content-Length above
    /// it is a hostile or broken server's, not a file to wait for.
    static let largestDownload: Int64 = 1 << 50

    /// Why a download cannot start for its size, or nil when it fits: it never can when its
    /// size is above `largestDownload` or the whole disk's; otherwise the bytes it still needs
    /// must fit in the free space above the reserve, minus what the active downloads still
    /// need, or it waits.
    func storageShortfall(_ download: Download, into effects: inout [EngineEffect]) -> StorageShortfall? {
        guard let total = download.totalBytes else { return nil }
        // Only for a refusal: most downloads fit, and ask every time one starts.
        var size: String {
            download.hls != nil ? "its playlists' sizes add up to \(total) bytes"
                : download.isBundle ? "its files' sizes add up to \(total) bytes" : "its size is \(total) bytes"
        }
        if total > Self.largestDownload {
            return .never(DownloadError(.validation, "\(size), beyond the limit of \(Self.largestDownload) bytes (1 PiB) for a download; no disk would ever hold it"))
        }
        let need = total.subtractingSaturating(download.downloadedBytes)
        guard need > 0 else { return nil }
        // Read every time (one statvfs): a figure even a second old misses what just landed.
        let free: Int64
        do {
            free = try disk.freeBytes()
        } catch {
            // Not a reason to hold it back: its transfer meets the same failure and reports it.
            log(.warning, "cannot read the free space for a download", ["id": "\(download.id)", "error": "\(error)"], into: &effects)
            return nil
        }
        var promised: Int64 = 0
        let own = download.id
        for id in queue.active where id != own {
            if let needed = entries.bytesStillNeeded(id) { promised = promised.addingSaturating(needed) }
        }
        let available = free.subtractingSaturating(config.storageReserve).subtractingSaturating(promised)
        guard need > available else { return nil }
        // Only a download that would wait asks how big the disk is: one larger would wait forever.
        if let whole = disk.totalBytes(), whole > 0, total > whole {
            return .never(DownloadError(.validation, "\(size), more than the \(whole) bytes of the whole disk holding the assets folder; it could never fit"))
        }
        return .waits("insufficient storage: needs \(need) more bytes, \(max(0, available)) free above the \(config.storageReserve)-byte reserve"
            + (promised > 0 ? " and the \(promised) bytes active downloads still need" : "")
            + "; starts when space frees")
    }

    /// A download that does not fit: one that never can fails (queued or running); one that
    /// must wait stays in the queue (held), or goes back to it, and is looked at again.
    mutating func holdOrFail(_ id: String, for shortfall: StorageShortfall, into effects: inout [EngineEffect]) {
        switch shortfall {
        case .never(let error):
            log(.notice, "download can never fit", ["id": "\(id)", "error": "\(error.message)"], into: &effects)
            _ = try? transition(id, .transferFailed, into: &effects) { record in
                record.error = error
                record.stateReason = ""
            }
        case .waits(let reason):
            if entries[id]?.lifecycle.state == .queued {
                holdForStorage(id, reason: reason, into: &effects)
            } else {
                _ = try? transition(id, .requeue, into: &effects) { $0.stateReason = reason }
            }
        }
    }

    /// Keeps a download in the queue for lack of space, and arms the recheck.
    private mutating func holdForStorage(_ id: String, reason: String, into effects: inout [EngineEffect]) {
        guard var entry = entries[id] else { return }
        if entry.download.stateReason != reason {
            entry.download.stateReason = reason
            entries[id] = entry
            effects.append(.commit(.save(entry.download), then: nil))
        }
        if let key = queueKey(id) { queue.hold(id, key: key) }
        guard !storageRecheckArmed else { return }
        storageRecheckArmed = true
        effects.append(.arm(after: Self.storageRecheckInterval, .storageRecheckDue))
    }

    /// Held downloads go back to the front of the queue (they are the oldest) and the
    /// scheduler looks at them again with a fresh free-space figure.
    mutating func recheckStorage(into effects: inout [EngineEffect]) {
        storageRecheckArmed = false
        guard queue.hasHeld, !shuttingDown else { return }
        queue.releaseHeld()
        schedule(into: &effects)
    }
}
