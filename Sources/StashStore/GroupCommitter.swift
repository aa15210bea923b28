import Dispatch
import Foundation
import GRDB

/// Groups the writes of concurrent callers into one transaction. With synchronous=FULL every
/// commit costs an fsync; while one commit is on disk the next callers queue up and share the
/// following one, so the fsync rate stays bounded however many state changes arrive.
final class GroupCommitter: @unchecked Sendable {
    private typealias Waiter = (write: RegistryWrite, continuation: CheckedContinuation<Void, Error>)

    private let pool: DatabasePool
    private let apply: @Sendable (Database, RegistryWrite) throws -> Void
    // Commits run on their own thread: a blocking fsync must not hold a Swift concurrency
    // thread, of which there are as few as cores.
    private let queue = DispatchQueue(label: "stash.registry.commit")
    private let lock = NSLock()
    private var pending: [Waiter] = []
    private var draining = false

    init(pool: DatabasePool, apply: @escaping @Sendable (Database, RegistryWrite) throws -> Void) {
        self.pool = pool
        self.apply = apply
    }

    /// Returns once a transaction holding `write` has committed, or throws its error.
    func submit(_ write: RegistryWrite) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let startDrain = lock.withLock { () -> Bool in
                pending.append((write, continuation))
                if draining { return false }
                draining = true
                return true
            }
            if startDrain { queue.async { self.drain() } }
        }
    }

    private func drain() {
        while let batch = takeBatch() {
            commit(batch)
        }
    }

    private func takeBatch() -> [Waiter]? {
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

    private func commit(_ batch: [Waiter]) {
        do {
            try pool.write { db in
                for waiter in batch { try apply(db, waiter.write) }
            }
            for waiter in batch { waiter.continuation.resume() }
        } catch {
            guard batch.count > 1 else {
                batch[0].continuation.resume(throwing: error)
                return
            }
            // One bad write must not fail its neighbours: retry each alone so only the
            // writes that fail by themselves report an error.
            for waiter in batch { commit([waiter]) }
        }
    }
}
