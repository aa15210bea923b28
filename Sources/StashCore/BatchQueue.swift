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

    package init(label: String, work: @escaping @Sendable ([Item]) -> Void) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
        self.work = work
    }

    /// Queues `item`; it is in the next batch `work` gets.
    package func submit(_ item: Item) {
        if pending.withLock({ $0.add(item) }) { queue.async { self.drain() } }
    }

    private func drain() {
        while true {
            let batch = pending.withLock { $0.take() }
            if batch.isEmpty { return }
            work(batch)
        }
    }
}
