import Foundation
import Logging
import StashCore
import StashFetch

/// Every decision of the engine, as a value: the downloads, the queue for download slots, the
/// transfer slots, the list order and the dedupe index, with one `on(_:)` per fact. It does
/// no I/O: what must happen (start or stop a transfer, commit and publish, arm a timer, watch a
/// folder, write the flight log) comes back as `EngineEffect`s, in order, for the `Engine`
/// actor to carry out. It reads the clock and the disk's gauges (free space, a part file's
/// size) through injected readers, so a test runs it with answers of its own.
struct EngineState {
    typealias Entry = DownloadEntry

    let layout: AssetLayout
    let clock: WallClock
    let disk: DiskGauge
    /// Whether a licence server's host can be reached, before a renewal is started.
    let network: NetworkMonitor
    private(set) var config: DaemonConfig

    /// The downloads, in list order, with the index ListDownloads reads (`ListIndex`).
    var entries = EntryTable()
    var nextSeq = 0
    /// Which queued downloads get a download slot (max-parallel), and which hold one.
    var queue: DownloadQueue
    /// The queue position the next download to join the end of its priority takes
    /// (`EngineState+Queue`).
    var nextPosition: Int64 = 0
    /// QUEUED downloads whose add is not durable yet: they wait for a slot from `.added` on.
    var pendingAdds: Set<String> = []
    /// Which files of the active downloads transfer, under the connection caps.
    var slots: TransferSlots
    /// A transfer slot may have freed or a download become active: fill slots on the next schedule.
    var slotsChanged = false
    /// Which download holds each content (`EngineState+Dedupe`), so an add of the same URL or
    /// files finds it without a scan.
    var contentIndex: [ContentKey: String] = [:]
    /// Numbers transfers and plannings, so the events of an earlier one are told apart.
    var nextGeneration: UInt64 = 1
    /// Bytes fetched since the daemon started, for GetStats.
    var sessionBytes: Int64 = 0
    /// The storage recheck's timer is armed (`EngineState+Storage`).
    var storageRecheckArmed = false
    /// The licence timer and the renewals under way (`EngineState+License`).
    var licenseSchedule = LicenseSchedule()
    /// The global rate limit in force and its schedule's timer (`EngineState+RateSchedule`).
    var rateTimer = RateTimer()
    /// Downloads a maintenance service is working on (forget's move, a removal of subtitles),
    /// with what it does: what would change their files meanwhile is refused
    /// (`EngineState+Maintenance`).
    var holds: [String: String] = [:]
    /// Complete downloads fetching a new copy beside the old one (`EngineState+Replace`).
    var replacements: [String: Replacement] = [:]
    /// Replaces waiting for a download slot, in the order asked (`EngineState+ReplaceSlots`).
    var replaceQueue: [String] = []
    /// Files whose last transfer ended to be retried (`EngineState+Retry`), by download and
    /// file index: kept while the download is active or queued, so the attempts add up across
    /// transfers and the next one waits out the backoff. Here rather than in `DownloadEntry`,
    /// where 100,000 downloads at rest would each carry it.
    var retries: [String: [Int: FileRetry]] = [:]
    /// What the desktop says (`EngineState+Desktop`), and the downloads waiting for it to change.
    var desktop = DesktopConditions()
    var desktopWaiting: Set<String> = []
    private(set) var shuttingDown = false
    /// The daemon logger's level: a line below it is not built (`log(_:_:_:into:)`).
    let logLevel: Logger.Level

    /// Progress of one download is announced when it moved by this many percent …
    static let progressStep = 1
    /// … or this many seconds passed.
    static let progressInterval: TimeInterval = 0.25
    /// Bytes of an active download are written to the registry this often, so `stash ls`
    /// after a crash is close to the truth (the part file is the real measure on resume).
    static let progressSaveInterval: TimeInterval = 2

    init(
        config: DaemonConfig, layout: AssetLayout, clock: WallClock, disk: DiskGauge, network: NetworkMonitor = .system,
        logLevel: Logger.Level = .trace
    ) {
        self.config = config
        self.logLevel = logLevel
        self.layout = layout
        self.clock = clock
        self.disk = disk
        self.network = network
        self.queue = DownloadQueue(maxParallel: config.maxParallel)
        self.slots = TransferSlots(caps: TransferSlots.Caps(config))
    }

    /// The effects a decision's array has room for before it grows (`on`).
    static let effectsReserved = 16

    /// Decides what `input` changes and what must be done for it. Throws, with nothing
    /// changed, for a request that does not apply (an unknown id, a state the request makes no
    /// sense in).
    mutating func on(_ input: EngineInput) throws -> [EngineEffect] {
        var effects: [EngineEffect] = []
        // A download's completion that starts the next one decides about a dozen effects: grown
        // from empty, the array was reallocated and its large elements copied four or five
        // times a decision (about 10 allocations a single-file download). A record loaded at
        // start-up (100,000 of them) decides none or one.
        if case .load = input {} else { effects.reserveCapacity(Self.effectsReserved) }
        switch input {
        case .load(var download):
            discardReplaceAtLoad(&download, into: &effects)
            enter(download)
            notePosition(download.queuePosition)
            // A download that was still waiting for a slot waits again, in its old order.
            if download.state == .queued { enqueue(download.id) }
        case .crashed(let id, let exits):
            let reason = CrashGuard.reason(exits: exits)
            log(.error, "download failed by the crash guard", ["id": "\(id)", "exits": "\(exits)"], into: &effects)
            try transition(id, .crashed, into: &effects) { record in
                record.error = DownloadError(.internal, reason)
                record.stateReason = ""
            }
        case .recover(let id, let problem):
            try transition(id, .recover(fileIntact: problem == nil), into: &effects) { record in
                if let problem {
                    record.error = DownloadError(.storage, problem)
                    record.stateReason = ""
                    record.completedAt = nil
                } else if record.state == .queued {
                    record.stateReason = "resumed after a daemon restart"
                }
            }
        case .shutdown:
            shuttingDown = true
            for id in queue.active where entries[id]?.activity.transfers.isEmpty == false {
                entries[id]?.activity = .idle
            }
        case .fetchStopped:
            for id in queue.active {
                guard var entry = entries[id] else { continue }
                measureFiles(&entry.download)
                entry.download.speed = 0
                entries[id] = entry
                effects.append(.commit(.save(entry.download), then: nil))
            }

        case .add(var download):
            try checkNew(download.id)
            download.queuePosition = takePosition()
            if download.state == .queued { pendingAdds.insert(download.id) }
            enter(download)
            indexContent(download)
            effects.append(.commit(.add(download), then: .stateChanged(layout.eventView(download), previous: .notDownloaded)))
        case .addRefused(let download):
            let id = download.id
            pendingAdds.remove(id)
            if entries[id]?.download.state == download.state {
                unindexContent(download)
                entries[id] = nil
            }
        case .added(let id):
            noteAdded(id, into: &effects)
            pendingAdds.remove(id)
            // Paused or cancelled before its add was durable: it waits for a resume instead.
            if entries[id]?.download.state == .queued { enqueue(id) }
            schedule(into: &effects)
        case .pause(let id):
            try transition(id, .pause, into: &effects) { $0.stateReason = "paused by a client" }
            schedule(into: &effects)
        case .stop(let id, let reason):
            try transition(id, .stop, into: &effects) { $0.stateReason = reason.isEmpty ? "stopped by a client" : reason }
            schedule(into: &effects)
        case .resume(let id):
            try resume(id, into: &effects)
        case .cancel(let id):
            if cancelReplace(id, into: &effects) {
                schedule(into: &effects)
                break
            }
            dropReplace(id, into: &effects)
            releaseOnCancel(id, into: &effects)
            try transition(id, .cancel, into: &effects) { $0.stateReason = "cancelled by a client" }
            schedule(into: &effects)
        case .replace(let id, let sha256, let files):
            try startReplace(id, sha256: sha256, files: files, into: &effects)
        case .replacementMarked(let id, let failure):
            replacementMarked(id, failure: failure, into: &effects)
        case .replacementSwapped(let id, let failure):
            replacementSwapped(id, failure: failure, into: &effects)
        case .removed(let id):
            pendingAdds.remove(id)
            removed(id, into: &effects)
        case .configChanged(let updated):
            changeConfig(updated, into: &effects)
        case .setDownload(let changes):
            try setDownload(changes, into: &effects)
        case .move(let id, let move):
            try self.move(id, move, into: &effects)

        case .schedule:
            schedule(into: &effects)
        case .transfer(let notice):
            handle(notice, into: &effects)
        case .transfersStopped(let id):
            transfersStopped(id, into: &effects)
        case .foldersSynced(let id, let failure, let synced):
            finishCompletion(id, failure: failure, synced: synced, into: &effects)
        case .planned(let id, let generation, let result):
            planned(id, generation: generation, result, into: &effects)
        case .planningWaitsForNetwork(let id, let generation):
            guard let entry = entries[id], entry.activity.isPlanning(generation: generation), entry.download.state == .preparing else { break }
            _ = try? transition(id, .networkLost, into: &effects) {
                $0.stateReason = "the network is unreachable; the playlists and keys are read when it is back"
            }
        case .storageRecheckDue:
            recheckStorage(into: &effects)
        case .rateChangeDue(let generation):
            rateChangeDue(generation: generation, into: &effects)
        case .retryDue(let id):
            retryDue(id, into: &effects)
        case .license(let report):
            try on(license: report, into: &effects)
        case .desktop(let conditions):
            desktop = conditions
            followDesktop(into: &effects)

        case .maintenance(let fact):
            try on(fact, into: &effects)
        }
        return effects
    }

    /// Enters a download at the end of the list order.
    private mutating func enter(_ download: Download) {
        let id = download.id
        entries[id] = Entry(download: download, lifecycle: DownloadLifecycle(state: download.state), seq: nextSeq)
        nextSeq += 1
    }

    /// Runs one input through a download's state machine, edits the record and orders what the
    /// action needs: the transfers started or stopped, the flight log's line, the licence
    /// timer, the disk watch, the journal's line, and the commit with its event, last.
    /// Returns false, with nothing changed, when the input changes nothing.
    @discardableResult
    mutating func transition(
        _ id: String, _ input: DownloadLifecycle.Input, into effects: inout [EngineEffect], edit: (inout Download) -> Void = { _ in }
    ) throws -> Bool {
        guard var entry = entries[id] else { throw StashError.notFound(id: id) }
        try checkHold(id, input)
        let previous = entry.lifecycle.state
        let action = try entry.lifecycle.on(input)
        if action == .none { return false }
        entry.download.state = entry.lifecycle.state
        edit(&entry.download)
        if previous == .queued, entry.download.state != .queued {
            queue.unhold(id)
            queue.undefer(id, key: nil)
        }
        // Paused, stopped, failed, done: a later start begins its attempts afresh.
        if !entry.download.state.isActive, entry.download.state != .queued, !retries.isEmpty { retries[id] = nil }
        if previous != .queued, entry.download.state == .queued { placeInQueue(&entry.download, after: input) }
        if action == .startTransfer {
            // Noted before any byte of it is fetched or parsed: if that takes stashd down, the
            // next start knows which download was at work.
            effects.append(.flightStarted(id))
            if entry.download.hls != nil, entry.download.files.isEmpty {
                beginPlanning(&entry, into: &effects)
            } else {
                beginFiles(&entry)
            }
        }
        if action == .stopTransfer || action == .remove {
            // Paused, failed, completed, requeued or removed: no transfer of it may go on.
            stopFiles(&entry, into: &effects)
            if previous.isActive { effects.append(.flightEnded(id)) }
            entry.download.speed = 0
            entry.endPace()
            queue.deactivate(id)
        }
        entries[id] = entry
        let download = entry.download
        effects.append(.forgetStorageInfo)
        if previous != .queued, download.state == .queued { enqueue(id) }
        // A licence that ran out while the download ran applies from the moment it completes.
        if download.state == .completed, download.license != nil { armLicenseTimer(into: &effects) }
        // In or out of the states that hold complete files: the watch over its folders follows.
        if previous.holdsCompleteFiles != download.state.holdsCompleteFiles {
            effects.append(download.state.holdsCompleteFiles ? .watch(download) : .unwatch(id))
        }
        logTransition(download, from: previous, action: action, into: &effects)
        effects.append(.commit(.save(download), then: .stateChanged(layout.eventView(download), previous: previous)))
        return true
    }

    /// A line for the daemon's log, as an effect, when the logger keeps its level: the
    /// metadata of a download's start and completion (strings and a dictionary, built for
    /// every download) is otherwise built only to be dropped (`--log-level warning`).
    func log(
        _ level: Logger.Level, _ message: @autoclosure () -> Logger.Message, _ metadata: @autoclosure () -> Logger.Metadata,
        into effects: inout [EngineEffect]
    ) {
        guard level >= logLevel else { return }
        effects.append(.log(level, message(), metadata()))
    }

    /// The journal's line for each start, completion and failure: one per event, with the id,
    /// whichever path (a transfer, a playlist, a licence) led to it.
    private func logTransition(_ download: Download, from previous: DownloadState, action: DownloadLifecycle.Action, into effects: inout [EngineEffect]) {
        let id = download.id
        if action == .startTransfer {
            log(.info, "download started", ["id": .string(id), "from": .string(previous.name)], into: &effects)
        }
        guard download.state != previous else { return }
        switch download.state {
        case .completed:
            log(.info, "download completed", [
                "id": .string(id), "bytes": .string(String(download.downloadedBytes)), "files": .string(String(download.files.count))],
                into: &effects)
        case .failed:
            // A warning (journal priority 4) so `journalctl -p warning` lists failures.
            log(.warning, "download failed", [
                "id": "\(id)", "kind": "\(download.error?.kind.name ?? "none")",
                "error": "\((download.error?.message ?? download.stateReason).withoutURLSecrets)"], into: &effects)
        default:
            break
        }
    }

    /// An HLS package that failed for lost files (its playlists or keys may be among them)
    /// reads its playlists again: that rewrites them and seals its keys anew, and finds the
    /// segments still on disk complete.
    private mutating func resume(_ id: String, into effects: inout [EngineEffect]) throws {
        let replan = entries[id].map { $0.download.state == .failed && $0.download.hls != nil && $0.download.error?.kind == .storage } ?? false
        let changed = try transition(id, .resume, into: &effects) { record in
            record.error = nil
            record.stateReason = ""
            if replan {
                record.forgetPackagePlan()
                record.stateReason = "reading the playlists again to restore the package"
            }
        }
        // The emptied file list is stored too, so a restart plans the package again.
        if replan, changed, let download = entries[id]?.download { effects.append(.commit(.add(download), then: nil)) }
        schedule(into: &effects)
    }

    private mutating func changeConfig(_ updated: DaemonConfig, into effects: inout [EngineEffect]) {
        let lowered = updated.maxParallel < config.maxParallel
        config = updated
        queue.maxParallel = updated.maxParallel
        slots.caps = TransferSlots.Caps(updated)
        followRateSchedule(into: &effects)
        if lowered { requeueExcess(into: &effects) }
        followDesktop(into: &effects)
        // Raised caps let more transfers start now; lowered ones apply as transfers end.
        slotsChanged = true
        schedule(into: &effects)
    }

    /// Ids in list order.
    var order: [String] { entries.ids }

    /// Reads each unfinished file's bytes from its part file, and sums the download.
    func measureFiles(_ download: inout Download) {
        var total: Int64 = 0
        for index in download.files.indices {
            if !download.files[index].done {
                download.files[index].downloadedBytes = disk.fileSize(layout.filePath(id: download.id, download.files[index]) + ".part") ?? 0
            }
            total = total.addingSaturating(download.files[index].downloadedBytes)
        }
        download.downloadedBytes = total
    }
}
