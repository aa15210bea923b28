@testable import StashEngine
import StashTestSupport
import XCTest

final class DownloadQueueTests: XCTestCase {
    func testOldestFirstWhileASlotIsFree() {
        var queue = DownloadQueue(maxParallel: 2)
        for id in ["a", "b", "c"] { queue.enqueue(id) }
        XCTAssertEqual(queue.next(), "a")
        queue.activate("a")
        XCTAssertEqual(queue.next(), "b")
        queue.activate("b")
        XCTAssertNil(queue.next(), "both slots taken")
        queue.deactivate("a")
        XCTAssertEqual(queue.next(), "c")
    }

    func testHeldDownloadsComeBackAtTheFront() {
        var queue = DownloadQueue(maxParallel: 1)
        for id in ["big", "small", "later"] { queue.enqueue(id) }
        XCTAssertEqual(queue.next(), "big")
        queue.hold("big")
        XCTAssertEqual(queue.next(), "small")
        queue.releaseHeld()
        XCTAssertEqual(queue.next(), "big")
        XCTAssertEqual(queue.next(), "later")
        XCTAssertFalse(queue.hasHeld)
    }

    func testLoweringTheCapNamesTheNewestToRequeue() {
        var queue = DownloadQueue(maxParallel: 4)
        let seq = ["a": 1, "b": 2, "c": 3, "d": 4]
        for id in ["a", "b", "c", "d"] { queue.enqueue(id); _ = queue.next(); queue.activate(id) }
        queue.maxParallel = 2
        XCTAssertEqual(queue.excess { seq[$0] ?? 0 }, ["d", "c"])
        XCTAssertNil(queue.next())
    }

    /// An engine driven by random inputs: at most `maxParallel` run once the excess is put
    /// back, ids come out in the order they went in (held ones first after a release), and
    /// none is lost or given twice.
    func testRandomInputsKeepOrderCapAndEveryID() {
        var random = SeededRandom.seeded()
        for _ in 0..<200 {
            var queue = DownloadQueue(maxParallel: Int.random(in: 1...4, using: &random))
            var expected: [String] = []  // what next() must give, in order
            var held: [String] = []
            var given = Set<String>()
            var next = 0
            for _ in 0..<300 {
                switch Int.random(in: 0..<10, using: &random) {
                case 0...3:
                    let id = "d\(next)"
                    next += 1
                    queue.enqueue(id)
                    expected.append(id)
                case 4:
                    if let id = queue.active.randomElement(using: &random) { queue.deactivate(id) }
                case 5:
                    queue.releaseHeld()
                    expected = held + expected
                    held = []
                case 6:
                    queue.maxParallel = Int.random(in: 1...4, using: &random)
                    for id in queue.excess(seq: { Int($0.dropFirst()) ?? 0 }) { queue.deactivate(id) }
                default:
                    while let id = queue.next() {
                        XCTAssertEqual(id, expected.first, "out of order")
                        expected.removeFirst()
                        XCTAssertFalse(given.contains(id), "\(id) given twice")
                        given.insert(id)
                        if Bool.random(using: &random) { queue.activate(id) } else { queue.hold(id); held.append(id); given.remove(id) }
                    }
                }
                XCTAssertLessThanOrEqual(queue.active.count, queue.maxParallel)
                XCTAssertEqual(queue.waitingCount, expected.count, "an id was lost")
            }
        }
    }
}
