import Foundation
import StashCore
import StashTestSupport
import XCTest

/// Every time the engine writes into a record is its clock's, never the machine's: on the
/// harness's manual clock, set years from today, the times read back are exactly that clock's.
final class EngineClockTests: XCTestCase {
    func testAnAdoptedDownloadIsCreatedAndCompletedAtTheEnginesTime() async throws {
        let harness = try await EngineHarness()
        let mine = try DaemonProcess.makeTemporaryDirectory(prefix: "stash-adopt-clock")
        defer { try? FileManager.default.removeItem(atPath: mine) }
        XCTAssertTrue(FileManager.default.createFile(atPath: mine + "/film.bin", contents: Data(repeating: 1, count: 2000)))

        let adopted = try await harness.engine.maintenance.adopt(path: mine + "/film.bin", id: "film", url: "", sha256: "", link: false)
        XCTAssertEqual(adopted.createdAt, harness.clock.now, "created at the engine's time, not the wall clock's")
        XCTAssertEqual(adopted.completedAt, harness.clock.now)
        let stored = try await harness.record("film")
        XCTAssertEqual(stored.createdAt, harness.clock.now)
        await harness.stop()
    }
}
