@testable import StashFetch
import StashCore
import XCTest

final class RetryDecisionTests: XCTestCase {
    private let policy = RetryPolicy(maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000)
    private let timeout = FetchFailure(error: DownloadError(.network, "timed out"), retryable: true, connectionClass: true)

    func testRetriesWithBackoffUntilMaxAttempts() {
        XCTAssertEqual(RetryDecision.decide(after: timeout, attempts: 1, policy: policy) { true }, .retry(delayMs: 100))
        XCTAssertEqual(RetryDecision.decide(after: timeout, attempts: 2, policy: policy) { true }, .retry(delayMs: 200))
        XCTAssertEqual(RetryDecision.decide(after: timeout, attempts: 3, policy: policy) { true },
                       .giveUp(.failed(DownloadError(.network, "timed out; gave up after 3 attempts"))))
    }

    func testOfflineWaitsEvenWhenAttemptsAreUsedUp() {
        XCTAssertEqual(RetryDecision.decide(after: timeout, attempts: 3, policy: policy) { false }, .waitForNetwork)
    }

    func testServerFailureIgnoresTheMonitor() {
        let busy = FetchFailure.http(status: 429, reason: "", url: "http://h/", retryAfterSeconds: 5)
        XCTAssertEqual(RetryDecision.decide(after: busy, attempts: 1, policy: policy) { false }, .retry(delayMs: 1000))
    }

    func testNonRetryableGivesUpAtOnce() {
        let missing = FetchFailure.http(status: 404, reason: "Not Found", url: "http://h/", retryAfterSeconds: nil)
        XCTAssertEqual(RetryDecision.decide(after: missing, attempts: 1, policy: policy) { true }, .giveUp(.failed(missing.error)))
    }

    func testFullDiskEndsWithNoSpaceAtOnce() {
        let full = FetchFailure.storage(SystemCallError(call: "write", path: "/d/a.part", errnoCode: ENOSPC))
        XCTAssertEqual(RetryDecision.decide(after: full, attempts: 1, policy: policy) { false }, .giveUp(.noSpace(full.error)))
    }
}
