import Dispatch
import Foundation
import Synchronization

/// Runs `work` on its own thread over batches of items: the items submitted while one batch
/// runs form the next, so a costly step (a commit, a sync) is shared by every caller that
/// arrived meanwhile and its rate stays bounded however many callers there are.
package final class BatchQueue<Item: Sendable>: Sendable {
    // A thread of its own: `work` blocks in the kernel, and must not hold one of the few
    // Swift concurrency threads.
    private let queue: DispatchQueue
    private let work: @Sendable ([Item]) -> Void
    private let pending = Mutex(PendingBatch<Item>())
    /// The least time between the starts of two batches, in nanoseconds (0: none).
    private let spacing: UInt64
    /// When the last batch started (uptime nanoseconds); only `drain` touches it.
    private let lastStart = Mutex<UInt64>(0)

    /// With `spacing`, a batch starts no sooner than that after the one before: items that
    /// come meanwhile join it, so a steady stream of items costs fewer, larger batches.
    package init(label: String, spacing: Duration = .zero, work: @escaping @Sendable ([Item]) -> Void) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
        let (seconds, attoseconds) = spacing.components
        self.spacing = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
        self.work = work
    }

    /// Queues `item`; it is in the next batch `work` gets.
    package func submit(_ item: Item) {
        if pending.withLock({ $0.add(item) }) {
            queue.async {
                // `work` waits for the disk (the registry's commits): see `DiskThreadPolicy`.
                DiskThreadPolicy.adopt()
                self.drain()
            }
        }
    }

    private func drain() {
        while true {
            if spacing > 0 {
                let due = lastStart.withLock { $0 } + spacing
                let now = DispatchTime.now().uptimeNanoseconds
                if now < due { usleep(useconds_t((due - now) / 1_000)) }
            }
            let batch = pending.withLock { $0.take() }
            if batch.isEmpty { return }
            if spacing > 0 { lastStart.withLock { $0 = DispatchTime.now().uptimeNanoseconds } }
            work(batch)
        }
    }
}
