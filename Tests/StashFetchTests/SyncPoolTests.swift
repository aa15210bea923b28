import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import StashFetch

/// The sync threads: every job runs, at most `threads` at once, and a job that blocks (a
/// large file's long sync) does not hold the jobs behind it.
final class SyncPoolTests: XCTestCase {
    func testEveryJobRunsAndNoMoreThanTheThreadsAtOnce() {
        let pool = SyncPool(label: "test.sync", threads: 3)
        let state = Mutex((running: 0, most: 0, ran: 0))
        let done = DispatchGroup()
        for _ in 0..<60 {
            done.enter()
            pool.run {
                state.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
                usleep(1_000)
                state.withLock { $0.running -= 1; $0.ran += 1 }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        let final = state.withLock { $0 }
        XCTAssertEqual(final.ran, 60)
        XCTAssertLessThanOrEqual(final.most, 3)
    }

    func testABlockedJobDoesNotHoldTheJobsBehindIt() {
        let pool = SyncPool(label: "test.sync", threads: 2)
        let released = DispatchSemaphore(value: 0)
        let first = expectation(description: "the first job saw the second run")
        pool.run {
            // Waits for a job submitted after it: only another thread can run that one.
            if released.wait(timeout: .now() + 10) == .success { first.fulfill() }
        }
        pool.run { released.signal() }
        wait(for: [first], timeout: 20)
    }

    /// Its jobs run as SCHED_BATCH, and their thread is SCHED_OTHER again once the jobs are
    /// done: Dispatch gives the same threads to other queues.
    func testJobsRunAsBatchAndTheThreadIsGivenBack() throws {
        let pool = SyncPool(label: "test.sync", threads: 1)
        let seen = Mutex<(policy: Int32, thread: pid_t)>((-1, 0))
        let ran = DispatchSemaphore(value: 0)
        pool.run {
            // "<pid>/task/<tid>": the kernel's id of this thread, whose policy is read below.
            let tid = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))
                .flatMap { $0.split(separator: "/").last.flatMap { pid_t($0) } } ?? 0
            seen.withLock { $0 = (sched_getscheduler(0), tid) }
            ran.signal()
        }
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        let (policy, thread) = seen.withLock { $0 }
        XCTAssertEqual(policy, 3, "SCHED_BATCH while a job runs")
        XCTAssertGreaterThan(thread, 0)
        var after = sched_getscheduler(thread)
        for _ in 0..<2000 where after != SCHED_OTHER {
            usleep(1_000)
            after = sched_getscheduler(thread)
        }
        XCTAssertEqual(after, SCHED_OTHER, "the thread is SCHED_OTHER once the lane has drained")
    }

    /// A thread that is not SCHED_OTHER (an idle-priority caller) is left as it is.
    func testAThreadOfAnotherPolicyIsLeftAlone() throws {
        let result = Mutex<(inside: Int32, after: Int32)>((-1, -1))
        let thread = Thread {
            var parameters = sched_param(sched_priority: 0)
            guard sched_setscheduler(0, 5, &parameters) == 0 else { return }  // SCHED_IDLE
            let inside = DiskWaitPolicy.run { sched_getscheduler(0) }
            result.withLock { $0 = (inside, sched_getscheduler(0)) }
        }
        thread.start()
        for _ in 0..<1000 where result.withLock({ $0.after }) == -1 && !thread.isFinished { usleep(1_000) }
        let (inside, after) = result.withLock { $0 }
        try XCTSkipIf(after == -1, "this machine does not let a thread become SCHED_IDLE")
        XCTAssertEqual(inside, 5)
        XCTAssertEqual(after, 5)
    }
}
