import StashCore
import StashTestSupport
import XCTest

final class PendingBatchTests: XCTestCase {
    func testTheFirstItemWakesAndTheRestJoinItsBatchUntilTheConsumerFindsNothing() {
        var batch = PendingBatch<Int>()
        XCTAssertTrue(batch.add(1), "an idle consumer is woken")
        XCTAssertFalse(batch.add(2), "one wake-up per batch")
        XCTAssertEqual(batch.take(), [1, 2])
        XCTAssertFalse(batch.add(3), "still draining: the consumer takes again before it sleeps")
        XCTAssertEqual(batch.take(), [3])
        XCTAssertEqual(batch.take(), [], "nothing: the consumer goes idle")
        XCTAssertTrue(batch.add(4), "the next item wakes it again")
    }

    func testAConsumerThatFindsNothingLeftEndsItsDrainWithoutAnotherTake() {
        var batch = PendingBatch<Int>()
        XCTAssertTrue(batch.add(1))
        XCTAssertEqual(batch.take(), [1])
        XCTAssertFalse(batch.add(2), "still draining")
        XCTAssertFalse(batch.finishIfEmpty(), "an item waits: the drain goes on")
        XCTAssertEqual(batch.take(), [2])
        XCTAssertTrue(batch.finishIfEmpty(), "nothing waits: the drain ends")
        XCTAssertTrue(batch.add(3), "so the next item wakes a consumer")
    }

    func testALateConsumerClaimsWhatWaits() {
        var batch = PendingBatch<Int>()
        XCTAssertFalse(batch.claim(), "nothing waits")
        _ = batch.add(1)
        XCTAssertFalse(batch.claim(), "already claimed by the add")
        XCTAssertEqual(batch.take(), [1])
        XCTAssertEqual(batch.take(), [])
        XCTAssertEqual(batch.removeAll(), [])
    }

    /// Random adds and takes: every item is taken exactly once, in order, and whenever items
    /// wait someone is draining or has been told to.
    func testNoItemIsLostOrWaitsUnseen() {
        var generator = SeededRandom.seeded()
        var batch = PendingBatch<Int>()
        var taken: [Int] = []
        var next = 0
        var woken = false
        for _ in 0..<100_000 {
            if Bool.random(using: &generator) {
                if batch.add(next) { woken = true }
                next += 1
            } else if woken {
                let items = batch.take()
                taken += items
                // A consumer either takes until it finds nothing or ends once nothing is left.
                if items.isEmpty || (Bool.random(using: &generator) && batch.finishIfEmpty()) { woken = false }
            }
            XCTAssertTrue(batch.isEmpty || woken, "items wait and no consumer knows")
        }
        while woken {
            let items = batch.take()
            taken += items
            if items.isEmpty { woken = false }
        }
        XCTAssertEqual(taken, Array(0..<next))
    }
}
