import CLinux
import Foundation
import StashCore
import Synchronization

/// Starts writeback of a large file's dirty pages while the download goes on, so the fsync that
/// makes the finished file durable has only the last few megabytes left to flush (for a 1 GiB
/// file on the development VM: 0.3 s of waiting at the end, down to a few tens of ms).
///
/// The flush runs `sync_file_range` on a duplicate of the descriptor on a background queue,
/// never on the fetch thread. A duplicate shares the open file description, so a write error
/// it sees would not be seen again by the final fsync: it is kept here and reported by
/// `check()`.
final class WriteBehind: Sendable {
    /// Bytes written between two flushes.
    static let interval: Int64 = 64 << 20
    private static let queue = DispatchQueue(label: "stash.fetch.write-behind", qos: .utility)

    private let path: String

    private struct State {
        var inFlight = false
        var failure: SystemCallError?
        /// Bytes written since the last flush started.
        var pending: Int64 = 0
    }

    /// Uncontended but for the moment a flush ends: one writing thread, one flush at a time.
    private let state = Mutex(State())

    init(path: String) {
        self.path = path
    }

    /// Counts written bytes and starts a flush every `interval` bytes, unless one still runs.
    func wrote(_ count: Int, descriptor: Int32) {
        let start = state.withLock { state in
            state.pending += Int64(count)
            guard state.pending >= Self.interval, !state.inFlight else { return false }
            state.inFlight = true
            state.pending = 0
            return true
        }
        guard start else { return }
        let copy = dup(descriptor)
        guard copy >= 0 else {
            state.withLock { $0.inFlight = false }
            return
        }
        let path = self.path
        Self.queue.async { [self] in
            // A disk thread (`DiskThreadPolicy`): the wait wakes again and again as the pages
            // land, and none of those wake-ups may preempt the fetch thread writing the file.
            DiskThreadPolicy.adopt()
            var error: SystemCallError?
            do {
                // Writes back and waits for the file's dirty pages, but unlike fdatasync asks
                // for no journal commit and no device cache flush: those the final fsync does
                // once for the whole file.
                let flags = UInt32(SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER)
                try SystemCallError.check("sync_file_range", path) { sync_file_range(copy, 0, 0, flags) }
            } catch let failed as SystemCallError {
                error = failed
            } catch {}
            SystemCallError.close(copy)
            state.withLock { state in
                if state.failure == nil { state.failure = error }
                state.inFlight = false
            }
        }
    }

    /// Waits for a flush in flight and throws the first error a flush met, errno and all, so
    /// a full disk found by a flush ends the transfer like one found by a write.
    func check() throws {
        while state.withLock({ $0.inFlight }) {
            Self.queue.sync {}
        }
        if let failure = state.withLock({ $0.failure }) {
            throw failure
        }
    }
}
