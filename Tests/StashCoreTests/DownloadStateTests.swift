import StashCore
import XCTest

final class DownloadStateTests: XCTestCase {
    func testThirteenStatesInContractOrder() {
        let names = DownloadState.allCases.map(\.name)
        XCTAssertEqual(names, [
            "NOT_DOWNLOADED", "PREPARING", "QUEUED", "DOWNLOADING", "PAUSED", "COMPLETED", "FAILED",
            "REMOVING", "STOPPED", "WAITING_FOR_NETWORK", "LICENSE_EXPIRED", "DRM_EXPIRED", "RESTARTING",
        ])
        XCTAssertEqual(DownloadState.allCases.map(\.rawValue), Array(0...12))
    }

    func testNamesRoundTripAndParseLeniently() {
        for state in DownloadState.allCases {
            XCTAssertEqual(DownloadState(name: state.name), state)
        }
        XCTAssertEqual(DownloadState(name: "waiting-for-network"), .waitingForNetwork)
        XCTAssertNil(DownloadState(name: "DONE"))
    }
}
