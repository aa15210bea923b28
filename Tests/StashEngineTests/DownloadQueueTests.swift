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

    /// Every entry is current.
    private static func always(_: String, _: QueueKey) -> Bool { true }

    func testOldestFirstWhileASlotIsFree() {
        var queue = DownloadQueue(maxParallel: 2)
        for (n, id) in ["a", "b", "c"].enumerated() { queue.enqueue(id, key: Self.key(n)) }
        XCTAssertEqual(queue.next(isCurrent: Self.always), "a")
        queue.activate("a", priority: .normal)
        XCTAssertEqual(queue.next(isCurrent: Self.always), "b")
        queue.activate("b", priority: .normal)
        XCTAssertNil(queue.next(isCurrent: Self.always), "both slots taken")
        queue.deactivate("a")
        XCTAssertEqual(queue.next(isCurrent: Self.always), "c")
    }

    func testItKnowsWhetherADownloadOfLowerPriorityRunsThroughActivationsAndPriorityChanges() {
        var queue = DownloadQueue(maxParallel: 3)
        XCTAssertFalse(queue.hasActive(below: .high), "nothing runs")
        queue.activate("a", priority: .normal)
        queue.activate("b", priority: .high)
        XCTAssertTrue(queue.hasActive(below: .high))
        XCTAssertFalse(queue.hasActive(below: .normal), "nothing below normal runs")
        queue.setPriority("a", .high)
        XCTAssertFalse(queue.hasActive(below: .high), "a now runs at high")
        queue.setPriority("c", .low)
        XCTAssertFalse(queue.hasActive(below: .normal), "a download not running changes nothing")
        queue.setPriority("b", .low)
        XCTAssertTrue(queue.hasActive(below: .normal))
        queue.activate("b", priority: .low)
        queue.deactivate("b")
        XCTAssertFalse(queue.hasActive(below: .high), "b counted once and gone")
        queue.deactivate("b")
        queue.deactivate("a")
        XCTAssertFalse(queue.hasActive(below: .high))
        XCTAssertTrue(queue.active.isEmpty)
    }

    func testHeldDownloadsComeBackAtTheFront() {
        var queue = DownloadQueue(maxParallel: 1)
        for (n, id) in ["big", "small", "later"].enumerated() { queue.enqueue(id, key: Self.key(n)) }
        XCTAssertEqual(queue.next(isCurrent: Self.always), "big")
        queue.hold("big", key: Self.key(0))
        XCTAssertEqual(queue.next(isCurrent: Self.always), "small")
        queue.releaseHeld()
        XCTAssertEqual(queue.next(isCurrent: Self.always), "big")
        XCTAssertEqual(queue.next(isCurrent: Self.always), "later")
        XCTAssertFalse(queue.hasHeld)
    }

    func testLoweringTheCapNamesTheNewestToRequeue() {
        var queue = DownloadQueue(maxParallel: 4)
        let seq = ["a": 1, "b": 2, "c": 3, "d": 4]
        for id in ["a", "b", "c", "d"] {
            queue.enqueue(id, key: Self.key(seq[id] ?? 0))
            _ = queue.next(isCurrent: Self.always)
            queue.activate(id, priority: .normal)
        }
        queue.maxParallel = 2
        XCTAssertEqual(queue.excess { Self.key(seq[$0] ?? 0) }, ["d", "c"])
        XCTAssertNil(queue.next(isCurrent: Self.always))
    }

    func testHigherPriorityFirstThenPositionAndStaleKeysAreSkipped() {
        var queue = DownloadQueue(maxParallel: 10)
        var current = ["low": Self.key(0, .low), "n2": Self.key(2), "n1": Self.key(1), "high": Self.key(3, .high)]
        for (id, key) in current { queue.enqueue(id, key: key) }
        // A move is a new key, a pause no key at all: the old entries are skipped.
        current["n2"] = Self.key(-1)
        queue.enqueue("n2", key: Self.key(-1))
        current["high"] = nil
        let isCurrent: DownloadQueue.Current = { current[$0] == $1 }
        XCTAssertEqual(queue.peek(isCurrent: isCurrent)?.id, "n2")
        XCTAssertEqual((0..<4).map { _ in queue.next(isCurrent: isCurrent) }, ["n2", "n1", "low", nil])
    }

    /// Random inputs: at most `maxParallel` run once the excess is put back, ids come out in
    /// key order (held ones first after a release), none is lost or given twice, and
    /// entries under old keys never come out.
    func testRandomInputsKeepOrderCapAndEveryID() {
        var random = SeededRandom.seeded()
        for _ in 0..<200 {
            var queue = DownloadQueue(maxParallel: Int.random(in: 1...4, using: &random))
            var current: [String: QueueKey] = [:]
            var held: [String] = []
            var given = Set<String>()
            var next = 0
            for _ in 0..<300 {
                let isCurrent: DownloadQueue.Current = { current[$0] == $1 }
                switch Int.random(in: 0..<12, using: &random) {
                case 0...3:
                    let id = "d\(next)"
                    let key = Self.key(next, DownloadPriority.allCases.randomElement(using: &random)!)
                    next += 1
                    current[id] = key
                    queue.enqueue(id, key: key)
                case 4:
                    if let id = queue.active.randomElement(using: &random) { queue.deactivate(id) }
                case 5:
                    queue.releaseHeld()
                    held = []
                case 6:
                    queue.maxParallel = Int.random(in: 1...4, using: &random)
                    for id in queue.excess(key: Self.key) { queue.deactivate(id) }
                case 7:
                    // A move: the same id under a new key.
                    if let id = current.keys.randomElement(using: &random), !held.contains(id) {
                        // The seq stays the id's own, so no two ids tie.
                        let key = QueueKey(
                            priority: DownloadPriority.allCases.randomElement(using: &random)!, position: Int64.random(in: -100...1000, using: &random),
                            seq: Int(id.dropFirst()) ?? 0)
                        current[id] = key
                        queue.enqueue(id, key: key)
                    }
                case 8:
                    queue.dropStale(waiting: current.count, isCurrent: isCurrent)
                default:
                    while let id = queue.next(isCurrent: isCurrent) {
                        let waiting = current.filter { !held.contains($0.key) }
                        let first = waiting.min { $0.value < $1.value }
                        XCTAssertEqual(id, first?.key, "out of order")
                        XCTAssertFalse(given.contains(id), "\(id) given twice")
                        if Bool.random(using: &random) {
                            queue.activate(id, priority: .normal)
                            given.insert(id)
                            current[id] = nil
                        } else {
                            queue.hold(id, key: current[id]!)
                            held.append(id)
                        }
                    }
                    XCTAssertTrue(queue.active.count == queue.maxParallel || current.allSatisfy { held.contains($0.key) }, "a slot is free while an id waits")
                }
                XCTAssertLessThanOrEqual(queue.active.count, queue.maxParallel)
            }
        }
    }
}
