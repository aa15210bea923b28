import CLinux
import Foundation
import Logging
import StashCore
import StashFetch
import StashKeys
import StashStore

/// The engine: the only writer of download state. Its decisions are made in one value,
/// `EngineState` (`on(input) -> [EngineEffect]`); this actor feeds it the facts (requests,
/// fetch events, timers) and carries out the effects it returns, in order: it starts and stops
/// transfers on the fetch service, commits every change to the registry before anyone hears of
/// it, publishes events, and keeps the flight log, the disk watch and the timers.
///
/// Requests and fetch events are both handled on this actor; the synchronous part of each
/// (the decision, queueing its commit) runs without suspension, so no two of them interleave
/// halfway.
package actor Engine {
    let layout: AssetLayout
    let registry: Registry
    let fetch: any FetchService
    let keys: KeyStore
    let bus: EventBus
    let commits: CommitQueue
    let logger: Logger
    /// Every decision of the engine: see `EngineState`.
    var state: EngineState
    package var config: DaemonConfig { state.config }

    /// Read without the actor: see `RecordCache`.
    nonisolated let records: RecordCache
    /// The fetch service's handle of each transfer `EngineState` started, by its generation.
    var transfers: [UInt64: TransferID] = [:]
    /// The plannings under way.
    let planner = Planner()
    let notices = NoticeInbox()
    /// Transfers and plannings being torn down, so a removal can wait for their files to be closed.
    let teardowns = Teardowns()
    /// Licences: a client's requests, renewals, releases, the outbox and the licence timer.
    package nonisolated let licenses: LicenseManager
    /// The threads blocking file work runs on: the maintenance services' and, on a thread of
    /// its own that no long job holds, the deletion of removed downloads.
    let files = FilePool()
    let removals = FilePool(threads: 1)
    /// Verify and purge, adopt, forget, append, subtitles, the disk watch, storage figures.
    package nonisolated let maintenance: Maintenance
    /// Which downloads were transferring if stashd dies: see `CrashGuard`.
    let flight: FlightLog
    /// How many downloads are active, for the daemon's sleep inhibitor.
    package nonisolated let activity = ActivityWatch()
    package nonisolated let clock: WallClock

    /// The downloads, for the requests that read one (export).
    var entries: EntryTable { state.entries }

    /// `clock` and `network` are what the engine's timers and licence renewals read, `disk` its
    /// free space and file sizes: the system's unless a test gives its own.
    package init(
        dataDir: String, socketPath: String, registry: Registry, fetch: any FetchService, keys: KeyStore, config: DaemonConfig, logger: Logger,
        clock: WallClock = .system, network: NetworkMonitor = .system, diskWatch: DiskWatchSettings = DiskWatchSettings(), disk: DiskGauge? = nil
    ) {
        self.clock = clock
        self.bus = EventBus(clock: clock)
        self.keys = keys
        let layout = AssetLayout(dataDir: dataDir)
        self.layout = layout
        self.registry = registry
        self.fetch = fetch
        self.state = EngineState(config: config, layout: layout, clock: clock, disk: disk ?? .system(assetsDir: layout.assetsDir), network: network, logLevel: logger.logLevel)
        self.logger = logger
        self.records = state.entries.cache
        self.commits = CommitQueue(registry: registry, bus: bus, cache: state.entries.cache)
        self.licenses = LicenseManager(fetch: fetch, keys: keys, commits: commits, clock: clock, logger: logger)
        self.flight = FlightLog(dataDir: dataDir, logger: logger)
        self.maintenance = Maintenance(
            layout: layout, keys: keys, files: files, commits: commits, clock: clock, logger: logger, socketPath: socketPath, diskWatch: diskWatch)
    }

    /// Loads the registry, reconciles it with the disk, and starts what was queued or running.
    package func start() async throws {
        try FileManager.default.createDirectory(atPath: layout.assetsDir, withIntermediateDirectories: true)
        ForgetJournal(dataDir: layout.dataDir).cleanUp(logger: logger)
        licenses.attach(self)
        maintenance.attach(self)
        perform(state.startRateSchedule())
        var loaded = try registry.loadAll()
        for problem in loaded.problems {
            logger.warning("registry record skipped or repaired", metadata: ["problem": "\(problem)"])
        }
        ReplacementSwap.finishAtStart(loaded.downloads, layout: layout, keys: keys, logger: logger)
        let crashGuard = CrashGuard(log: flight.previous())
        flight.begin(header: crashGuard.header)
        let verifyStarted = clock.now()
        let orphanScan = maintenance.verifier.scanOrphans(owners: loaded.downloads.flatMap { [$0.id] + Replacement.folders(of: $0) })
        let sizes = LoadedFileSizes(
            loaded.downloads, assetsDir: layout.assetsDir, folders: AssetScanner.names(in: layout.assetsDir), probe: state.disk.regularFileSizes)
        let recovery = state.enterLoaded(&loaded.downloads, sizes: sizes, crashGuard: crashGuard)
        // The entries and the record cache now hold the only copies.
        loaded.downloads = []
        let tickets = recovery.effects.compactMap(perform)
        // A registry that cannot be written (a full disk) does not keep stashd from starting:
        // cancel and purge are how space is freed, and they need a running daemon.
        do {
            for ticket in tickets { try await ticket.wait() }
            for id in recovery.removals { try await finishRemoval(id) }
        } catch {
            let warning = "at start the registry could not be written (\(error)); the records keep their last committed state until it can"
            logger.error("registry writes fail at start; starting anyway", metadata: ["error": "\(error)"])
            maintenance.warn(warning)
        }
        maintenance.verifier.atStart(
            findings: recovery.findings, downloadsChecked: state.entries.count, filesChecked: recovery.filesChecked, started: verifyStarted,
            orphans: await orphanScan.value)
        try licenses.loadOutbox(from: registry)
        notices.attach { [weak self] in self?.handleNoticesLater() }
        let notices = self.notices
        fetch.observePasses(FetchPasses(began: { notices.hold() }, ended: { notices.release() }))
        // Right after the start, not in it: the socket opens without waiting for the list of
        // folders to watch.
        Task { await maintenance.startDiskWatch() }
        // Loading freed as much as it kept (rows, paths, the load's lists), in holes all over
        // the heap that glibc keeps: given back, 100,000 records hold 14 MB less at rest.
        _ = malloc_trim(0)
        logger.info("engine started", metadata: ["downloads": "\(state.entries.count)", "queued": "\(state.queue.waitingCount)"])
        run(.schedule)
        run(.license(.timer))
        licenses.sendReleases(config)
    }

    /// Stops every transfer and waits for the registry to hold the last state. Partial files
    /// stay; active downloads go back to the queue on the next start.
    package func shutdown() async {
        run(.shutdown)
        licenses.close()
        await fetch.shutdown()
        let last = run(.fetchStopped)
        try? await last?.wait()
        flight.removeAfterCleanStop()
        maintenance.diskWatch.close()
        files.close()
        removals.close()
        notices.close()
        bus.finishAll()
    }

    // MARK: - Requests

    /// Adds a download: one file from `uri`, a bundle of `files`, or an HLS stream (`hls`
    /// given, or a `uri` whose path ends in .m3u8); checked by `AddRequest`, decided by
    /// `EngineState.decideAdd` (an id or content already there: `created` false). `textTracks`
    /// are side-loaded subtitle files fetched with it (`TextTrackRules`).
    package func add(_ request: AddRequest) async throws -> (download: Download, created: Bool) {
        try AddBurst.only(await add([Result { try request.validated() }]))
    }

    /// Adds a burst of requests (`AddBurst`); the answers are in their order.
    package func add(_ requests: [AddRequest]) async -> [Result<(download: Download, created: Bool), Error>] {
        await add(requests.map { request in Result { try request.validated() } })
    }

    private func add(_ adds: [Result<NewDownload, Error>]) async -> [AddBurst.Answer] {
        var generator = SystemRandomNumberGenerator()
        var burst = state.decideAdds(adds, using: &generator)
        let tickets = burst.created.map { perform($0.effects) }
        for ((index, download, _), ticket) in zip(burst.created, tickets) {
            do {
                // Queued only once on disk: a download the registry refused (a full disk) must
                // not leave a transfer and a folder behind.
                try await ticket?.wait()
                run(.added(download.id))
                // The record as committed: later states reach the client as events once they are.
                burst.answers[index] = .success((publicView(download), true))
            } catch {
                run(.addRefused(download))
                burst.answers[index] = .failure(error)
            }
        }
        for (index, new) in burst.alone {
            do { burst.answers[index] = .success(try await addAlone(new)) } catch { burst.answers[index] = .failure(error) }
        }
        return burst.finished
    }

    /// A replace, or an add of content another download holds.
    private func addAlone(_ new: NewDownload) async throws -> (download: Download, created: Bool) {
        var generator = SystemRandomNumberGenerator()
        switch try state.decideAdd(new, using: &generator) {
        case .replace(let id):
            // Answered with the record that says a replace is under way, once it is durable.
            return (publicView(try await answer(.replace(id, sha256: new.sha256, files: new.files), id: id)), false)
        case .heldBy(let holder):
            // Answered once the holder's own add is durable (it may be in the same list, a
            // moment earlier): commit before tell.
            try await flush()
            if let current = state.heldContent(holder) { return (publicView(current), false) }
        case .existing, .create:
            break
        }
        // Moved on meanwhile (the holder is gone): an add as any other.
        return try AddBurst.only(await add([.success(new)]))
    }

    /// Enters a new download (AddDownload, Adopt) and returns once its record is committed.
    /// It is indexed at once, so the same URL twice in one pipelined list is one download; a
    /// record the registry refuses is taken back, unless something moved it on meanwhile.
    func insert(_ download: Download) async throws {
        let ticket = perform(try state.on(.add(download)))
        do {
            try await ticket?.wait()
        } catch {
            run(.addRefused(download))
            throw error
        }
    }

    package func pause(id: String) async throws -> Download {
        try await answer(.pause(id), id: id)
    }

    /// Stops the download with the app's reason: STOPPED, told apart from PAUSED, and started
    /// again only by a resume.
    package func stop(id: String, reason: String) async throws -> Download {
        try DownloadRequestRules.validateStopReason(reason)
        return try await answer(.stop(id, reason: reason), id: id)
    }

    package func resume(id: String) async throws -> Download {
        try await answer(.resume(id), id: id)
    }

    /// Stops the download, deletes its files and its record.
    package func cancel(id: String) async throws {
        // A licence it holds is given back through the outbox (`EngineState.releaseOnCancel`).
        do {
            _ = try await answer(.cancel(id), id: id)
        } catch let error as StashError where error.code == .resourceExhausted {
            // A full disk: deleting the files is what frees the space the record's removal
            // needs. Should stashd die in between, the start finds the files gone and says so.
            logger.warning("cancel goes on with the registry full", metadata: ["id": "\(id)"])
        }
        try await finishRemoval(id)
    }

    /// Applies every entry or none: the first bad key or value is the error.
    package func setConfig(_ changes: [(key: String, value: String)]) async throws -> DaemonConfig {
        var updated = config
        for change in changes { try updated.set(change.key, to: change.value) }
        try await registry.saveConfig(updated)
        run(.configChanged(updated))
        return config
    }

    /// What the desktop says changed (StashDesktop's watch, through the daemon): downloads
    /// that may not run under it wait, those that may go on (`EngineState+Desktop`).
    package func desktopChanged(_ conditions: DesktopConditions) {
        run(.desktop(conditions))
    }

    nonisolated func publicView(_ download: Download) -> Download {
        layout.publicView(download)
    }
}
