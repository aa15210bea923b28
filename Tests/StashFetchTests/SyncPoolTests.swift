import Dispatch
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

    /// Its jobs run on disk threads, as SCHED_BATCH (`DiskThreadPolicy`).
    func testJobsRunAsBatch() {
        let pool = SyncPool(label: "test.sync", threads: 1)
        let policy = Mutex<Int32>(-1)
        let ran = DispatchSemaphore(value: 0)
        pool.run {
            policy.withLock { $0 = sched_getscheduler(0) }
            ran.signal()
        }
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(policy.withLock { $0 }, 3, "SCHED_BATCH")
    }
}
