@testable import StashFetch
import XCTest

/// How the global limit and each download's own are split among running transfers.
final class RateSharesTests: XCTestCase {
    func testWithoutAGlobalLimitEachKeepsItsCap() {
        XCTAssertEqual(RateShares.split(global: 0, caps: [0, 300, 0]), [0, 300, 0])
    }

    func testTheGlobalLimitIsSplitEvenly() {
        XCTAssertEqual(RateShares.split(global: 1000, caps: [0, 0]), [500, 500])
    }

    func testWhatACappedTransferLeavesGoesToTheOthers() {
        XCTAssertEqual(RateShares.split(global: 1000, caps: [0, 100, 0]), [450, 100, 450])
        XCTAssertEqual(RateShares.split(global: 1000, caps: [2000, 0]), [500, 500], "a cap above the even share is no help")
    }

    func testADownloadsLimitIsSplitAmongItsTransfers() {
        XCTAssertEqual(RateShares.cap(limit: 1_000_000, running: 4), 250_000)
        XCTAssertEqual(RateShares.cap(limit: 0, running: 4), 0, "none")
        XCTAssertEqual(RateShares.cap(limit: 1, running: 3), 1, "never 0, which would be unlimited")
        XCTAssertEqual(RateShares.cap(limit: .max, running: 0), .max)
    }

    func testTransfersOfOneGroupShareItsLimit() {
        let shares = RateShares.split(global: 0, groups: [("a", 1000), ("", 0), ("a", 1000), ("b", 300)])
        XCTAssertEqual(shares, [500, 0, 500, 300])
    }

    func testExtremesDoNotTrap() {
        XCTAssertEqual(RateShares.split(global: .max, caps: [.max, 0]), [.max / 2, .max / 2 + 1])
        XCTAssertEqual(RateShares.split(global: 1, caps: [0, 0, 1]), [1, 1, 1], "the least share is 1 byte/s, never 0")
        XCTAssertEqual(RateShares.split(global: 5, caps: []), [])
    }
}
