import Foundation
import StashCore
import StashFetch
import StashTestSupport
import Synchronization
import XCTest

/// Two transfers never write the same part file: a transfer of a file another one still
/// holds waits for it to finish (`FileWaits`), and a cancelled waiter stops without starting.
final class FetchFileWaitTests: FetchTestCase {
    func testATransferOfAFileAnotherHoldsWaitsForItAndACancelledWaiterNeverStarts() async throws {
        let body = TestBody.pattern(size: 300_000, seed: 5)
        var route = TestRoute(body: body)
        route.bytesPerSecond = 600_000
        server.serve(path: "/slow", route: route)
        let request = request("/slow", sha256: body.sha256Hex)
        let log = Mutex<[String]>([])
        let firstStarted = XCTestExpectation(description: "the first transfer started")
        func recorder(_ name: String) -> EventRecorder {
            EventRecorder { event in
                log.withLock { $0.append("\(name) \(event.isFinal ? "final" : "event")") }
                if name == "first", case .started = event { firstStarted.fulfill() }
            }
        }
        let (first, second, third) = (recorder("first"), recorder("second"), recorder("third"))

        workers.start(request, events: first.handler)
        await fulfillment(of: [firstStarted], timeout: 10)
        workers.start(request, events: second.handler)
        let waiting = workers.start(request, events: third.handler)
        await workers.cancel(waiting)
        XCTAssertEqual(third.events, [.stopped], "the cancelled waiter never began")

        await fulfillment(of: [first.finished, second.finished], timeout: 30)
        let completed = FetchEvent.completed(bytes: Int64(body.count), sha256: body.sha256Hex)
        XCTAssertEqual(first.finalEvent, completed)
        XCTAssertEqual(second.finalEvent, completed)
        XCTAssertEqual(contents(request.finalPath), body.slice(0..<body.count))
        XCTAssertFalse(exists(request.partPath))
        let order = log.withLock { $0 }
        let firstEnded = try XCTUnwrap(order.firstIndex(of: "first final"))
        let secondBegan = try XCTUnwrap(order.firstIndex { $0.hasPrefix("second") })
        XCTAssertLessThan(firstEnded, secondBegan, "the second transfer began only once the first had finished: \(order)")
        XCTAssertEqual(server.requests(for: "/slow").count, 2, "the cancelled waiter sent no request")
    }
}
