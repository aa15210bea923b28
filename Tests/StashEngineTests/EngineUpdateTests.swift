import Foundation
import StashCore
import StashFetch
import XCTest

@testable import StashEngine

/// SetDownload's changes other than the priority (`EngineState+Update`), on a real engine and
/// registry with the fetch service faked (`EngineHarness`).
final class EngineUpdateTests: XCTestCase {
    func testANewRateLimitReachesTheRunningTransfersIsKeptAndGoesWithLaterOnes() async throws {
        let harness = try await EngineHarness()
        let url = EngineHarness.url("a")
        _ = try await harness.add("a")
        XCTAssertEqual(harness.fetch.transfer(url)?.request.groupRateLimit, 0)

        let changed = try await harness.engine.setRateLimit(id: "a", 1 << 20)
        XCTAssertEqual(changed.rateLimit, 1 << 20)
        XCTAssertEqual(harness.fetch.stopped, [], "the download keeps running")
        XCTAssertEqual(harness.fetch.groupRateLimits["a"], 1 << 20, "its running transfers take the limit at once")
        XCTAssertEqual(harness.fetch.started, [url], "no transfer is restarted for it")

        try await harness.restart()
        let restarted = try await harness.record("a")
        XCTAssertEqual(restarted.rateLimit, 1 << 20, "the limit survives a restart")
        try await harness.eventually("a restarted transfer") { harness.fetch.transfer(url) != nil }
        XCTAssertEqual(harness.fetch.transfer(url)?.request.groupRateLimit, 1 << 20, "a later transfer brings it in its request")

        _ = try await harness.engine.setRateLimit(id: "a", 0)
        XCTAssertEqual(harness.fetch.groupRateLimits["a"], 0, "0 lifts it")
        let lifted = try await harness.record("a")
        XCTAssertEqual(lifted.rateLimit, 0)
        await harness.stop()
    }

    func testExtremeRatesAreTakenAndBadOnesRefusedNamingFieldAndValue() async throws {
        let harness = try await EngineHarness()
        _ = try await harness.add("a")
        for rate: Int64 in [1, .max, 0] {
            let changed = try await harness.engine.setRateLimit(id: "a", rate)
            XCTAssertEqual(changed.rateLimit, rate)
        }
        do {
            _ = try await harness.engine.setRateLimit(id: "a", -1)
            XCTFail("a negative rate is refused")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("rate_limit: -1"), error.message)
        }
        do {
            _ = try await harness.engine.setRateLimit(id: "nope", 1000)
            XCTFail("an unknown id is refused")
        } catch let error as StashError {
            XCTAssertEqual(error.code, .notFound)
            XCTAssertTrue(error.message.contains("nope"), error.message)
        }
        let kept = try await harness.record("a")
        XCTAssertEqual(kept.rateLimit, 0, "a refusal changes nothing")
        await harness.stop()
    }
}
