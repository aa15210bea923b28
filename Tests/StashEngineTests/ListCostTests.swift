import Foundation
import StashCore
import XCTest

@testable import StashEngine

/// A page of ListDownloads costs what its own records cost, not a pass over the registry: a
/// full listing of 20,000 downloads, page after page, costs about as much per record as one
/// of 200. (Worked out over every download for each page, the 20,000 cost 30 to 100 times as
/// much per record, and a full listing grew with the square of the registry.)
final class ListCostTests: XCTestCase {
    func testAFullListingCostsTheSamePerRecordWhateverTheRegistrysSize() async throws {
        let small = try await Self.harness(records: 200)
        let large = try await Self.harness(records: 20_000)
        let perRecordSmall = try await Self.fastestListing(small.engine, records: 200) / 200
        let perRecordLarge = try await Self.fastestListing(large.engine, records: 20_000) / 20_000
        print("a record costs \(perRecordLarge / perRecordSmall)x to list among 20,000 what it costs among 200")
        XCTAssertLessThan(
            perRecordLarge, perRecordSmall * 8,
            "a record costs \(perRecordLarge * 1e6) µs to list among 20,000, \(perRecordSmall * 1e6) µs among 200")
        await small.stop()
        await large.stop()
    }

    /// An engine over `records` single-file downloads, written to its registry before it starts.
    private static func harness(records: Int) async throws -> EngineHarness {
        try await EngineHarness { _, registry in
            let downloads = (0..<records).map { index in
                let url = EngineHarness.url("d\(index)")
                return Download(
                    id: "d\(index)", uri: url, state: .queued, assetPath: "assets/d\(index)/d\(index).bin",
                    createdAt: Date(timeIntervalSince1970: 2_000_000_000), files: [DownloadFile(url: url, path: "d\(index).bin")])
            }
            try await registry.save(downloads)
        }
    }

    /// Seconds of the fastest of three listings of every download in pages of 100; each must
    /// hold every download once.
    private static func fastestListing(_ engine: Engine, records: Int) async throws -> Double {
        var fastest = Double.infinity
        for _ in 0..<3 {
            let clock = ContinuousClock()
            let began = clock.now
            var ids: [String] = []
            var token = ""
            repeat {
                let page = try await engine.list(states: [], pageSize: 100, pageToken: token)
                ids += page.downloads.map(\.id)
                token = page.nextPageToken
            } while !token.isEmpty
            let elapsed = began.duration(to: clock.now)
            XCTAssertEqual(Set(ids).count, records)
            XCTAssertEqual(ids.count, records)
            fastest = min(fastest, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return fastest
    }
}
