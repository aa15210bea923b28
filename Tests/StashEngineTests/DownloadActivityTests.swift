import XCTest

@testable import StashEngine

/// A download's activity holds the data of one step at a time.
final class DownloadActivityTests: XCTestCase {
    func testTransfersComeAndGoWhileTheDownloadKeepsItsSlot() {
        var activity = DownloadActivity.transferring([:])
        activity.started(0, generation: 1)
        activity.started(3, generation: 2)
        XCTAssertEqual(activity.transfers.keys.sorted(), [0, 3])
        activity.ended(0)
        XCTAssertEqual(activity.transfers.keys.sorted(), [3])
        XCTAssertEqual(activity.transfers[3], 2)
        activity.ended(3)
        guard case .transferring(let none) = activity else { return XCTFail("left transferring: \(activity)") }
        XCTAssertTrue(none.isEmpty)
    }

    func testAnEndedTransferDoesNotTouchAnotherStep() {
        var activity = DownloadActivity.completing
        activity.ended(0)
        XCTAssertTrue(activity.isCompleting)
        XCTAssertTrue(activity.transfers.isEmpty)
    }

    func testOnlyTheCurrentPlanningIsRecognised() {
        let activity = DownloadActivity.planning(generation: 5)
        XCTAssertTrue(activity.isPlanning)
        XCTAssertTrue(activity.isPlanning(generation: 5))
        XCTAssertFalse(activity.isPlanning(generation: 4))
        XCTAssertFalse(DownloadActivity.idle.isPlanning(generation: 5))
        XCTAssertTrue(activity.transfers.isEmpty)
    }
}
