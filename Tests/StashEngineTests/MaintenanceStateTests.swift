import Foundation
import StashCore
import Synchronization
import XCTest

@testable import StashEngine

/// The maintenance services' rules as `EngineState` decides them: what the disk watch's and
/// verify's findings do to a download, and what a download held by a service refuses. Given a
/// state and an input, the effects in order; the disk's answers are the test's.
final class MaintenanceStateTests: XCTestCase {
    /// Sizes of the files on the fake disk, by path relative to `assets/`; missing: nil.
    private final class Disk: Sendable {
        private let sizes = Mutex<[String: Int64]>([:])
        subscript(path: String) -> Int64? {
            get { sizes.withLock { $0[path] } }
            set { sizes.withLock { $0[path] = newValue } }
        }
    }

    private let disk = Disk()

    private func makeState() -> EngineState {
        let disk = self.disk
        let clock = WallClock(now: { Date(timeIntervalSince1970: 2_000_000_000) }, sleep: { _ in })
        return EngineState(
            config: DaemonConfig(), layout: AssetLayout(dataDir: "/data"), clock: clock,
            disk: DiskGauge(freeBytes: { 1 << 40 }, fileSize: { _ in nil }, regularFileSizes: { paths, _ in paths.map { disk[$0] } }))
    }

    /// A download of `files` files of 100 bytes each, all on the fake disk.
    private func complete(_ id: String, files: Int = 1, state: DownloadState = .completed) -> Download {
        var download = EngineStateTests.download(id, files: files, state: state)
        for index in download.files.indices {
            download.files[index].size = 100
            download.files[index].downloadedBytes = 100
            download.files[index].done = true
            disk[id + "/" + download.files[index].path] = 100
        }
        download.filesDone = files
        download.downloadedBytes = Int64(100 * files)
        download.totalBytes = download.downloadedBytes
        download.completedAt = Date(timeIntervalSince1970: 1_999_999_000)
        return download
    }

    private func describe(_ effects: [EngineEffect]) -> [String] {
        EngineStateTests.describe(effects)
    }

    // MARK: - The disk watch

    /// A file of a complete download deleted outside stash: the download fails, its message
    /// naming the file, its watch ends; the files still there stay done, so a resume fetches
    /// only the lost one.
    func testAFindingOfTheDiskWatchFailsACompleteDownloadNamingTheFile() throws {
        var state = makeState()
        _ = try state.on(.load(complete("a", files: 3)))
        XCTAssertTrue(try state.on(.maintenance(.diskChanged(["a"]))).isEmpty, "nothing changed on disk: nothing to do")

        disk["a/1.bin"] = nil
        XCTAssertEqual(describe(try state.on(.maintenance(.diskChanged(["a"])))), [
            "unwatch a", "commit save a FAILED, then publish a FAILED",
        ])
        let failed = try XCTUnwrap(state.entries["a"]?.download)
        XCTAssertEqual(failed.error?.kind, .storage)
        XCTAssertEqual(failed.error?.message, "1 of 3 files missing or damaged; first: file missing on disk: /data/assets/a/1.bin")
        XCTAssertTrue(failed.stateReason.hasSuffix("(changed outside stash); resume fetches what is missing"), failed.stateReason)
        XCTAssertEqual(failed.files.map(\.done), [true, false, true])
        XCTAssertNil(failed.completedAt)

        XCTAssertTrue(try state.on(.maintenance(.diskChanged(["a"]))).isEmpty, "a FAILED download is not complete: no second failure")
        _ = try state.on(.resume("a"))
        XCTAssertEqual(state.entries["a"]?.activity.transfers.keys.sorted(), [1], "only the lost file is fetched again")
    }

    /// A file of another size than recorded is lost too; a download that is not complete is
    /// not looked at (its files are being fetched).
    func testAFileOfAnotherSizeIsLostAndAnIncompleteDownloadIsLeftAlone() throws {
        var state = makeState()
        _ = try state.on(.load(complete("a")))
        _ = try state.on(.load(complete("p", state: .paused)))
        disk["a/0.bin"] = 99
        disk["p/0.bin"] = nil
        XCTAssertEqual(describe(try state.on(.maintenance(.diskChanged(["p", "a", "gone"])))), [
            "unwatch a", "commit save a FAILED, then publish a FAILED",
        ])
        XCTAssertEqual(state.entries["a"]?.download.error?.message, "file on disk has 99 bytes on disk, expected 100: /data/assets/a/0.bin")
        XCTAssertEqual(state.entries["p"]?.download.state, .paused)
    }

    // MARK: - Verify

    /// Without repair a damaged file fails its complete download and nothing is deleted; with
    /// repair it is deleted first and only it is fetched again.
    func testVerifysFindingsFailADownloadOrRequeueItForTheDamagedFileOnly() throws {
        var state = makeState()
        _ = try state.on(.load(complete("b", files: 3)))
        let findings = [VerifyFinding(kind: .wrongDigest, id: "b", path: "/data/assets/b/2.bin", detail: "sha256 x on disk, expected y")]

        let report = state.damageRepairs(findings, repair: false)
        XCTAssertEqual(report.map(\.deletions), [[]], "a verify without repair deletes nothing")
        XCTAssertEqual(describe(try state.on(.maintenance(.repairDamage(report[0])))), [
            "unwatch b", "commit save b FAILED, then publish b FAILED",
        ])
        XCTAssertEqual(state.entries["b"]?.download.error?.message, "1 file(s) missing or damaged; first: /data/assets/b/2.bin: sha256 x on disk, expected y")
        XCTAssertEqual(state.entries["b"]?.download.files.map(\.done), [true, true, false])

        let repair = state.decideRepairs(findings, repair: true)
        XCTAssertEqual(repair.map(\.deletions), [["/data/assets/b/2.bin"]])
        XCTAssertEqual(repair.map(\.files), [[2]])
        XCTAssertNotNil(state.holds["b"], "held until the damaged file is deleted")
        XCTAssertTrue(try state.on(.maintenance(.diskChanged(["b"]))).isEmpty)
        XCTAssertEqual(describe(try state.on(.maintenance(.repairDamage(repair[0])))), [
            "commit save b QUEUED, then publish b QUEUED",
            "flight start b", "commit save b PREPARING, then publish b PREPARING", "start b#2",
        ])
        XCTAssertNil(state.holds["b"])
        XCTAssertEqual(state.entries["b"]?.download.stateReason, "")
    }

    /// A decision is applied only to the state it was made for: a download that moved on
    /// while the files were deleted is left as it is.
    func testARepairDecidedForAStateThatChangedIsNotApplied() throws {
        var state = makeState()
        _ = try state.on(.load(complete("a")))
        let findings = [VerifyFinding(kind: .missingFile, id: "a", path: "/data/assets/a/0.bin", detail: "file missing on disk")]
        let repair = state.decideRepairs(findings, repair: true)
        _ = try state.on(.cancel("a"))
        XCTAssertTrue(try state.on(.maintenance(.repairDamage(repair[0]))).isEmpty)
        XCTAssertEqual(state.entries["a"]?.download.state, .removing)
    }

    /// The disk watch sees the file verify found missing and fails the download before the
    /// repair decided for it is applied: the repair goes on from FAILED, as `--repair` would
    /// have decided for a FAILED download. Without `--repair` the failure stands as it is.
    func testARepairGoesOnForADownloadTheDiskWatchFailedMeanwhile() throws {
        for state in [DownloadState.completed, .licenseExpired] {
            var engine = makeState()
            _ = try engine.on(.load(complete("a", files: 2, state: state)))
            disk["a/1.bin"] = nil
            let findings = [VerifyFinding(kind: .missingFile, id: "a", path: "/data/assets/a/1.bin", detail: "file missing on disk")]
            let repair = engine.decideRepairs(findings, repair: true)
            let report = engine.damageRepairs(findings, repair: false)
            XCTAssertEqual(describe(try engine.on(.maintenance(.diskChanged(["a"])))), [
                "unwatch a", "commit save a FAILED, then publish a FAILED",
            ])
            XCTAssertTrue(try engine.on(.maintenance(.repairDamage(report[0]))).isEmpty, "\(state): verify without repair changes nothing more")
            XCTAssertEqual(describe(try engine.on(.maintenance(.repairDamage(repair[0])))), [
                "commit save a QUEUED, then publish a QUEUED",
                "flight start a", "commit save a PREPARING, then publish a PREPARING", "start a#1",
            ], "\(state)")
            XCTAssertEqual(engine.entries["a"]?.download.files.map(\.done), [true, false], "\(state): only the lost file is fetched again")
            disk["a/1.bin"] = 100
        }
    }

    /// A package whose licence has run out is restored only when its media files are
    /// damaged: a lost playlist or key would read the licence again.
    func testAnExpiredPackageWithALostPlaylistIsNotRepaired() throws {
        var state = makeState()
        var download = complete("x", files: 2, state: .licenseExpired)
        download.hls = HLSOptions()
        download.hlsPlaylists = ["master.m3u8"]
        _ = try state.on(.load(download))
        let playlist = VerifyFinding(kind: .missingFile, id: "x", path: "/data/assets/x/master.m3u8", detail: "file missing on disk")
        let segment = VerifyFinding(kind: .missingFile, id: "x", path: "/data/assets/x/1.bin", detail: "file missing on disk")
        XCTAssertEqual(state.damageRepairs([playlist, segment], repair: true), [])
        XCTAssertEqual(state.damageRepairs([segment], repair: true).map(\.files), [[1]])
    }

    // MARK: - Holds

    /// While forget moves a download's files it is held: unwatched, not failed by the disk
    /// watch, and a resume or repair of it is refused naming the forget; a cancel wins.
    func testAForgetHoldsItsDownloadUntilTheMoveEnds() throws {
        var state = makeState()
        _ = try state.on(.load(complete("a")))
        XCTAssertEqual(describe(try state.on(.maintenance(.handOverStarts("a")))), ["unwatch a"])
        disk["a/0.bin"] = nil
        XCTAssertTrue(try state.on(.maintenance(.diskChanged(["a"]))).isEmpty, "its own move is not a loss")
        XCTAssertThrowsError(try state.on(.maintenance(.addTextTracks("a", [TextTrack(uri: "http://h.test/es.vtt", language: "es")])))) { error in
            XCTAssertEqual((error as? StashError)?.code, .failedPrecondition)
            XCTAssertEqual((error as? StashError)?.message, "download 'a' is busy: its files are being moved out by a forget; try again once it is done")
        }
        XCTAssertThrowsError(try state.on(.maintenance(.handOverStarts("a"))))
        XCTAssertEqual(describe(try state.on(.maintenance(.handOverEnded("a", moved: false)))), ["watch a"])
        XCTAssertNil(state.holds["a"])
        XCTAssertEqual(state.entries["a"]?.download.state, .completed)

        disk["a/0.bin"] = 100
        XCTAssertEqual(describe(try state.on(.maintenance(.handOverStarts("a")))), ["unwatch a"])
        XCTAssertEqual(describe(try state.on(.cancel("a"))), ["unwatch a", "commit save a REMOVING, then publish a REMOVING"])
    }

    /// A download whose files are not whole is not handed over: it fails instead, unheld.
    func testAForgetOfADownloadNotWholeFailsIt() throws {
        var state = makeState()
        _ = try state.on(.load(complete("a")))
        disk["a/0.bin"] = nil
        XCTAssertEqual(describe(try state.on(.maintenance(.handOverStarts("a")))), [
            "unwatch a", "commit save a FAILED, then publish a FAILED",
        ])
        XCTAssertNil(state.holds["a"])
        XCTAssertTrue(state.entries["a"]?.download.stateReason.contains("(changed found by forget)") == true)
    }
}
