import StashCore
import Synchronization
import XCTest

@testable import StashEngine

/// The bus hands each event to the subscribers it has at that moment: one that joined later
/// gets the events after it joined, and one that left is not offered any more.
final class EventBusTests: XCTestCase {
    func testEachEventGoesToTheSubscribersOfItsMomentOnly() async {
        let bus = EventBus()
        let offeredToLeaving = Mutex(0)
        let staying = bus.subscribe(ids: [], minProgressStep: 1, minInterval: 0, replayFrom: 0)
        let leaving = bus.subscribe(ids: [], minProgressStep: 1, minInterval: 0, replayFrom: 0) { _ in
            offeredToLeaving.withLock { $0 += 1 }
            return true
        }
        XCTAssertEqual(bus.subscriberCount, 2)

        bus.publish(.removed(id: "a"))
        leaving.cancel()
        XCTAssertEqual(bus.subscriberCount, 1)
        bus.publish(.removed(id: "b"))
        let late = bus.subscribe(ids: [], minProgressStep: 1, minInterval: 0, replayFrom: 0)
        XCTAssertEqual(bus.subscriberCount, 2)
        bus.publish(.removed(id: "c"))

        XCTAssertEqual(offeredToLeaving.withLock { $0 }, 1, "a subscriber that left was still offered events")
        let toStaying = await staying.nextBatch(limit: 10).map(\.downloadID)
        let toLate = await late.nextBatch(limit: 10).map(\.downloadID)
        XCTAssertEqual(toStaying, ["a", "b", "c"])
        XCTAssertEqual(toLate, ["c"])

        bus.finishAll()
        XCTAssertEqual(bus.subscriberCount, 0)
        bus.publish(.removed(id: "d"))
        XCTAssertEqual(staying.backlog, 0)
        XCTAssertEqual(late.backlog, 0)
    }

    /// The events of one publish (a commit's) get consecutive seqs in their order, are kept
    /// for replay, and reach a subscriber together.
    func testOnePublishOfManyNumbersThemInOrder() async {
        let bus = EventBus()
        bus.publish(.removed(id: "x"))
        let subscriber = bus.subscribe(ids: [], minProgressStep: 1, minInterval: 0, replayFrom: 0)
        bus.publish([.removed(id: "a"), .removed(id: "b"), .removed(id: "c")])
        bus.publish([DownloadEvent.Kind]())
        let batch = await subscriber.nextBatch(limit: 10)
        XCTAssertEqual(batch.map(\.downloadID), ["a", "b", "c"])
        XCTAssertEqual(batch.map(\.seq), [2, 3, 4])
        let replayed = bus.subscribe(ids: [], minProgressStep: 1, minInterval: 0, replayFrom: 3)
        let replay = await replayed.nextBatch(limit: 10)
        XCTAssertEqual(replay.map(\.downloadID), ["b", "c"])
    }
}
