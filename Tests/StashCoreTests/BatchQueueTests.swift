import Foundation
import StashCore
import XCTest

final class BatchQueueTests: XCTestCase {
    /// Items that arrive while a batch runs wait for it, then all go in the next batch.
    func testItemsSubmittedDuringABatchShareTheNextOne() {
        let firstRunning = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let lock = NSLock()
        var batches: [[Int]] = []
        let allDone = expectation(description: "every item processed")
        let queue = BatchQueue<Int>(label: "test.batches") { batch in
            if batch == [0] {
                firstRunning.signal()
                release.wait()
            }
            let total = lock.withLock { () -> Int in
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
        XCTAssertEqual(lock.withLock { batches }, [[0], Array(1...10)])
    }

    func testAQuietQueueStartsAgainOnTheNextItem() {
        let lock = NSLock()
        var seen: [Int] = []
        let first = expectation(description: "first")
        let second = expectation(description: "second")
        let queue = BatchQueue<Int>(label: "test.batches") { batch in
            lock.withLock { seen += batch }
            if batch.contains(1) { first.fulfill() }
            if batch.contains(2) { second.fulfill() }
        }
        queue.submit(1)
        wait(for: [first], timeout: 10)
        queue.submit(2)
        wait(for: [second], timeout: 10)
        XCTAssertEqual(lock.withLock { seen }, [1, 2])
    }
}
