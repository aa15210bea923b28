import Foundation
import StashCore
import Synchronization
import XCTest

/// The disk threads' policy: SCHED_BATCH from their first job; what they hand on starts no
/// thread in SCHED_BATCH; other policies left alone.
final class DiskThreadPolicyTests: XCTestCase {
    /// What `body` returns, run on a new thread of its own.
    private func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            result.withLock { $0 = body() }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + 10) == .success else { return nil }
        return result.withLock { $0 }
    }

    func testADiskThreadIsBatchForGood() throws {
        let seen = try XCTUnwrap(onNewThread { () -> [Int32] in
            let before = sched_getscheduler(0)
            DiskThreadPolicy.adopt()
            let after = sched_getscheduler(0)
            DiskThreadPolicy.adopt()
            return [before, after, sched_getscheduler(0)]
        })
        XCTAssertEqual(seen, [SCHED_OTHER, 3, 3])
    }

    /// A disk thread's policy is asked of the kernel once: set back to SCHED_OTHER behind
    /// `adopt`'s back, the thread stays so, because `adopt` remembers it made it SCHED_BATCH.
    func testAThreadIsAskedOnce() throws {
        let seen = try XCTUnwrap(onNewThread { () -> [Int32] in
            DiskThreadPolicy.adopt()
            let adopted = sched_getscheduler(0)
            var parameters = sched_param(sched_priority: 0)
            _ = sched_setscheduler(0, SCHED_OTHER, &parameters)
            DiskThreadPolicy.adopt()
            return [adopted, sched_getscheduler(0)]
        })
        XCTAssertEqual(seen, [3, SCHED_OTHER])
    }

    /// A thread started by a disk thread would inherit SCHED_BATCH (pthread_create's default,
    /// as Dispatch's threads do); one started while handing off is SCHED_OTHER, and the disk
    /// thread is SCHED_BATCH again after.
    func testHandingOffStartsThreadsAsOther() throws {
        let seen = try XCTUnwrap(onNewThread { () -> [Int32] in
            DiskThreadPolicy.adopt()
            func childPolicy() -> Int32 {
                let policy = Mutex<Int32>(-1)
                let done = DispatchSemaphore(value: 0)
                Thread {
                    policy.withLock { $0 = sched_getscheduler(0) }
                    done.signal()
                }.start()
                _ = done.wait(timeout: .now() + 10)
                return policy.withLock { $0 }
            }
            let inherited = childPolicy()
            let handedOff = DiskThreadPolicy.handingOff { childPolicy() }
            return [inherited, handedOff, sched_getscheduler(0)]
        })
        XCTAssertEqual(seen, [3, SCHED_OTHER, 3])
    }

    /// A thread of another policy (an idle-priority caller) is left as it is.
    func testAThreadOfAnotherPolicyIsLeftAlone() throws {
        let seen = try XCTUnwrap(onNewThread { () -> [Int32]? in
            var parameters = sched_param(sched_priority: 0)
            guard sched_setscheduler(0, 5, &parameters) == 0 else { return nil }  // SCHED_IDLE
            DiskThreadPolicy.adopt()
            let adopted = sched_getscheduler(0)
            return [adopted, DiskThreadPolicy.handingOff { sched_getscheduler(0) }]
        })
        guard let policies = seen else { throw XCTSkip("this machine does not let a thread become SCHED_IDLE") }
        XCTAssertEqual(policies, [5, 5])
    }
}
