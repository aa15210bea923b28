import CLinux
import StashCore

#if canImport(Glibc)
import Glibc
#endif

/// The file syncs (a finished file's `fdatasync`, its folders' `fsync`s) run with their
/// thread's scheduling policy SCHED_BATCH, put back when they end.
///
/// An `fsync` on this machine's disk sleeps several times (the data, the inode, the folder's
/// blocks, the flush), and each time the disk answers, the sleeping thread is woken. Under
/// SCHED_OTHER that wake-up preempts the thread running on the CPU (the fetch thread, the
/// engine): two context switches and a colder cache, for a thread that only goes on to its
/// next call. A SCHED_BATCH thread (sched(7)) keeps its share of the CPU but does not preempt
/// on waking; it runs once the running thread sleeps or its slice ends. 2,000 downloads of 64
/// KiB over HTTPS, stashd's CPU a download in alternating rounds: -55 µs (14 pairs) and -64 µs
/// (8 pairs), about -8 %; 1.3-1.6 context switches fewer a download, the fetch thread and the
/// engine preempted about 0.6 times a download instead of 1.6 (bench/HISTORY.md).
///
/// Best effort: where the policy cannot be changed (a seccomp filter), the syncs run as they are.
enum DiskWaitPolicy {
    /// Runs `body` as SCHED_BATCH when the thread is SCHED_OTHER, then makes it SCHED_OTHER
    /// again: the thread is Dispatch's, shared with other queues.
    static func run<T>(_ body: () throws -> T) rethrows -> T {
        guard sched_getscheduler(0) == SCHED_OTHER, set(SCHED_BATCH) else { return try body() }
        defer { _ = set(SCHED_OTHER) }
        return try body()
    }

    private static func set(_ policy: Int32) -> Bool {
        var parameters = sched_param(sched_priority: 0)
        return (try? SystemCallError.check("sched_setscheduler", "this thread") { sched_setscheduler(0, policy, &parameters) }) != nil
    }
}
