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
