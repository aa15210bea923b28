import Dispatch
import StashCore
import Synchronization

/// A few threads that run blocking syncs (`fdatasync`, `fsync`) in arrival order, each thread
/// taking the next job as soon as it is free: a large file's long sync holds one thread while
/// the small files behind it go on through the others, and up to `threads` syncs are before
/// the disk at once, which a virtual disk serves in parallel (`FileSyncer.threads` says how
/// many and why).
final class SyncPool: Sendable {
    typealias Job = @Sendable () -> Void

    private struct State {
        var jobs: [Job] = []
        /// Index of the oldest job not yet taken: taking one is O(1), and the array is
        /// compacted once most of it has been taken.
        var head = 0
        /// Lanes not draining the jobs; each is woken for one job and keeps taking until none is left.
        var idle: [Int]

        mutating func take() -> Job? {
            guard head < jobs.count else {
                jobs.removeAll(keepingCapacity: true)
                head = 0
                return nil
            }
            let job = jobs[head]
            head += 1
            if head >= 64, head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    // Serial queues rather than threads of our own: they take a thread only while they have
    // jobs, so a pool of an idle `FetchWorkers` (tests make hundreds) holds no thread.
    // Dispatch gives each a thread of its own however many block in the kernel.
    private let lanes: [DispatchQueue]
    private let state: Mutex<State>

    init(label: String, threads: Int) {
        lanes = (0..<max(1, threads)).map { DispatchQueue(label: "\(label).\($0)", qos: .userInitiated) }
        state = Mutex(State(idle: Array(lanes.indices.reversed())))
    }

    /// Runs `job` on the first free thread, after the jobs submitted before it have started.
    func run(_ job: @escaping Job) {
        let lane: Int? = state.withLock { state in
            state.jobs.append(job)
            return state.idle.popLast()
        }
        if let lane { lanes[lane].async { self.drain(lane) } }
    }

    /// Takes jobs until none is left, on a disk thread (`DiskThreadPolicy`): each job sleeps
    /// on the disk several times, and neither its wake-ups nor the one that starts the lane
    /// preempt the fetch thread and the engine.
    private func drain(_ lane: Int) {
        DiskThreadPolicy.adopt()
        while let job = state.withLock({ state -> Job? in
            if let job = state.take() { return job }
            state.idle.append(lane)
            return nil
        }) {
            job()
        }
    }
}
