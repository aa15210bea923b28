import Foundation
import StashCore
import StashFetch
import StashTestSupport
import XCTest

final class FetchRetryTests: FetchTestCase {
    private let body = TestBody.pattern(size: 50_000, seed: 5)

    func testServerErrorTwiceThenSuccess() async throws {
        server.serve(path: "/flaky", route: TestRoute(body: body))
        server.update(path: "/flaky") {
            $0.failStatus = 500
            $0.failTimes = 2
        }
        let request = request("/flaky", sha256: body.sha256Hex)

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 50_000, sha256: body.sha256Hex))
        XCTAssertEqual(recorder.retries.map(\.attempt), [1, 2])
        XCTAssertEqual(recorder.retries.map(\.delayMs), [20, 40], "exponential backoff from the policy")
        XCTAssertEqual(recorder.retries.first?.error, DownloadError(.http, "HTTP 500 Internal Server Error from \(request.url)", httpStatus: 500))
        XCTAssertEqual(server.requests(for: "/flaky").count, 3)
    }

    func testTooManyRequestsHonoursRetryAfter() async throws {
        server.serve(path: "/busy", route: TestRoute(body: body))
        server.update(path: "/busy") {
            $0.failStatus = 429
            $0.failTimes = 1
            $0.retryAfterSeconds = 1
        }
        let request = request("/busy", sha256: body.sha256Hex)
        let began = ContinuousClock.now

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 50_000, sha256: body.sha256Hex))
        XCTAssertEqual(recorder.retries.map(\.delayMs), [1000])
        XCTAssertEqual(recorder.retries.first?.error.httpStatus, 429)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - began, .seconds(0.9))
    }

    func testRetryAfterIsCappedByMaxDelay() async throws {
        server.serve(path: "/busy", route: TestRoute(body: body))
        server.update(path: "/busy") {
            $0.failStatus = 503
            $0.failTimes = 1
            $0.retryAfterSeconds = 3600
        }
        var request = request("/busy", sha256: body.sha256Hex)
        request.retry = RetryPolicy(maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 200)

        let recorder = await fetch(request)

        XCTAssertEqual(recorder.retries.map(\.delayMs), [200])
        XCTAssertEqual(recorder.finalEvent, .completed(bytes: 50_000, sha256: body.sha256Hex))
    }

    func testGivesUpAfterMaxAttemptsKeepingThePart() async throws {
        server.serve(path: "/down", route: TestRoute(body: body))
        server.update(path: "/down") {
            $0.failStatus = 503
            $0.failTimes = 100
        }
        var request = request("/down")
        request.retry = RetryPolicy(maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100)

        let recorder = await fetch(request)

        guard case .failed(let error) = recorder.finalEvent else { return XCTFail("expected failure, got \(recorder.events)") }
        XCTAssertEqual(error.httpStatus, 503)
        XCTAssertTrue(error.message.contains("after 3 attempts"), error.message)
        XCTAssertEqual(recorder.retries.count, 2)
        XCTAssertEqual(server.requests(for: "/down").count, 3)
    }

    func testConnectionRefusedIsRetriedThenFails() async throws {
        server.serve(path: "/x", body: [1])
        var request = request("/x")
        request.url = server.url("/x")
        server.stop()
        request.retry = RetryPolicy(maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 100)

        let recorder = await fetch(request)

        guard case .failed(let error) = recorder.finalEvent else { return XCTFail("expected failure, got \(recorder.events)") }
        XCTAssertEqual(error.kind, .network)
        XCTAssertTrue(error.message.contains("after 2 attempts"), error.message)
        XCTAssertEqual(recorder.retries.count, 1)
    }
}
