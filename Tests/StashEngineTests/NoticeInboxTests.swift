import Foundation
@testable import StashEngine
import XCTest

final class NoticeInboxTests: XCTestCase {
    private static func notice(_ index: Int) -> FetchNotice {
        FetchNotice(id: "d", index: index, generation: 1, event: .stopped)
    }

    /// Notices posted while a drain runs are not announced again: the running drain takes
    /// them, in the order they came, and the next post after it found none starts a new one.
    func testOneDrainTakesEverythingPostedUntilItFindsNone() {
        let inbox = NoticeInbox()
        let drains = Counter()
        inbox.attach { drains.add() }

        inbox.post(Self.notice(0))
        inbox.post(Self.notice(1))
        inbox.post(Self.notice(2))
        XCTAssertEqual(drains.value, 1)
        XCTAssertEqual(inbox.take().map(\.index), [0, 1, 2])
        inbox.post(Self.notice(3))
        XCTAssertEqual(drains.value, 1, "a drain is still under way until take() finds nothing")
        XCTAssertEqual(inbox.take().map(\.index), [3])
        XCTAssertEqual(inbox.take().map(\.index), [])

        inbox.post(Self.notice(4))
        XCTAssertEqual(drains.value, 2)
        XCTAssertEqual(inbox.take().map(\.index), [4])
    }

    /// Notices that came before the engine attached are drained as soon as it does.
    func testNoticesBeforeAttachAreDrainedOnAttach() {
        let inbox = NoticeInbox()
        inbox.post(Self.notice(0))
        let drains = Counter()
        inbox.attach { drains.add() }
        XCTAssertEqual(drains.value, 1)
        XCTAssertEqual(inbox.take().map(\.index), [0])
    }

    /// From many threads at once, every notice arrives exactly once and each thread's in order.
    func testConcurrentPostsArriveOnceInEachSendersOrder() {
        let inbox = NoticeInbox()
        let seen = Seen()
        inbox.attach {
            DispatchQueue.global().async {
                while true {
                    let batch = inbox.take()
                    if batch.isEmpty { return }
                    seen.add(batch.map(\.index))
                }
            }
        }
        DispatchQueue.concurrentPerform(iterations: 4) { sender in
            for step in 0..<1_000 { inbox.post(Self.notice(sender * 10_000 + step)) }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while seen.values.count < 4_000, ContinuousClock.now < deadline { usleep(1_000) }
        let all = seen.values
        XCTAssertEqual(all.count, 4_000)
        for sender in 0..<4 {
            let mine = all.filter { $0 / 10_000 == sender }
            XCTAssertEqual(mine, (0..<1_000).map { sender * 10_000 + $0 })
        }
    }

    /// While the fetch thread is in a pass, the drain its first notice claims waits for the
    /// pass to end, and takes the whole pass's notices; outside a pass a notice starts one at
    /// once, and a pass without notices starts none.
    func testAPassesNoticesGoInOneDrainWhenThePassEnds() {
        let inbox = NoticeInbox()
        let drains = Counter()
        inbox.attach { drains.add() }

        inbox.hold()
        inbox.post(Self.notice(0))
        inbox.post(Self.notice(1))
        XCTAssertEqual(drains.value, 0, "no drain while the pass goes on")
        inbox.release()
        XCTAssertEqual(drains.value, 1)
        inbox.release()
        XCTAssertEqual(drains.value, 1, "a second end of the same pass starts nothing")
        XCTAssertEqual(inbox.take().map(\.index), [0, 1])
        XCTAssertEqual(inbox.take().map(\.index), [])

        inbox.hold()
        inbox.release()
        XCTAssertEqual(drains.value, 1, "a pass without notices starts no drain")

        inbox.post(Self.notice(2))
        XCTAssertEqual(drains.value, 2, "outside a pass a notice starts its drain at once")
        inbox.hold()
        inbox.post(Self.notice(3))
        inbox.release()
        XCTAssertEqual(drains.value, 2, "the drain under way takes it")
        XCTAssertEqual(inbox.take().map(\.index), [2, 3])
    }

    /// A pass that ends after the inbox closed starts no drain.
    func testAPassEndingAfterCloseStartsNoDrain() {
        let inbox = NoticeInbox()
        let drains = Counter()
        inbox.attach { drains.add() }
        inbox.hold()
        inbox.post(Self.notice(0))
        inbox.close()
        inbox.release()
        XCTAssertEqual(drains.value, 0)
        XCTAssertEqual(inbox.take().map(\.index), [])
    }

    func testNothingArrivesAfterClose() {
        let inbox = NoticeInbox()
        let drains = Counter()
        inbox.attach { drains.add() }
        inbox.post(Self.notice(0))
        inbox.close()
        XCTAssertEqual(inbox.take().map(\.index), [])
        inbox.post(Self.notice(1))
        XCTAssertEqual(inbox.take().map(\.index), [])
        XCTAssertEqual(drains.value, 1)
    }
}

/// How many drains were asked for, from whichever thread asked.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Indexes drained, from whichever thread drained them.
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var indexes: [Int] = []
    func add(_ more: [Int]) { lock.withLock { indexes += more } }
    var values: [Int] { lock.withLock { indexes } }
}
