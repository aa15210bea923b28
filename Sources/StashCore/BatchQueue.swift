import Dispatch
import Foundation

/// Runs `work` on its own thread over batches of items: the items submitted while one batch
/// runs form the next, so a costly step (a commit, a sync) is shared by every caller that
/// arrived meanwhile and its rate stays bounded however many callers there are.
public final class BatchQueue<Item>: @unchecked Sendable {
    // A thread of its own: `work` blocks in the kernel, and must not hold one of the few
    // Swift concurrency threads.
    private let queue: DispatchQueue
    private let work: ([Item]) -> Void
    private let lock = NSLock()
    private var pending: [Item] = []
    private var draining = false

    public init(label: String, work: @escaping ([Item]) -> Void) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
        self.work = work
    }

    /// Queues `item`; it is in the next batch `work` gets.
    public func submit(_ item: Item) {
        let startDrain = lock.withLock { () -> Bool in
            pending.append(item)
            if draining { return false }
            draining = true
            return true
        }
        if startDrain { queue.async { self.drain() } }
    }

    private func drain() {
        while let batch = takeBatch() {
            work(batch)
        }
    }

    private func takeBatch() -> [Item]? {
        lock.withLock {
            if pending.isEmpty {
                draining = false
                return nil
            }
            let batch = pending
            pending = []
            return batch
        }
    }
}
