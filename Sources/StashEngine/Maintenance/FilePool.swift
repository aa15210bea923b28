import NIOPosix
import StashCore
import Synchronization

/// The threads blocking file work runs on: hashing an adopted file, a deep verify, copying
/// forget's files to another file system, an export. A `NIOThreadPool` of its own, so such
/// work holds neither the engine actor (every request would wait behind a 2 s copy) nor a
/// thread of Swift's cooperative pool (one per core: two such jobs would stall every task).
/// Its threads start on first use and stop with the engine. The engine has a second pool of
/// one thread for deleting removed downloads, so a cancel never waits behind a long hash or copy.
final class FilePool: Sendable {
    static let threads = 2

    private let threads: Int

    private struct State {
        var pool: NIOThreadPool?
        var closed = false
        var jobs = 0
    }

    private let state = Mutex(State())

    init(threads: Int = FilePool.threads) {
        self.threads = threads
    }

    /// Runs `body` on one of the pool's threads and returns what it returns or throws.
    /// Throws UNAVAILABLE once the engine is stopping.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let pool = try state.withLock { state -> NIOThreadPool in
            guard !state.closed else { throw Self.stopping }
            state.jobs += 1
            if let pool = state.pool { return pool }
            let pool = NIOThreadPool(numberOfThreads: threads)
            pool.start()
            state.pool = pool
            return pool
        }
        defer { state.withLock { $0.jobs -= 1 } }
        do {
            return try await pool.runIfActive(body)
        } catch let error as CancellationError {
            // The pool was shut down before the work could start, or the caller's task was
            // cancelled (its answer goes nowhere).
            throw state.withLock { $0.closed } ? Self.stopping : error
        }
    }

    /// Jobs given and not ended, running or waiting for a thread.
    var jobs: Int { state.withLock { $0.jobs } }

    /// Stops the threads once the work under way ends; later work is refused. Work queued
    /// but not started is dropped (its caller gets UNAVAILABLE).
    func close() {
        let pool = state.withLock { state -> NIOThreadPool? in
            state.closed = true
            defer { state.pool = nil }
            return state.pool
        }
        // Not awaited: a stop does not wait for a long hash to end; the process's exit ends it.
        pool?.shutdownGracefully { _ in }
    }

    private static let stopping = StashError(.unavailable, "stashd is stopping; the file work was not done")
}
