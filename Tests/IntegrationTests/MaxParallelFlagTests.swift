import Foundation
import StashClient
import StashCore
import StashTestSupport
import XCTest

/// `stashd --max-parallel N` caps the downloads transferring at once from the start.
final class MaxParallelFlagTests: DaemonTestCase {
    override var daemonArguments: [String] { ["--max-parallel", "2"] }

    func testTheFlagCapsActiveDownloads() async throws {
        let config = try await client.config()
        XCTAssertEqual(config.maxParallel, 2)
        let peak = try await downloadThrottled(count: 5, size: 200_000)
        XCTAssertEqual(peak, 2, "two at a time, and the slots were used")
        XCTAssertLessThanOrEqual(http.peakInFlightRequests, 2)
    }
}
