import StashCore
import XCTest

@testable import StashEngine

/// Start-up recovery decided by the state alone (`EngineState.enterLoaded`): the disk's sizes
/// given, no registry, no actor.
final class EngineStateRecoveryTests: XCTestCase {
    /// Every loaded record is entered in the registry's order; the interrupted one goes back
    /// to the queue, a complete one whose file is gone fails naming it, one the crash guard
    /// names fails, a removal is left to finish, and what rests stays as it is.
    func testEachLoadedRecordGoesWhereItBelongsAfterARestart() throws {
        var state = EngineStateTests.makeState()
        var downloads = [
            EngineStateTests.download("running", state: .downloading),
            EngineStateTests.download("whole", state: .completed),
            EngineStateTests.download("gone", state: .completed),
            EngineStateTests.download("crashed", state: .downloading),
            EngineStateTests.download("removing", state: .removing),
            EngineStateTests.download("paused", state: .paused),
        ]
        for index in downloads.indices { downloads[index].files[0].size = 10 }
        // Only "whole" has its file on disk.
        let sizes = LoadedFileSizes(downloads, assetsDir: "/data/assets", folders: ["whole"]) { paths, _ in
            paths.map { $0 == "whole/0.bin" ? 10 : nil }
        }
        var crashGuard = CrashGuard(log: nil)
        crashGuard.failing["crashed"] = 2
        let recovery = state.enterLoaded(&downloads, sizes: sizes, crashGuard: crashGuard)

        XCTAssertEqual(state.order, ["running", "whole", "gone", "crashed", "removing", "paused"])
        XCTAssertEqual(EngineStateTests.describe(recovery.effects), [
            "flight end running", "commit save running QUEUED, then publish running QUEUED",
            "unwatch gone", "commit save gone FAILED, then publish gone FAILED",
            "flight end crashed", "commit save crashed FAILED, then publish crashed FAILED",
            "commit save removing REMOVING, then publish removing REMOVING",
        ])
        XCTAssertEqual(state.entries["gone"]?.download.error?.message, "file missing on disk: /data/assets/gone/0.bin")
        // An interrupted download's final file is not there yet: that is no problem to report.
        XCTAssertNil(state.entries["running"]?.download.error)
        XCTAssertEqual(state.entries["running"]?.download.stateReason, "resumed after a daemon restart")
        XCTAssertEqual(state.entries["crashed"]?.download.error?.message, CrashGuard.reason(exits: 2))
        XCTAssertEqual(recovery.removals, ["removing"])
        XCTAssertEqual(recovery.findings.map(\.id), ["gone"], "a complete download's missing file is the start's verify finding")
        XCTAssertEqual(recovery.filesChecked, 6)
        XCTAssertEqual(state.queue.waitingCount, 1, "only the interrupted one waits; a crashed one waits for a resume")
        XCTAssertEqual(state.entries["paused"]?.download.state, .paused)
        XCTAssertEqual(state.entries["whole"]?.download.state, .completed)
        XCTAssertEqual(state.holder(ofContent: EngineState.contentKey(downloads[1]), hls: nil, drm: nil)?.id, "whole")
        XCTAssertNil(state.holder(ofContent: EngineState.contentKey(downloads[4]), hls: nil, drm: nil), "a removal holds no content")
    }
}
