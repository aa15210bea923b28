import Foundation
import StashCore
import StashFetch
import XCTest

@testable import StashEngine

/// `EngineState` alone: given a state and an input, the effects, in order. No actor, no disk,
/// no registry.
final class EngineStateTests: XCTestCase {
    static func makeState(_ edit: (inout DaemonConfig) -> Void = { _ in }, free: Int64 = 1 << 40) -> EngineState {
        var config = DaemonConfig()
        edit(&config)
        let clock = WallClock(now: { Date(timeIntervalSince1970: 2_000_000_000) }, sleep: { _ in })
        return EngineState(
            config: config, layout: AssetLayout(dataDir: "/data"), clock: clock,
            disk: DiskGauge(freeBytes: { free }, fileSize: { _ in nil }))
    }

    static func download(_ id: String, files: Int = 1, host: String = "h.test", state: DownloadState = .queued) -> Download {
        let list = (0..<files).map { DownloadFile(url: "http://\(host)/\(id)/\($0)", path: "\($0).bin") }
        return Download(
            id: id, uri: files == 1 ? list[0].url : "", title: "", state: state, assetPath: "assets/\(id)",
            isBundle: files > 1, files: list)
    }

    /// The effects as lines a test compares: the orders that matter, without the journal's
    /// lines and the storage cache's.
    static func describe(_ effects: [EngineEffect]) -> [String] {
        effects.compactMap { effect in
            switch effect {
            case .commit(let change, let event):
                let what: String
                switch change {
                case .add(let download)?: what = "add \(download.id) \(download.state.name)"
                case .save(let download)?: what = "save \(download.id) \(download.state.name)"
                case .saveFile(let id, let index, _)?, .noteFile(let id, let index, _)?: what = "file \(id)#\(index)"
                case .delete(let id)?: what = "delete \(id)"
                case .release?, .releaseDone?: what = "release"
                case nil: what = "-"
                }
                switch event {
                case .stateChanged(let download, _)?: return "commit \(what), then publish \(download.id) \(download.state.name)"
                case .progress(let update)?: return "commit \(what), then publish progress \(update.id)"
                case .some(let other): return "commit \(what), then publish \(other)"
                case nil: return "commit \(what)"
                }
            case .startTransfer(let id, let index, _, _): return "start \(id)#\(index)"
            case .stopTransfers(let id, let generations): return "stop \(id) (\(generations.count))"
            case .startPlanning(_, let download, _): return "plan \(download.id)"
            case .stopPlanning(let id, _): return "stop planning \(id)"
            case .removeAfterStop(let id, _): return "remove part of \(id)"
            case .syncFolders(let id, _, _): return "sync \(id)"
            case .flightStarted(let id): return "flight start \(id)"
            case .flightEnded(let id): return "flight end \(id)"
            case .watch(let download): return "watch \(download.id)"
            case .unwatch(let id): return "unwatch \(id)"
            case .license(.arm(let moment)): return moment == nil ? "licence timer off" : "licence timer"
            case .license(.renew(let id, _, _)): return "renew \(id)"
            case .license(.keep(let release)): return "keep release of \(release.downloadID)"
            case .arm(_, .storageRecheckDue): return "storage recheck"
            case .arm(_, .rateChangeDue): return "rate timer"
            case .arm(_, .retryDue(let id)): return "retry timer \(id)"
            case .arm: return "timer"
            case .setRateLimit(let rate): return "rate \(rate)"
            case .setGroupRateLimit(let group, let rate): return "rate \(group) \(rate)"
            case .swapReplacement(let id, _, _, _): return "swap \(id)"
            case .discardReplacement(let id, _, _): return "discard replacement of \(id)"
            case .markReplacementFolder(let id, _, _): return "mark replacement of \(id)"
            case .swapReplacementFolder(let id, _, _): return "swap folder of \(id)"
            case .startReplacePlanning(_, let download): return "plan replacement of \(download.id)"
            case .discardReplacementKeys(let id, _): return "discard replacement keys of \(id)"
            case .forgetStorageInfo, .log: return nil
            }
        }
    }

    /// Adds and commits `download` (the add's durable step included).
    static func add(_ download: Download, to state: inout EngineState) throws -> [EngineEffect] {
        try state.on(.add(download)) + state.on(.added(download.id))
    }

    static func notice(_ state: EngineState, _ id: String, _ index: Int = 0, _ event: FetchEvent) -> FetchNotice {
        FetchNotice(id: id, index: index, generation: state.entries[id]?.activity.transfers[index] ?? 0, event: event)
    }

    func testAnAddIsCommittedBeforeItIsQueuedAndScheduledAfter() throws {
        var state = Self.makeState()
        XCTAssertEqual(Self.describe(try state.on(.add(Self.download("a")))), ["commit add a QUEUED, then publish a QUEUED"])
        XCTAssertEqual(state.queue.waitingCount, 0, "queued only once on disk")
        XCTAssertEqual(Self.describe(try state.on(.added("a"))), [
            "flight start a", "commit save a PREPARING, then publish a PREPARING", "start a#0",
        ])
    }

    /// An add the registry refused is taken back: not listed, not indexed, never queued.
    func testARefusedAddIsTakenBackAndNeverQueued() throws {
        var state = Self.makeState()
        let download = Self.download("a")
        _ = try state.on(.add(download))
        XCTAssertTrue(try state.on(.addRefused(download)).isEmpty)
        XCTAssertNil(state.entries["a"])
        XCTAssertEqual(state.order, [])
        XCTAssertNil(state.holder(ofContent: EngineState.contentKey(download), hls: nil, drm: nil))
        XCTAssertTrue(try state.on(.schedule).isEmpty)
        XCTAssertEqual(state.queue.waitingCount, 0)
    }

    /// A pause stops the transfer before its PAUSED is committed; the slot it frees goes to
    /// the next download in the same decision.
    func testAPauseStopsTheTransferBeforeCommittingAndGivesTheSlotOn() throws {
        var state = Self.makeState { $0.maxParallel = 1 }
        _ = try Self.add(Self.download("a"), to: &state)
        XCTAssertEqual(Self.describe(try Self.add(Self.download("b"), to: &state)), ["commit add b QUEUED, then publish b QUEUED"])
        XCTAssertEqual(Self.describe(try state.on(.pause("a"))), [
            "stop a (1)", "flight end a", "commit save a PAUSED, then publish a PAUSED",
            "flight start b", "commit save b PREPARING, then publish b PREPARING", "start b#0",
        ])
        XCTAssertEqual(state.entries["a"]?.download.stateReason, "paused by a client")
    }

    func testACancelStopsTheTransferBeforeTheRemovalIsCommitted() throws {
        var state = Self.makeState()
        _ = try Self.add(Self.download("a", files: 3), to: &state)
        XCTAssertEqual(Self.describe(try state.on(.cancel("a"))), [
            "stop a (3)", "flight end a", "commit save a REMOVING, then publish a REMOVING",
        ])
        XCTAssertTrue(try state.on(.cancel("a")).isEmpty, "a second cancel changes nothing")
    }

    /// The crash guard's FAILED is the lifecycle's: an active record is failed with the
    /// transfer's end noted; a record the guard does not apply to is refused, unchanged.
    func testTheCrashGuardsFailureGoesThroughTheLifecycle() throws {
        var state = Self.makeState()
        _ = try state.on(.load(Self.download("a", state: .downloading)))
        XCTAssertEqual(Self.describe(try state.on(.crashed("a", exits: 2))), [
            "flight end a", "commit save a FAILED, then publish a FAILED",
        ])
        let failed = try XCTUnwrap(state.entries["a"]?.download)
        XCTAssertEqual(failed.error?.message, CrashGuard.reason(exits: 2))
        XCTAssertEqual(state.entries["a"]?.lifecycle.state, .failed)

        _ = try state.on(.load(Self.download("done", state: .completed)))
        XCTAssertThrowsError(try state.on(.crashed("done", exits: 2))) { error in
            XCTAssertEqual((error as? StashError)?.code, .failedPrecondition)
        }
        XCTAssertEqual(state.entries["done"]?.download.state, .completed)
    }

    /// Every move in or out of the states that hold complete files follows the disk watch,
    /// and a completed download with a licence looks at its licence's timer.
    func testACompletionIsWatchedAndALicensedOneArmsTheTimer() throws {
        var state = Self.makeState()
        var download = Self.download("a")
        download.license = LicenseTerms(acquiredAt: Date(timeIntervalSince1970: 2_000_000_000), expiresIn: 1000, playbackDuration: nil, kids: ["k"])
        _ = try Self.add(download, to: &state)
        let effects = Self.describe(try state.on(.transfer(Self.notice(state, "a", 0, .completed(bytes: 10, sha256: "")))))
        XCTAssertEqual(effects, [
            "commit file a#0", "flight end a", "licence timer", "watch a", "commit save a COMPLETED, then publish a COMPLETED",
        ])
        // No /data on this machine: the disk watch's look finds the file gone.
        XCTAssertEqual(Self.describe(try state.on(.maintenance(.diskChanged(["a"])))), [
            "unwatch a", "commit save a FAILED, then publish a FAILED",
        ])
    }

    func testAnEventOfAnEarlierTransferChangesNothing() throws {
        var state = Self.makeState()
        _ = try Self.add(Self.download("a"), to: &state)
        let stale = FetchNotice(id: "a", index: 0, generation: 999, event: .failed(DownloadError(.http, "old")))
        XCTAssertTrue(try state.on(.transfer(stale)).isEmpty)
        XCTAssertEqual(state.entries["a"]?.download.state, .preparing)
    }
}
