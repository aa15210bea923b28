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

    /// Retried outside (the engine's file transfers): a failed attempt ends the transfer with
    /// its backoff; the next transfer counts the earlier attempts and waits out what is left
    /// of the backoff.
    func testRetriedOutsideTheTransferEndsAndTheNextCountsOnAndWaits() async throws {
        server.serve(path: "/cut", route: TestRoute(body: body))
        server.update(path: "/cut") {
            $0.failStatus = 503
            $0.failTimes = 2
        }
        var first = request("/cut", sha256: body.sha256Hex)
        first.retriesOutside = true
        first.retry = RetryPolicy(maxAttempts: 3, baseDelayMs: 300, maxDelayMs: 1000)

        let ended = await fetch(first)

        guard case .retryLater(let attempt, let delayMs, let error)? = ended.finalEvent else { return XCTFail("got \(ended.events)") }
        XCTAssertEqual([attempt, delayMs], [1, 300])
        XCTAssertEqual(error.httpStatus, 503)
        XCTAssertTrue(ended.retries.isEmpty, "no retry inside the transfer")
        XCTAssertEqual(server.requests(for: "/cut").count, 1)

        var second = first
        second.attemptsBefore = attempt
        second.delayMs = 400
        let began = ContinuousClock.now
        let again = await fetch(second)
        guard case .retryLater(let secondAttempt, _, _)? = again.finalEvent else { return XCTFail("got \(again.events)") }
        XCTAssertEqual(secondAttempt, 2, "the attempts add up across transfers")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - began, .milliseconds(390), "the first attempt waited out the backoff")

        var third = first
        third.attemptsBefore = secondAttempt
        let last = await fetch(third)
        XCTAssertEqual(last.finalEvent, .completed(bytes: 50_000, sha256: body.sha256Hex))
        XCTAssertEqual(server.requests(for: "/cut").count, 3)
    }

    /// The attempts of earlier transfers use up the policy's: the last one gives up and says
    /// how many there were in all.
    func testRetriedOutsideGivesUpAtTheAttemptsOfAllTransfers() async throws {
        server.serve(path: "/down", route: TestRoute(body: body))
        server.update(path: "/down") {
            $0.failStatus = 503
            $0.failTimes = 100
        }
        var request = request("/down")
        request.retriesOutside = true
        request.retry = RetryPolicy(maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100)
        request.attemptsBefore = 2

        let recorder = await fetch(request)

        guard case .failed(let error)? = recorder.finalEvent else { return XCTFail("got \(recorder.events)") }
        XCTAssertTrue(error.message.contains("after 3 attempts"), error.message)
        XCTAssertEqual(server.requests(for: "/down").count, 1)
    }

    /// The counts a caller hands on, at their extremes: a count of `Int.max` gives up at the
    /// first failure, a negative delay starts at once; nothing traps.
    func testRetriedOutsideTakesExtremeCountsAndDelays() async throws {
        server.serve(path: "/down", route: TestRoute(body: body))
        server.update(path: "/down") {
            $0.failStatus = 503
            $0.failTimes = 100
        }
        for (attempts, delay) in [(Int.max, -1), (-1, Int.min), (Int.min, 0)] {
            var request = request("/down")
            request.retriesOutside = true
            request.retry = RetryPolicy(maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100)
            request.attemptsBefore = attempts
            request.delayMs = delay
            let recorder = await fetch(request)
            switch recorder.finalEvent {
            case .failed(let error)? where attempts == Int.max:
                XCTAssertTrue(error.message.contains("after 3 attempts"), error.message)
            case .retryLater(let attempt, _, _)? where attempts != Int.max:
                XCTAssertEqual(attempt, 1, "a negative count counts as none")
            default:
                XCTFail("attempts \(attempts), delay \(delay): \(recorder.events)")
            }
        }
        XCTAssertEqual(server.requests(for: "/down").count, 3)
    }
}
