import Foundation
import StashCore

/// What `EngineState.on(_:)` decides upon: a fact. A client asked, a transfer reported, a timer
/// fired, a planning or a teardown ended, the daemon starts or stops.
enum EngineInput {
    // MARK: Start and stop of the daemon

    /// A record read from the registry at start, as it was stored.
    case load(Download)
    /// `CrashGuard` found the download transferring during `exits` unclean exits in a row.
    case crashed(String, exits: Int)
    /// A loaded record is moved to where it belongs after a restart; `problem` is what is
    /// wrong with the files it should have on disk.
    case recover(String, problem: String?)
    /// Nothing more is started or handled; transfers are being shut down.
    case shutdown
    /// The fetch workers have stopped: what the active downloads hold is saved.
    case fetchStopped

    // MARK: Requests

    /// A new download (AddDownload, Adopt): it is entered and committed.
    case add(Download)
    /// The registry refused the add: it is taken back, unless something moved it on meanwhile.
    case addRefused(Download)
    /// The add is durable: the download waits for a slot.
    case added(String)
    case pause(String)
    case stop(String, reason: String)
    case resume(String)
    case cancel(String)
    /// Fetch a COMPLETED download again beside its old copy (add with replace), checked by a
    /// sha256 when given (a single file) or by the add's files' digests.
    case replace(String, sha256: String, files: [DownloadFile])
    /// A folder copy's renames are durable and its marker made (`failure` nil), or not.
    case replacementMarked(String, failure: String?)
    /// A replacement's rename over the old copy ended (`failure` nil: it is in place).
    case replacementSwapped(String, failure: String?)
    /// A removed download's files are deleted: its record goes.
    case removed(String)
    case configChanged(DaemonConfig)
    /// SetDownload, applied whole or not at all (`EngineState+SetDownload`): its priority
    /// (`EngineState+Queue`), rate limit and URL (`EngineState+Update`), headers and licence
    /// headers (`EngineState+Headers`), network and on-battery rules (`EngineState+Desktop`).
    case setDownload(DownloadChanges)
    /// Move: a queued download's place in the queue.
    case move(String, QueueMove)

    // MARK: Reports

    /// Give free download slots and transfer slots to what waits for them.
    case schedule
    case transfer(FetchNotice)
    /// Every transfer of the download that was being stopped is torn down.
    case transfersStopped(String)
    /// A bundle's folders were synced (`synced` files covered), or `failure` says why not.
    case foldersSynced(String, failure: DownloadError?, synced: Int)
    case planned(String, generation: UInt64, Result<HLSPreparation.Prepared, Error>)
    case planningWaitsForNetwork(String, generation: UInt64)
    /// The storage recheck's timer fired.
    case storageRecheckDue
    /// The rate schedule's timer armed with `generation` fired (`EngineState+RateSchedule`).
    case rateChangeDue(generation: UInt64)
    /// A retry's backoff of the download may be over: the download's, waiting in the queue,
    /// or one of its files' (`EngineState+Retry`).
    case retryDue(String)
    /// The licence manager's result or timer (`EngineState+License`).
    case license(LicenseReport)
    /// What the desktop says changed: a metered network, battery power (`EngineState+Desktop`).
    case desktop(DesktopConditions)

    // MARK: Maintenance services

    /// A fact of verify, adopt, forget, the disk watch, append or subtitles.
    case maintenance(MaintenanceInput)
}
