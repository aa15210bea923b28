import Foundation
import StashCore
import Synchronization
import XCTest

final class BatchQueueTests: XCTestCase {
    /// Items that arrive while a batch runs wait for it, then all go in the next batch.
    func testItemsSubmittedDuringABatchShareTheNextOne() {
        let firstRunning = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let batches = Mutex<[[Int]]>([])
        let allDone = expectation(description: "every item processed")
        let queue = BatchQueue<Int>(label: "test.batches") { batch in
            if batch == [0] {
                firstRunning.signal()
                release.wait()
            }
            let total = batches.withLock { batches -> Int in
                batches.append(batch)
                return batches.joined().count
            }
            if total == 11 { allDone.fulfill() }
        }
        queue.submit(0)
        firstRunning.wait()
        for item in 1...10 { queue.submit(item) }
        release.signal()
        wait(for: [allDone], timeout: 10)
        XCTAssertEqual(batches.withLock { $0 }, [[0], Array(1...10)])
    }

    func testAQuietQueueStartsAgainOnTheNextItem() {
        let seen = Mutex<[Int]>([])
        let first = expectation(description: "first")
        let second = expectation(description: "second")
        let queue = BatchQueue<Int>(label: "test.batches") { batch in
            seen.withLock { $0 += batch }
            if batch.contains(1) { first.fulfill() }
            if batch.contains(2) { second.fulfill() }
        }
        queue.submit(1)
        wait(for: [first], timeout: 10)
        queue.submit(2)
        wait(for: [second], timeout: 10)
        XCTAssertEqual(seen.withLock { $0 }, [1, 2])
    }
}
