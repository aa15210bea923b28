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
        for index in 0..<5 {
            http.serve(path: "/m\(index)", size: 200_000, seed: UInt64(index))
            http.update(path: "/m\(index)") { $0.bytesPerSecond = 800_000 }
            _ = try await client.addDownload(AddDownloadRequest(id: "m\(index)", uri: http.url("/m\(index)")))
        }
        var peak = 0
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let stats = try await client.stats()
            peak = max(peak, stats.activeTransfers)
            if stats.counts[.completed] == 5 { break }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        let completed = try await client.stats().counts[.completed]
        XCTAssertEqual(completed, 5)
        XCTAssertEqual(peak, 2, "two at a time, and the slots were used")
        XCTAssertLessThanOrEqual(http.peakInFlightRequests, 2)
    }
}
