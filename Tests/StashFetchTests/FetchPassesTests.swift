import Foundation
import StashCore
import StashFetch
import StashTestSupport
import Synchronization
import XCTest

/// The fetch loop tells an observer when each pass begins and ends, and every event of a
/// transfer comes inside a pass, so a pass's events can be handed on together.
final class FetchPassesTests: FetchTestCase {
    private enum Mark: Equatable {
        case began, ended, event(FetchEvent)
    }

    func testEveryEventComesInsideAPassThatThenEnds() async throws {
        let marks = Mutex<[Mark]>([])
        // Fulfilled by the first end of a pass after the final event.
        let endedAfterFinal = XCTestExpectation(description: "the final event's pass ended")
        endedAfterFinal.assertForOverFulfill = false
        let finalSeen = Mutex(false)
        workers.observePasses(
            FetchPasses(
                began: { marks.withLock { $0.append(.began) } },
                ended: {
                    marks.withLock { $0.append(.ended) }
                    if finalSeen.withLock({ $0 }) { endedAfterFinal.fulfill() }
                }))
        let body = TestBody.pattern(size: 200_000, seed: 3)
        server.serve(path: "/p", body: body.slice(0..<body.count))
        let recorder = EventRecorder(onEvent: { event in
            marks.withLock { $0.append(.event(event)) }
            if event.isFinal { finalSeen.withLock { $0 = true } }
        })
        workers.start(request("/p"), events: recorder.handler)
        await fulfillment(of: [recorder.finished], timeout: 30)
        XCTAssertEqual(recorder.finalEvent, .completed(bytes: Int64(body.count), sha256: ""))

        // The pass that delivered the final event ends right after it, on the fetch thread.
        await fulfillment(of: [endedAfterFinal], timeout: 10)

        let seen = marks.withLock { $0 }
        var inPass = false
        var events = 0
        for mark in seen {
            switch mark {
            case .began:
                XCTAssertFalse(inPass, "a pass began inside another")
                inPass = true
            case .ended:
                inPass = false
            case .event(let event):
                events += 1
                XCTAssertTrue(inPass, "\(event) came outside a pass")
            }
        }
        XCTAssertEqual(events, recorder.events.count)
    }
}
