import Foundation
import StashCore
import StashFetch
import StashTestSupport
import XCTest

/// A download's own limit changed while its transfers run (`stash set ID --rate-limit`).
final class FetchGroupRateTests: FetchTestCase {
    func testARunningTransferTakesItsGroupsNewLimit() async throws {
        let body = TestBody.pattern(size: 400_000, seed: 31)
        server.serve(path: "/regrouped", route: TestRoute(body: body))
        var limited = request("/regrouped", sha256: body.sha256Hex)
        limited.rateGroup = "d"
        // At 100 B/s this body would take an hour, and one buffer alone minutes: finishing
        // within the timeout below shows the limit was lifted while it ran, pause included.
        limited.groupRateLimit = 100
        let running = XCTestExpectation(description: "the body started")
        let recorder = EventRecorder { event in
            if case .started = event { running.fulfill() }
        }
        workers.start(limited, events: recorder.handler)
        await fulfillment(of: [running], timeout: 10)
        workers.setGroupRateLimit("other", 0)
        workers.setGroupRateLimit("d", 0)

        await fulfillment(of: [recorder.finished], timeout: 20)
        XCTAssertEqual(recorder.finalEvent, .completed(bytes: Int64(body.count), sha256: body.sha256Hex))
    }
}
