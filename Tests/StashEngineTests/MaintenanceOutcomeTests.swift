import StashCore
import XCTest

@testable import StashEngine

/// What a maintenance service hears of a decision upon its fact (`MaintenanceOutcome`).
final class MaintenanceOutcomeTests: XCTestCase {
    func testTheFirstCommitOfTheDownloadIsItsRecordAndAnyChangeOfStateCounts() {
        let other = EngineStateTests.download("b", state: .paused)
        let files = EngineStateTests.download("a", files: 3)
        let failed = EngineStateTests.download("a", state: .failed)
        let effects: [EngineEffect] = [
            .commit(.save(other), then: .stateChanged(other, previous: .queued)),
            .forgetStorageInfo,
            .commit(.add(files), then: nil),
            .commit(.save(failed), then: .stateChanged(failed, previous: .queued)),
        ]
        let outcome = MaintenanceOutcome(effects, about: "a")
        XCTAssertEqual(outcome.download, files, "the first commit of it: its new file list")
        XCTAssertTrue(outcome.stateChanged)
        XCTAssertTrue(outcome.changed)

        let quiet = MaintenanceOutcome([.commit(.add(files), then: nil)], about: "a")
        XCTAssertFalse(quiet.stateChanged)
        let none = MaintenanceOutcome([], about: "a")
        XCTAssertFalse(none.changed)
        XCTAssertNil(none.download)
        let anonymous = MaintenanceOutcome(effects, about: nil)
        XCTAssertTrue(anonymous.changed)
        XCTAssertNil(anonymous.download, "a fact about no download (the disk watch's) names none")
    }
}
