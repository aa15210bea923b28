import Foundation
import StashCore

/// Storage holds: a queued download that does not fit on the disk waits outside the queue and
/// is looked at again when the recheck's timer fires.
extension EngineState {
    /// How often downloads held back for lack of space look again.
    static let storageRecheckInterval: TimeInterval = 2

    /// Why a queued download cannot start for lack of space, or nil when it fits: the bytes it
    /// still needs must fit in the free space above the reserve, minus what the active
    /// downloads still need.
    func storageShortfall(_ download: Download, into effects: inout [EngineEffect]) -> String? {
        guard let total = download.totalBytes else { return nil }
        let need = total.subtractingSaturating(download.downloadedBytes)
        guard need > 0 else { return nil }
        // Read every time (one statvfs): a figure even a second old misses what just landed.
        let free: Int64
        do {
            free = try disk.freeBytes()
        } catch {
            // Not a reason to hold it back: its transfer meets the same failure and reports it.
            effects.append(.log(.warning, "cannot read the free space for a download", ["id": "\(download.id)", "error": "\(error)"]))
            return nil
        }
        var promised: Int64 = 0
        for id in queue.active where id != download.id {
            if let other = entries[id]?.download, let otherTotal = other.totalBytes {
                promised = promised.addingSaturating(max(0, otherTotal.subtractingSaturating(other.downloadedBytes)))
            }
        }
        let available = free.subtractingSaturating(config.storageReserve).subtractingSaturating(promised)
        guard need > available else { return nil }
        return "insufficient storage: needs \(need) more bytes, \(max(0, available)) free above the \(config.storageReserve)-byte reserve"
            + (promised > 0 ? " and the \(promised) bytes active downloads still need" : "")
            + "; starts when space frees"
    }

    /// Keeps a download in the queue for lack of space, and arms the recheck.
    mutating func holdForStorage(_ id: String, reason: String, into effects: inout [EngineEffect]) {
        guard var entry = entries[id] else { return }
        if entry.download.stateReason != reason {
            entry.download.stateReason = reason
            entries[id] = entry
            effects.append(.commit(.save(entry.download), then: nil))
        }
        queue.hold(id)
        guard !storageRecheckArmed else { return }
        storageRecheckArmed = true
        effects.append(.armStorageRecheck)
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
