@testable import StashEngine
import StashCore
import StashTestSupport
import XCTest

final class DownloadQueueTests: XCTestCase {
    /// Keys in the order of `n`, all of one priority.
    private static func key(_ n: Int, _ priority: DownloadPriority = .normal) -> QueueKey {
        QueueKey(priority: priority, position: Int64(n), seq: n)
    }

    private static func key(_ id: String) -> QueueKey { key(Int(id.dropFirst()) ?? 0) }

    func testOldestFirstWhileASlotIsFree() {
        var queue = DownloadQueue(maxParallel: 2)
        for (n, id) in ["a", "b", "c"].enumerated() { queue.enqueue(id, key: Self.key(n)) }
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
        for (n, id) in ["big", "small", "later"].enumerated() { queue.enqueue(id, key: Self.key(n)) }
        XCTAssertEqual(queue.next(), "big")
        queue.hold("big", key: Self.key(0))
        XCTAssertEqual(queue.next(), "small")
        queue.releaseHeld()
        XCTAssertEqual(queue.next(), "big")
        XCTAssertEqual(queue.next(), "later")
        XCTAssertFalse(queue.hasHeld)
    }

    func testLoweringTheCapNamesTheNewestToRequeue() {
        var queue = DownloadQueue(maxParallel: 4)
        let seq = ["a": 1, "b": 2, "c": 3, "d": 4]
        for id in ["a", "b", "c", "d"] {
            queue.enqueue(id, key: Self.key(seq[id] ?? 0))
            _ = queue.next()
            queue.activate(id)
        }
        queue.maxParallel = 2
        XCTAssertEqual(queue.excess { Self.key(seq[$0] ?? 0) }, ["d", "c"])
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
                    queue.enqueue(id, key: Self.key(id))
                    expected.append(id)
                case 4:
                    if let id = queue.active.randomElement(using: &random) { queue.deactivate(id) }
                case 5:
                    queue.releaseHeld()
                    // Held ones came up before everything still waiting: their keys are lower.
                    expected = held + expected
                    held = []
                case 6:
                    queue.maxParallel = Int.random(in: 1...4, using: &random)
                    for id in queue.excess(key: Self.key) { queue.deactivate(id) }
                default:
                    while let id = queue.next() {
                        XCTAssertEqual(id, expected.first, "out of order")
                        expected.removeFirst()
                        XCTAssertFalse(given.contains(id), "\(id) given twice")
                        given.insert(id)
                        if Bool.random(using: &random) { queue.activate(id) } else { queue.hold(id, key: Self.key(id)); held.append(id); given.remove(id) }
                    }
                }
                XCTAssertLessThanOrEqual(queue.active.count, queue.maxParallel)
                XCTAssertEqual(queue.waitingCount + held.count, expected.count + held.count, "an id was lost")
                if expected.count < 40 { XCTAssertEqual(queue.ordered(), held + expected, "ordered() lists what next() would give") }
            }
        }
    }

    func testHigherPriorityFirstThenPosition() {
        var queue = DownloadQueue(maxParallel: 10)
        queue.enqueue("low", key: Self.key(0, .low))
        queue.enqueue("n2", key: Self.key(2))
        queue.enqueue("n1", key: Self.key(1))
        queue.enqueue("high", key: Self.key(3, .high))
        XCTAssertEqual(queue.ordered(), ["high", "n1", "n2", "low"])
        // A move is a new key: the old one is skipped when it comes up.
        queue.enqueue("n2", key: Self.key(-1))
        queue.remove("high")
        XCTAssertEqual(queue.ordered(), ["n2", "n1", "low"])
        XCTAssertEqual([queue.next(), queue.next(), queue.next(), queue.next()], ["n2", "n1", "low", nil])
    }
}
