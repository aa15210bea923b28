import StashCore
import XCTest

@testable import StashEngine

final class DownloadLifecycleTests: XCTestCase {
    private func run(_ start: DownloadState, _ input: DownloadLifecycle.Input) throws -> (DownloadState, DownloadLifecycle.Action) {
        var machine = DownloadLifecycle(state: start)
        let action = try machine.on(input)
        return (machine.state, action)
    }

    func testHappyPath() throws {
        var machine = DownloadLifecycle(state: .queued)
        XCTAssertEqual(try machine.on(.schedule), .startTransfer)
        XCTAssertEqual(machine.state, .preparing)
        XCTAssertEqual(try machine.on(.transferStarted), .commit)
        XCTAssertEqual(machine.state, .downloading)
        XCTAssertEqual(try machine.on(.transferStarted), .none, "headers again after a retry change nothing")
        XCTAssertEqual(try machine.on(.transferCompleted), .commit)
        XCTAssertEqual(machine.state, .completed)
    }

    func testNetworkLossAndReturn() throws {
        var machine = DownloadLifecycle(state: .downloading)
        XCTAssertEqual(try machine.on(.networkLost), .commit)
        XCTAssertEqual(machine.state, .waitingForNetwork)
        XCTAssertEqual(try machine.on(.networkLost), .none)
        XCTAssertEqual(try machine.on(.transferStarted), .commit)
        XCTAssertEqual(machine.state, .downloading)
    }

    func testPauseStopsActiveTransfersOnly() throws {
        XCTAssertEqual(try run(.downloading, .pause).1, .stopTransfer)
        XCTAssertEqual(try run(.preparing, .pause).1, .stopTransfer)
        XCTAssertEqual(try run(.waitingForNetwork, .pause).1, .stopTransfer)
        XCTAssertEqual(try run(.queued, .pause).1, .commit)
        XCTAssertEqual(try run(.paused, .pause).1, .none)
        XCTAssertThrowsError(try run(.completed, .pause)) { error in
            XCTAssertEqual((error as? StashError)?.code, .failedPrecondition)
            XCTAssertTrue("\(error)".contains("COMPLETED"), "the error names the state: \(error)")
        }
    }

    func testResumeRequeues() throws {
        for state in [DownloadState.paused, .failed, .stopped] {
            let (next, action) = try run(state, .resume)
            XCTAssertEqual(next, .queued, "resume from \(state.name)")
            XCTAssertEqual(action, .commit)
        }
        XCTAssertEqual(try run(.downloading, .resume).1, .none)
        XCTAssertEqual(try run(.queued, .resume).1, .none)
        XCTAssertThrowsError(try run(.completed, .resume))
    }

    func testCancelFromEveryStateRemoves() throws {
        for state in DownloadState.allCases where state != .removing {
            let (next, action) = try run(state, .cancel)
            XCTAssertEqual(next, .removing)
            XCTAssertEqual(action, .remove)
        }
        XCTAssertEqual(try run(.removing, .cancel).1, .none)
    }

    func testRecoveryAfterRestart() throws {
        for state in [DownloadState.preparing, .downloading, .waitingForNetwork, .restarting] {
            XCTAssertEqual(try run(state, .recover(fileIntact: true)).0, .queued, "\(state.name) resumes")
        }
        XCTAssertEqual(try run(.paused, .recover(fileIntact: true)).0, .paused)
        XCTAssertEqual(try run(.completed, .recover(fileIntact: true)).1, .none)
        XCTAssertEqual(try run(.completed, .recover(fileIntact: false)).0, .failed)
        XCTAssertEqual(try run(.removing, .recover(fileIntact: true)).1, .remove)
    }

    func testEventsFromFinishedTransfersAreRefused() {
        XCTAssertThrowsError(try run(.paused, .transferCompleted))
        XCTAssertThrowsError(try run(.completed, .transferFailed))
        XCTAssertThrowsError(try run(.queued, .transferStarted))
    }

    func testRequeueOnlyActive() throws {
        XCTAssertEqual(try run(.downloading, .requeue).0, .queued)
        XCTAssertEqual(try run(.downloading, .requeue).1, .stopTransfer)
        XCTAssertThrowsError(try run(.paused, .requeue))
    }

    func testRepairRequeuesOnlyCompleteOrFailedDownloads() throws {
        XCTAssertEqual(try run(.completed, .repair).0, .queued)
        XCTAssertEqual(try run(.completed, .repair).1, .commit)
        XCTAssertEqual(try run(.failed, .repair).0, .queued)
        XCTAssertThrowsError(try run(.downloading, .repair))
        XCTAssertThrowsError(try run(.paused, .repair))
    }
}
