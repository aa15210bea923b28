import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// The threads that wait for the disk (the file syncs, the registry's commits, the opening of
/// part files, a large file's write-behind flushes: Dispatch's threads for stash's serial
/// queues of `.userInitiated` and `.utility` quality of service, which nothing else uses) run
/// as SCHED_BATCH for good: each job on them starts with `adopt()`.
///
/// An `fsync` on this machine's disk sleeps several times (the data, the inode, the folder's
/// blocks, the flush), and each time the disk answers, the sleeping thread is woken; so is an
/// idle disk thread when a job is queued for it. Under SCHED_OTHER each of those wake-ups
/// preempts the thread running on the CPU (the fetch thread, the engine), for a thread that
/// only goes on to its next call. A SCHED_BATCH thread (sched(7)) keeps its share of the CPU
/// but does not preempt on waking; it runs once the running thread sleeps or its slice ends.
/// 2,000 downloads of 64 KiB over HTTPS, alternating rounds (bench/HISTORY.md): stashd's CPU a
/// download -77 µs (8 of 8 rounds lower); made SCHED_BATCH only while a sync ran and put back
/// after, nothing (-4 µs): the wake-ups that start a job matter as much.
///
/// A thread started by one in SCHED_BATCH inherits it (pthread_create's default, which
/// Dispatch keeps), so what a disk thread hands to a task or another queue goes through
/// `handingOff`: no thread Dispatch starts for it runs the engine or a request as SCHED_BATCH.
/// A process started under another policy (a unit's `CPUSchedulingPolicy=`) is left as it is,
/// as is a thread of another policy. Best effort: where the policy cannot be changed (a
/// seccomp filter), the threads run as they are.
package enum DiskThreadPolicy {
    /// Makes the calling thread, a disk thread, SCHED_BATCH when it is SCHED_OTHER.
    package static func adopt() {
        guard state == .unknown else { return }
        switch sched_getscheduler(0) {
        case SCHED_OTHER where processPolicy == SCHED_OTHER:
            state = set(SCHED_BATCH) ? .batch : .leftAlone
        case SCHED_BATCH where processPolicy == SCHED_OTHER:
            // Inherited from the disk thread that started it.
            state = .batch
        default:
            state = .leftAlone
        }
    }

    /// Runs `body`, which hands work to a task or another queue, as SCHED_OTHER when the
    /// thread is SCHED_BATCH, then makes the thread SCHED_BATCH again.
    package static func handingOff<T>(_ body: () throws -> T) rethrows -> T {
        let batch: Bool
        switch state {
        case .batch: batch = true
        case .leftAlone: batch = false
        // Not a thread that adopted: asked each time, and not remembered.
        case .unknown: batch = processPolicy == SCHED_OTHER && sched_getscheduler(0) == SCHED_BATCH
        }
        guard batch, set(SCHED_OTHER) else { return try body() }
        defer { _ = set(SCHED_BATCH) }
        return try body()
    }

    /// What the calling thread is: a disk thread's policy changes only here, so it is asked
    /// of the kernel once a thread and remembered (a call a job was 1.8 calls a download).
    private enum ThreadState: Int32 {
        case unknown = 0
        case batch = 1
        /// Another policy, or one that could not be changed.
        case leftAlone = 2
    }

    private static var state: ThreadState {
        get { ThreadState(rawValue: stash_disk_thread_state().pointee) ?? .unknown }
        set { stash_disk_thread_state().pointee = newValue.rawValue }
    }

    /// The policy of the process's first thread, which none of this changes.
    private static let processPolicy = sched_getscheduler(getpid())

    private static func set(_ policy: Int32) -> Bool {
        var parameters = sched_param(sched_priority: 0)
        return (try? SystemCallError.check("sched_setscheduler", "this thread") { sched_setscheduler(0, policy, &parameters) }) != nil
    }
}
