import StashCore

/// The state machine of one download, as a value: `on(_:)` checks a transition, moves the
/// state and says what the engine must do; the engine does the I/O, and only what the action
/// says: every move into an active state is `.startTransfer`, every move out of one
/// `.stopTransfer` or `.remove` (`DownloadLifecycleTests` checks it for every state and
/// input), but for the desktop's wait: WAITING_FOR_NETWORK for a metered network or battery
/// power holds no transfer, so it is entered and left with a commit. Every transition is
/// therefore testable without a network, a disk or a clock.
package struct DownloadLifecycle: Equatable, Sendable {
    package private(set) var state: DownloadState

    package init(state: DownloadState) {
        self.state = state
    }

    package enum Input: Equatable, Sendable {
        /// The scheduler gave the download a transfer slot.
        case schedule
        /// Response headers arrived: bytes are flowing.
        case transferStarted
        case networkLost
        case transferCompleted
        case transferFailed
        case pause
        /// A client stopped it with a reason of its own (Media3's stop reason): like a pause,
        /// but told apart, and left alone by anything but an explicit resume.
        case stop
        /// A transfer starts over from byte 0 (the server ignored the range, or the file
        /// changed on it): RESTARTING until bytes flow again.
        case restart
        case resume
        case cancel
        /// The download was put back in the queue by the engine (lower max-parallel).
        case requeue
        /// Verify found files of a complete download missing or damaged: fetch them again.
        case repair
        /// The licence of a completed download ran out (renewable).
        case licenseExpired
        /// The licence server refused to renew, or the playback window ended: final.
        case drmExpired
        /// A licence was granted or renewed: an expired download is complete again.
        case licenseRestored
        /// The daemon starts and finds this record; `fileIntact` says whether a completed
        /// download's file is on disk with the right size.
        case recover(fileIntact: Bool)
        /// While the daemon runs, a file of a complete download was found missing, truncated
        /// or replaced (the disk watch, or a verify).
        case filesLost
        /// The desktop says the download must wait (a metered network, battery power): a
        /// queued or running one waits in WAITING_FOR_NETWORK without a slot or a transfer,
        /// keeping its bytes (`EngineState+Desktop`).
        case desktopWait
        /// What it waited for is gone: back to the queue.
        case desktopClear
        /// At a start, `CrashGuard` found the download transferring during too many unclean
        /// exits in a row: it fails instead of starting again (the registry may still say
        /// QUEUED when the crash came before its PREPARING was committed).
        case crashed
    }

    package enum Action: Equatable, Sendable {
        /// Nothing to do: the input does not change anything (e.g. pausing a paused download).
        case none
        /// Persist and announce the new state.
        case commit
        /// Start a transfer, then persist and announce.
        case startTransfer
        /// Stop the transfer (keeping its partial file; after a completion there is none left,
        /// but the download gives up its slot), then persist and announce.
        case stopTransfer
        /// Stop any transfer, delete the files and the record.
        case remove
    }

    /// Applies one input. Throws FAILED_PRECONDITION for a request that makes no sense in the
    /// current state (e.g. pausing a completed download), naming both.
    package mutating func on(_ input: Input) throws -> Action {
        switch (input, state) {
        case (.schedule, .queued):
            state = .preparing
            return .startTransfer

        case (.transferStarted, .preparing), (.transferStarted, .waitingForNetwork), (.transferStarted, .restarting):
            state = .downloading
            return .commit
        case (.transferStarted, .downloading):
            return .none

        case (.networkLost, .preparing), (.networkLost, .downloading), (.networkLost, .restarting):
            state = .waitingForNetwork
            return .commit
        case (.networkLost, .waitingForNetwork):
            return .none

        case (.desktopWait, .queued):
            state = .waitingForNetwork
            return .commit
        case (.desktopWait, let s) where s.isActive:
            state = .waitingForNetwork
            return .stopTransfer
        case (.desktopClear, .waitingForNetwork):
            state = .queued
            return .commit

        case (.transferCompleted, let s) where s.isActive:
            state = .completed
            return .stopTransfer
        case (.transferFailed, let s) where s.isActive:
            state = .failed
            return .stopTransfer
        case (.transferFailed, .queued):
            // One that can never start (a size no disk holds) fails without starting.
            state = .failed
            return .commit

        case (.pause, .queued):
            state = .paused
            return .commit
        case (.pause, let s) where s.isActive:
            state = .paused
            return .stopTransfer
        case (.pause, .paused):
            return .none

        case (.stop, .queued), (.stop, .paused):
            state = .stopped
            return .commit
        case (.stop, let s) where s.isActive:
            state = .stopped
            return .stopTransfer
        case (.stop, .stopped):
            // Again, perhaps with another reason: the record takes it.
            return .commit

        case (.restart, .preparing), (.restart, .downloading), (.restart, .waitingForNetwork):
            state = .restarting
            return .commit
        case (.restart, .restarting):
            return .none

        case (.resume, .paused), (.resume, .failed), (.resume, .stopped):
            state = .queued
            return .commit
        case (.resume, let s) where s == .queued || s.isActive:
            return .none

        case (.requeue, let s) where s.isActive:
            state = .queued
            return .stopTransfer

        case (.repair, .completed), (.repair, .failed), (.repair, .licenseExpired), (.repair, .drmExpired):
            state = .queued
            return .commit

        case (.licenseExpired, .completed):
            state = .licenseExpired
            return .commit
        case (.drmExpired, .completed), (.drmExpired, .licenseExpired):
            state = .drmExpired
            return .commit
        case (.licenseRestored, .licenseExpired), (.licenseRestored, .drmExpired):
            state = .completed
            return .commit
        case (.licenseExpired, .licenseExpired), (.drmExpired, .drmExpired), (.licenseRestored, .completed):
            return .none

        case (.cancel, .removing):
            return .none
        case (.cancel, _):
            state = .removing
            return .remove

        case (.recover(_), let s) where s.isActive:
            // Nothing runs yet at a start; the action says what the state change means.
            state = .queued
            return .stopTransfer
        case (.recover(let intact), .completed), (.recover(let intact), .licenseExpired), (.recover(let intact), .drmExpired):
            // An expired licence does not make missing files less missing: a renewal must not
            // turn a damaged download back into a COMPLETED one.
            if intact { return .none }
            state = .failed
            return .commit
        case (.filesLost, .completed), (.filesLost, .licenseExpired), (.filesLost, .drmExpired):
            // As at a start: whatever the licence says, the files are no longer all there.
            state = .failed
            return .commit
        case (.filesLost, _):
            // Not complete: its files are fetched (or were given up) anyway.
            return .none

        case (.crashed, .queued):
            state = .failed
            return .commit
        case (.crashed, let s) where s.isActive:
            // As `.recover`: nothing runs yet at a start.
            state = .failed
            return .stopTransfer

        case (.recover(_), .removing):
            return .remove
        case (.recover(_), _):
            return .none

        default:
            throw StashError(.failedPrecondition, "cannot \(input.verb) a download that is \(state.name)")
        }
    }
}

extension DownloadLifecycle.Input {
    var verb: String {
        switch self {
        case .schedule: return "schedule"
        case .transferStarted: return "start"
        case .networkLost: return "wait for network on"
        case .transferCompleted: return "complete"
        case .transferFailed: return "fail"
        case .pause: return "pause"
        case .stop: return "stop"
        case .restart: return "restart"
        case .resume: return "resume"
        case .cancel: return "cancel"
        case .requeue: return "requeue"
        case .repair: return "repair"
        case .recover: return "recover"
        case .filesLost: return "find files lost of"
        case .licenseExpired: return "expire the licence of"
        case .drmExpired: return "end the DRM of"
        case .licenseRestored: return "restore the licence of"
        case .crashed: return "fail after crashes"
        case .desktopWait: return "hold for the desktop's conditions"
        case .desktopClear: return "release from the desktop's conditions"
        }
    }
}
