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
        XCTAssertEqual(try machine.on(.transferCompleted), .stopTransfer, "the slot is given up")
        XCTAssertEqual(machine.state, .completed)
    }

    /// The engine acts on the action alone, so every way into an active state must say
    /// start, and every way out must say stop or remove.
    func testEverySideEffectIsInTheAction() {
        let inputs: [DownloadLifecycle.Input] = [
            .schedule, .transferStarted, .networkLost, .transferCompleted, .transferFailed, .pause, .resume, .cancel,
            .requeue, .repair, .licenseExpired, .drmExpired, .licenseRestored, .recover(fileIntact: true), .recover(fileIntact: false), .filesLost, .stop, .restart, .crashed,
        ]
        for state in DownloadState.allCases {
            for input in inputs {
                var machine = DownloadLifecycle(state: state)
                guard let action = try? machine.on(input) else { continue }
                let transition = "\(state.name) + \(input)"
                if !state.isActive && machine.state.isActive {
                    XCTAssertEqual(action, .startTransfer, transition)
                }
                if state.isActive && !machine.state.isActive {
                    XCTAssertTrue(action == .stopTransfer || action == .remove, "\(transition) gives \(action)")
                }
                if action == .startTransfer { XCTAssertTrue(machine.state.isActive, transition) }
                if action == .remove { XCTAssertEqual(machine.state, .removing, transition) }
            }
        }
    }

    /// WAITING_FOR_NETWORK for the desktop (a metered network, battery power) holds no slot
    /// and no transfer: a queued download enters it with a commit, a running one stops its
    /// transfer, and it leaves for the queue with a commit.
    func testTheDesktopsWaitHoldsNoTransfer() throws {
        for state in DownloadState.allCases {
            var machine = DownloadLifecycle(state: state)
            guard let action = try? machine.on(.desktopWait) else { continue }
            XCTAssertEqual(machine.state, .waitingForNetwork, state.name)
            XCTAssertEqual(action, state == .queued ? .commit : .stopTransfer, state.name)
            XCTAssertTrue(state == .queued || state.isActive, state.name)
        }
        var machine = DownloadLifecycle(state: .waitingForNetwork)
        XCTAssertEqual(try machine.on(.desktopClear), .commit)
        XCTAssertEqual(machine.state, .queued)
        var paused = DownloadLifecycle(state: .paused)
        XCTAssertThrowsError(try paused.on(.desktopClear))
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
        for state in [DownloadState.licenseExpired, .drmExpired] {
            XCTAssertEqual(try run(state, .recover(fileIntact: true)).1, .none, "\(state.name) stays while its files are whole")
            XCTAssertEqual(try run(state, .recover(fileIntact: false)).0, .failed, "\(state.name) with files missing is not complete")
        }
    }

    func testStopIsAPauseToldApartThatOnlyResumeLifts() throws {
        for state in [DownloadState.queued, .paused] {
            XCTAssertEqual(try run(state, .stop).0, .stopped, state.name)
            XCTAssertEqual(try run(state, .stop).1, .commit, state.name)
        }
        for state in DownloadState.allCases where state.isActive {
            XCTAssertEqual(try run(state, .stop).0, .stopped, state.name)
            XCTAssertEqual(try run(state, .stop).1, .stopTransfer, state.name)
        }
        XCTAssertEqual(try run(.stopped, .stop).1, .commit, "a new reason is recorded")
        XCTAssertThrowsError(try run(.completed, .stop))
        XCTAssertThrowsError(try run(.failed, .stop))
        XCTAssertThrowsError(try run(.stopped, .pause))
        XCTAssertEqual(try run(.stopped, .resume).0, .queued)
    }

    func testARestartIsShownUntilBytesFlowAgain() throws {
        XCTAssertEqual(try run(.downloading, .restart).0, .restarting)
        XCTAssertEqual(try run(.downloading, .restart).1, .commit)
        XCTAssertEqual(try run(.restarting, .restart).1, .none)
        XCTAssertEqual(try run(.restarting, .transferStarted).0, .downloading)
        XCTAssertThrowsError(try run(.paused, .restart))
    }

    func testFilesLostWhileRunningFailOnlyADownloadThatHeldThem() throws {
        for state in [DownloadState.completed, .licenseExpired, .drmExpired] {
            XCTAssertEqual(try run(state, .filesLost).0, .failed, state.name)
            XCTAssertEqual(try run(state, .filesLost).1, .commit, state.name)
        }
        for state in DownloadState.allCases where ![.completed, .licenseExpired, .drmExpired].contains(state) {
            XCTAssertEqual(try run(state, .filesLost).0, state, state.name)
            XCTAssertEqual(try run(state, .filesLost).1, .none, state.name)
        }
    }

    func testEventsFromFinishedTransfersAreRefused() {
        XCTAssertThrowsError(try run(.paused, .transferCompleted))
        XCTAssertThrowsError(try run(.completed, .transferFailed))
        XCTAssertThrowsError(try run(.queued, .transferStarted))
    }

    /// A queued download whose size no disk holds fails where it waits, with nothing to stop.
    func testAQueuedDownloadCanFailWithoutStarting() throws {
        XCTAssertEqual(try run(.queued, .transferFailed).0, .failed)
        XCTAssertEqual(try run(.queued, .transferFailed).1, .commit)
        XCTAssertThrowsError(try run(.paused, .transferFailed))
    }

    func testRequeueOnlyActive() throws {
        XCTAssertEqual(try run(.downloading, .requeue).0, .queued)
        XCTAssertEqual(try run(.downloading, .requeue).1, .stopTransfer)
        XCTAssertThrowsError(try run(.paused, .requeue))
    }

    func testRepairRequeuesOnlyCompleteOrFailedDownloads() throws {
        XCTAssertEqual(try run(.completed, .repair).0, .queued)
        XCTAssertEqual(try run(.licenseExpired, .repair).0, .queued, "its files are fetched again; the licence timer moves it back")
        XCTAssertEqual(try run(.drmExpired, .repair).0, .queued)
        XCTAssertEqual(try run(.completed, .repair).1, .commit)
        XCTAssertEqual(try run(.failed, .repair).0, .queued)
        XCTAssertThrowsError(try run(.downloading, .repair))
        XCTAssertThrowsError(try run(.paused, .repair))
    }

    // MARK: - Licences

    func testLicenceExpiryAndRestoreOfACompletedDownload() throws {
        var machine = DownloadLifecycle(state: .completed)
        XCTAssertEqual(try machine.on(.licenseExpired), .commit)
        XCTAssertEqual(machine.state, .licenseExpired)
        XCTAssertEqual(try machine.on(.licenseExpired), .none, "the renewal timer may see the same expiry twice")
        XCTAssertEqual(machine.state, .licenseExpired)
        XCTAssertEqual(try machine.on(.licenseRestored), .commit)
        XCTAssertEqual(machine.state, .completed)
        XCTAssertEqual(try machine.on(.licenseRestored), .none, "a renewal of a valid licence changes no state")
        XCTAssertEqual(machine.state, .completed)
    }

    func testDRMExpiryFromCompletedOrLicenceExpired() throws {
        XCTAssertEqual(try run(.completed, .drmExpired).0, .drmExpired, "a playback window can end before the licence")
        XCTAssertEqual(try run(.completed, .drmExpired).1, .commit)
        XCTAssertEqual(try run(.licenseExpired, .drmExpired).0, .drmExpired, "the server refused the renewal")
        XCTAssertEqual(try run(.licenseExpired, .drmExpired).1, .commit)
        XCTAssertEqual(try run(.drmExpired, .drmExpired).0, .drmExpired)
        XCTAssertEqual(try run(.drmExpired, .drmExpired).1, .none)
        // A licence granted again (DownloadLicense) brings even a final expiry back.
        XCTAssertEqual(try run(.drmExpired, .licenseRestored).0, .completed)
        XCTAssertEqual(try run(.drmExpired, .licenseRestored).1, .commit)
    }

    /// DRM_EXPIRED is final for the timer: an ordinary licence expiry must not turn it back
    /// into the renewable LICENSE_EXPIRED.
    func testLicenceExpiryDoesNotUndoADRMExpiry() {
        assertFailedPrecondition(.drmExpired, .licenseExpired, mentions: ["expire the licence of", "DRM_EXPIRED"])
    }

    /// Only a complete download has a licence that can run out or come back; anything else
    /// (a transfer in flight, a queued or paused download) is refused, naming the verb and state.
    func testLicenceInputsOutsideTheirStatesAreRefused() throws {
        let allowed: [(DownloadLifecycle.Input, Set<DownloadState>)] = [
            (.licenseExpired, [.completed, .licenseExpired]),
            (.drmExpired, [.completed, .licenseExpired, .drmExpired]),
            (.licenseRestored, [.completed, .licenseExpired, .drmExpired]),
        ]
        for (input, states) in allowed {
            for state in DownloadState.allCases where !states.contains(state) {
                assertFailedPrecondition(state, input, mentions: [input.verb, state.name])
            }
        }
        assertFailedPrecondition(.downloading, .licenseExpired, mentions: ["cannot expire the licence of a download that is DOWNLOADING"])
        assertFailedPrecondition(.queued, .licenseRestored, mentions: ["cannot restore the licence of a download that is QUEUED"])
        assertFailedPrecondition(.failed, .drmExpired, mentions: ["cannot end the DRM of a download that is FAILED"])
    }

    func testExpiredDownloadsCannotBeResumedButCanBeCancelled() throws {
        for state in [DownloadState.licenseExpired, .drmExpired] {
            assertFailedPrecondition(state, .resume, mentions: [state.name])
            assertFailedPrecondition(state, .pause, mentions: [state.name])
            XCTAssertEqual(try run(state, .cancel).1, .remove)
        }
    }

    private func assertFailedPrecondition(_ state: DownloadState, _ input: DownloadLifecycle.Input, mentions: [String],
                                          file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try run(state, input), "\(input) in \(state.name)", file: file, line: line) { error in
            guard let error = error as? StashError else { return XCTFail("not a StashError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, .failedPrecondition, error.message, file: file, line: line)
            for text in mentions {
                XCTAssertTrue(error.message.contains(text), "'\(error.message)' does not mention '\(text)'", file: file, line: line)
            }
        }
    }
}
