import Foundation
import Logging
import StashCore
import StashFetch
import StashKeys
import StashStore

/// The engine: the only writer of download state. It owns the queue and the state machines,
/// starts and stops transfers on the fetch workers, commits every change to the registry
/// before anyone hears of it, and publishes events.
///
/// Requests and fetch events are both handled on this actor; the synchronous part of each
/// (state machine, in-memory record, queueing the commit) runs without suspension, so no two
/// of them interleave halfway.
public actor Engine {
    /// In-memory state of one download.
    struct Entry {
        var download: Download
        var lifecycle: DownloadLifecycle
        /// Position in the list order; stable across removals, used for paging.
        var seq: Int
        /// What is under way for it: planning, transfers or the completion.
        var activity = DownloadActivity.idle
        var speed = SpeedMeter()
        var lastProgressEvent: (percent: Int, time: TimeInterval) = (-1, 0)
        var lastProgressSave: TimeInterval = 0
        /// The package's size as its playlists put it (bandwidth x duration), while not every
        /// segment's size is known; nil for other downloads and after a restart.
        var planEstimate: Int64?
    }

    /// The transfer of one file; `generation` tells its events from those of an earlier one.
    struct FileTransfer {
        let transfer: TransferID
        let generation: UInt64
    }

    /// A fetch event tagged with the download, file and transfer it belongs to.
    struct FetchNotice: Sendable {
        let id: String
        let index: Int
        let generation: UInt64
        let event: FetchEvent
    }

    let layout: AssetLayout
    let registry: Registry
    let fetch: FetchWorkers
    let keys: KeyStore
    let bus: EventBus
    let commits: CommitQueue
    let logger: Logger
    let socketPath: String
    public private(set) var config: DaemonConfig

    var entries = EntryTable()
    /// Read without the actor: see `RecordCache`.
    nonisolated let records: RecordCache
    /// Ids in list order (by `Entry.seq`).
    var order: [String] = []
    var nextSeq = 0
    /// Which queued downloads get a download slot (max-parallel), and which hold one.
    var queue: DownloadQueue
    /// Which files of the active downloads transfer, under the connection caps.
    var slots: TransferSlots
    /// A transfer slot may have freed or a download become active: fill slots on the next schedule.
    var slotsChanged = false
    /// The last verify (at start or asked for), for GetSystemInfo.
    var lastVerify = VerifyReport()
    /// GetSystemInfo's answer and when it was made; nil after a change.
    var storageCache: (time: TimeInterval, info: SystemInfo)?
    /// Looks again at the queued downloads that did not fit on the disk (`queue.hold`).
    var storageRecheck: Task<Void, Never>?
    var nextGeneration: UInt64 = 1
    var sessionBytes: Int64 = 0
    var shuttingDown = false
    let notices = NoticeInbox()
    /// Transfers being torn down, so a removal can wait for the file to be closed.
    var stopping: [String: Task<Void, Never>] = [:]
    /// Service certificates of licence servers, fetched once.
    let certificates = CertificateCache()
    /// Downloads whose licence is being renewed, and when a failed automatic renewal may try again.
    var renewing: Set<String> = []
    var renewRetryAt: [String: Date] = [:]
    /// Wakes at the next licence expiry, end of playback or renewal.
    var licenseTimer: Task<Void, Never>?
    /// Releases the licence servers have not acknowledged, and the task sending them.
    var outbox: [LicenseRelease] = []
    var outboxTask: Task<Void, Never>?
    /// What keeps the daemon from working fully, for GetSystemInfo.
    var warnings: [String] = []
    /// Which download holds each content (`Engine+Dedupe`), so an add of the same URL or
    /// files finds it without a scan.
    var contentIndex: [String: String] = [:]
    /// inotify over the folders of complete downloads (`Engine+DiskWatch`); nil until started,
    /// or when inotify is not available.
    var diskWatch: DiskWatch?
    /// The disk watch's bounds; a test lowers them to see the fallback.
    let diskWatchSettings: DiskWatchSettings
    /// Which downloads were transferring if stashd dies: see `CrashGuard`.
    let flight: FlightLog
    let clock: WallClock
    let network: NetworkMonitor

    /// Progress of one download is announced when it moved by this many percent …
    static let progressStep = 1
    /// … or this many seconds passed.
    static let progressInterval: TimeInterval = 0.25
    /// Bytes of an active download are written to the registry this often, so `stash ls`
    /// after a crash is close to the truth (the part file is the real measure on resume).
    static let progressSaveInterval: TimeInterval = 2

    /// `clock` and `network` are what the engine's timers and licence renewals read: the
    /// system's unless a test gives its own.
    public init(
        dataDir: String, socketPath: String, registry: Registry, fetch: FetchWorkers, keys: KeyStore, config: DaemonConfig, logger: Logger,
        clock: WallClock = .system, network: NetworkMonitor = .system, diskWatch: DiskWatchSettings = DiskWatchSettings()
    ) {
        self.diskWatchSettings = diskWatch
        self.clock = clock
        self.bus = EventBus(clock: clock)
        self.network = network
        self.keys = keys
        self.layout = AssetLayout(dataDir: dataDir)
        self.socketPath = socketPath
        self.registry = registry
        self.fetch = fetch
        self.config = config
        self.queue = DownloadQueue(maxParallel: config.maxParallel)
        self.slots = TransferSlots(caps: TransferSlots.Caps(config))
        self.logger = logger
        self.records = entries.cache
        self.commits = CommitQueue(registry: registry, bus: bus, cache: entries.cache)
        self.flight = FlightLog(dataDir: dataDir, logger: logger)
    }

    /// Loads the registry, reconciles it with the disk, and starts what was queued or running.
    public func start() async throws {
        try FileManager.default.createDirectory(atPath: layout.assetsDir, withIntermediateDirectories: true)
        fetch.setRateLimit(config.rateLimit)
        var loaded = try registry.loadAll()
        for download in loaded.downloads where download.state != .removing { indexContent(download) }
        for problem in loaded.problems {
            logger.warning("registry record skipped or repaired", metadata: ["problem": "\(problem)"])
        }
        let crashGuard = CrashGuard(log: flight.previous())
        flight.begin(header: crashGuard.header)
        let verifyStarted = clock.now()
        var findings: [VerifyFinding] = []
        var filesChecked = 0
        var tickets: [CommitTicket] = []
        var removals: [String] = []
        entries.reserveCapacity(loaded.downloads.count)
        order.reserveCapacity(loaded.downloads.count)
        // Listing assets/ for orphans needs only the ids: it runs beside the file checks.
        let assetsDir = layout.assetsDir
        let owners = loaded.downloads.map(\.id)
        let orphanScan = Task.detached { AssetScanner.orphans(assetsDir: assetsDir, owners: owners) }
        let sizes = FileSizeProbe.sizes(of: loaded.downloads.flatMap { download in
            download.files.map { download.id + "/" + $0.path }
        }, under: assetsDir)
        var nextSize = 0
        // Reconciled in place: a copy taken out of the array would share its file list with
        // the array and copy it on the first change.
        for index in loaded.downloads.indices {
            let fileCount = loaded.downloads[index].files.count
            filesChecked += fileCount
            let problem = reconcileFiles(&loaded.downloads[index], sizes: sizes[nextSize..<(nextSize + fileCount)], findings: &findings)
            nextSize += fileCount
            if let exits = crashGuard.failing[loaded.downloads[index].id] {
                tickets.append(failAfterCrashes(&loaded.downloads[index], exits: exits))
            }
            let download = loaded.downloads[index]
            let id = download.id
            // As the registry holds it; changes made while recovering show once committed.
            records.commit(id, download)
            entries[id] = Entry(download: download, lifecycle: DownloadLifecycle(state: download.state), seq: nextSeq)
            order.append(id)
            nextSeq += 1
            // A download that was still waiting for a slot waits again, in its old order.
            if download.state == .queued { enqueueWaiting(id) }
            // Most records (complete and whole, paused, failed) stay as they are.
            let recovering = download.state.isActive || download.state == .removing || (download.state.holdsCompleteFiles && problem != nil)
            guard recovering else { continue }
            switch recover(id, problem: problem) {
            case .commit(let ticket): tickets.append(ticket)
            case .remove: removals.append(id)
            case .unchanged: break
            }
        }
        // The entries now hold the only copies, so changing one copies nothing.
        loaded.downloads = []
        // A registry that cannot be written (a full disk) does not keep stashd from starting:
        // cancel and purge are how space is freed, and they need a running daemon.
        do {
            for ticket in tickets { try await ticket.wait() }
            for id in removals { try await finishRemoval(id) }
        } catch {
            let warning = "at start the registry could not be written (\(error)); the records keep their last committed state until it can"
            logger.error("registry writes fail at start; starting anyway", metadata: ["error": "\(error)"])
            warnings.append(warning)
        }
        verifyAtStart(findings: findings, filesChecked: filesChecked, started: verifyStarted, orphans: await orphanScan.value)
        let releases = try registry.loadReleases()
        for problem in releases.problems {
            logger.warning("licence release outbox entry skipped", metadata: ["problem": "\(problem)"])
        }
        outbox = releases.releases
        notices.attach { [weak self] in self?.handleNoticesLater() }
        // Right after the start, not in it: the socket opens without waiting for the list of
        // folders to watch.
        Task { self.startDiskWatch() }
        logger.info("engine started", metadata: ["downloads": "\(entries.count)", "queued": "\(queue.waitingCount)"])
        schedule()
        licenseTick()
        sendOutbox()
    }

    /// Stops every transfer and waits for the registry to hold the last state. Partial files
    /// stay; active downloads go back to the queue on the next start.
    public func shutdown() async {
        shuttingDown = true
        licenseTimer?.cancel()
        outboxTask?.cancel()
        for id in queue.active where entries[id]?.activity.transfers.isEmpty == false {
            entries[id]?.activity = .idle
        }
        await fetch.shutdown()
        var last: CommitTicket?
        for id in queue.active {
            guard var entry = entries[id] else { continue }
            measureFiles(&entry.download)
            entry.download.speed = 0
            entries[id] = entry
            last = commits.submit(.save(entry.download), event: nil)
        }
        try? await last?.wait()
        flight.removeAfterCleanStop()
        diskWatch?.close()
        notices.close()
        bus.finishAll()
    }

    // MARK: - Requests

    /// Adds a download: one file from `uri`, a bundle of `files`, or an HLS stream (`hls`
    /// given, or a `uri` whose path ends in .m3u8). With an id that exists: the same request
    /// returns the existing record (`created` false); anything else is ALREADY_EXISTS. Content
    /// another download already holds (`Engine+Dedupe`) returns that download without an id,
    /// and is ALREADY_EXISTS with another one, unless `force`. `textTracks` are side-loaded
    /// subtitle files fetched with it (`TextTrackRules`); the download found by id or content
    /// must hold them too.
    public func add(
        id requestedID: String, uri: String, files specs: [BundleFileSpec] = [], title: String, sha256: String, headers: [HTTPHeader],
        hls requestedHLS: HLSOptions? = nil, drm: DRMParams? = nil, force: Bool = false, appData: [UInt8] = [], group: String = "",
        textTracks trackSpecs: [TextTrack] = []
    ) async throws -> (download: Download, created: Bool) {
        let isBundle = !specs.isEmpty
        // DRM parameters say the stream is HLS: only HLS keys come from a licence server.
        let hls = requestedHLS ?? (isBundle || (drm == nil && !HLSRules.looksLikePlaylist(uri)) ? nil : HLSOptions())
        if let drm {
            guard hls != nil else { throw StashError.invalidArgument("drm applies to HLS streams, not to a bundle of files") }
            try DRMRules.validate(drm)
        }
        if let hls {
            guard !isBundle else { throw StashError.invalidArgument("give either hls options or files, not both") }
            guard sha256.isEmpty else { throw StashError.invalidArgument("sha256 applies to a single file, not to an HLS stream") }
            try DownloadRequestRules.validateURI(uri)
            try HLSRules.validate(hls)
        } else if isBundle {
            guard uri.isEmpty else { throw StashError.invalidArgument("give either uri or files, not both (uri '\(uri.prefix(200))' with \(specs.count) files)") }
            guard sha256.isEmpty else { throw StashError.invalidArgument("sha256 applies to a single file; give each file of a bundle its own sha256") }
        } else {
            try DownloadRequestRules.validateURI(uri)
        }
        try DownloadRequestRules.validateTitle(title)
        try DownloadRequestRules.validateHeaders(headers)
        try DownloadRequestRules.validateAppData(appData)
        try DownloadRequestRules.validateGroup(group)
        let digest = try DownloadRequestRules.normalizeSHA256(sha256)
        let files = hls != nil ? []
            : isBundle ? try BundleRules.files(from: specs, fileName: AssetLayout.fileName(from:))
            : [DownloadFile(url: uri, path: AssetLayout.fileName(from: uri), sha256: digest)]
        let tracks = try TextTrackRules.added(trackSpecs, to: [], files: files)
        if !requestedID.isEmpty { try DownloadRequestRules.validateID(requestedID) }
        let contentKey = Self.contentKey(uri: uri, files: files, isBundle: isBundle, hls: hls)
        if !force, let holder = holder(ofContent: contentKey, hls: hls, drm: drm), holder.id != requestedID,
           requestedID.isEmpty || entries[requestedID] == nil {
            guard requestedID.isEmpty else {
                let what = isBundle ? "these \(files.count) files" : "\(uri.prefix(200))"
                throw StashError(.alreadyExists, "download '\(holder.id)' already holds \(what); add with force to fetch it again as '\(requestedID)'")
            }
            // Returned only when it also has the tracks asked for; adding them to it is the
            // client's call, not a side effect of an add.
            if let lacking = Self.lacking(tracks, in: holder) {
                throw StashError(.alreadyExists, "download '\(holder.id)' already holds \(uri.isEmpty ? "these \(files.count) files" : "\(uri.prefix(200))"), without the text track(s) \(lacking); add them to it with AddSubtitles (stash subtitles add \(holder.id) --text-track ...), or add with force")
            }
            // Answered once the holder's own add is durable (it may be in the same list, a
            // moment earlier): commit before tell.
            try await commits.submit(nil, event: nil).wait()
            guard let current = entries[holder.id]?.download, current.state != .removing else {
                // Its add failed or it was cancelled meanwhile: this add stands on its own.
                return try await add(id: requestedID, uri: uri, files: specs, title: title, sha256: sha256, headers: headers,
                                     hls: requestedHLS, drm: drm, force: force, appData: appData, group: group, textTracks: trackSpecs)
            }
            return (publicView(current), false)
        }
        let id: String
        if requestedID.isEmpty {
            id = newID()
        } else {
            id = requestedID
            if let existing = entries[id] {
                let same = hls != nil ? existing.download.hls == hls && existing.download.uri == uri && existing.download.drm == drm
                    : isBundle ? existing.download.isBundle && existing.download.contentFiles.map { [$0.url, $0.path] } == files.map { [$0.url, $0.path] }
                    : !existing.download.isBundle && existing.download.hls == nil && existing.download.uri == uri
                guard same else {
                    let what = existing.download.isBundle ? "a bundle of \(existing.download.contentFiles.count) other files"
                        : existing.download.hls != nil ? "HLS uri '\(existing.download.uri)' and its choice of renditions" : "uri '\(existing.download.uri)'"
                    throw StashError(.alreadyExists, "download '\(id)' already exists with \(what); use another id or cancel it first")
                }
                if let lacking = Self.lacking(tracks, in: existing.download) {
                    throw StashError(.alreadyExists, "download '\(id)' already exists without the text track(s) \(lacking); add them with AddSubtitles (stash subtitles add \(id) --text-track ...)")
                }
                return (publicView(existing.download), false)
            }
        }
        // An HLS download gets its tracks' files with the rest of its files, once its playlists are read.
        let allFiles = hls != nil ? files : files + tracks.map(\.file)
        try checkPathLengths(allFiles, id: id) { $0 < files.count ? "files[\($0)]" : "text_tracks" }
        var download = Download(
            id: id, uri: uri, title: title, state: .queued,
            assetPath: isBundle || hls != nil ? layout.relativeFolderPath(id: id) : layout.relativeFilePath(id: id, uri: uri),
            sha256: digest, headers: headers, isBundle: isBundle, files: allFiles, hls: hls)
        download.drm = drm
        download.hasDRM = drm != nil
        download.appData = appData
        download.group = group
        download.textTracks = tracks
        download.hasSubtitles = !tracks.isEmpty
        download.totalBytes = Self.estimatedTotal(of: download)
        // Queued only once on disk: a download the registry refused (a full disk) must not
        // leave a transfer and a folder behind.
        try await insert(download)
        logger.info("download added", metadata: [
            "id": "\(id)", "uri": "\((download.uri.isEmpty ? uri : download.uri).withoutURLSecrets)", "files": "\(download.files.count)",
            "hls": "\(download.hls != nil)", "drm": "\(download.hasDRM)"])
        enqueueWaiting(id)
        schedule()
        // The record as committed: later states reach the client as events once they are.
        return (publicView(download), true)
    }

    /// The tracks `download` does not have (`TextTrack.isSame`), named for a message; nil when it has them all.
    static func lacking(_ tracks: [TextTrack], in download: Download) -> String? {
        let lacking = tracks.filter { track in !download.textTracks.contains { $0.isSame(as: track) } }
        return lacking.isEmpty ? nil : lacking.map { "\($0.language) (\($0.uri.prefix(200)))" }.joined(separator: ", ")
    }

    /// Every file's part file (`<path>.part` under the asset folder) must fit in PATH_MAX;
    /// `label` names the entry of the request in the error.
    func checkPathLengths(_ files: [DownloadFile], id: String, label: (Int) -> String) throws {
        let folder = layout.assetFolder(id: id)
        let limit = Int(PATH_MAX) - 1
        if let index = files.indices.first(where: { folder.utf8.count + 1 + files[$0].path.utf8.count + 5 > limit }) {
            throw StashError.invalidArgument("\(label(index)): path '\(files[index].path.prefix(200))' is too long: under \(folder) it would exceed the file system's \(limit) bytes")
        }
    }

    /// Enters a new download (AddDownload, Adopt) and returns once its record is committed.
    /// It is indexed at once, so the same URL twice in one pipelined list is one download; a
    /// record the registry refuses is taken back, unless something moved it on meanwhile.
    func insert(_ download: Download) async throws {
        let id = download.id
        entries[id] = Entry(download: download, lifecycle: DownloadLifecycle(state: download.state), seq: nextSeq)
        order.append(id)
        nextSeq += 1
        indexContent(download)
        let ticket = commits.submit(.add(download), event: .stateChanged(eventView(download), previous: .notDownloaded))
        do {
            try await ticket.wait()
        } catch {
            if entries[id]?.download.state == download.state {
                unindexContent(download)
                entries[id] = nil
                order.removeAll { $0 == id }
            }
            throw error
        }
    }

    /// Answers from memory, on the caller's thread, unless the record lists files the cache
    /// does not hold (a bundle's): then nil, and `get(id:)` has the answer.
    public nonisolated func cachedGet(id: String) throws -> Download? {
        guard let download = records.get(id) else { throw StashError.notFound(id: id) }
        guard !download.isBundle else { return nil }
        return publicView(download)
    }

    /// The committed record with the engine's file list (a bundle's, which the cache leaves out).
    public func get(id: String) throws -> Download {
        guard var download = records.get(id) else { throw StashError.notFound(id: id) }
        download.files = entries[id]?.download.files ?? []
        // As from the cache: no answer carries an HLS package's segments.
        if download.hls != nil { download.files = [] }
        return publicView(download)
    }

    /// Answers from memory, on the caller's thread: never touches the disk.
    public nonisolated func has(id: String) -> (exists: Bool, state: DownloadState) {
        guard let download = records.get(id) else { return (false, .notDownloaded) }
        return (true, download.state)
    }

    public static let defaultPageSize = 100
    public static let maxPageSize = 1000

    public func list(states: [DownloadState], pageSize: Int, pageToken: String, group: String = "") throws -> DownloadPage {
        try DownloadRequestRules.validateGroup(group, field: "group filter")
        guard pageSize >= 0, pageSize <= Self.maxPageSize else {
            throw StashError.invalidArgument("page_size \(pageSize) is outside 0...\(Self.maxPageSize)")
        }
        let size = pageSize == 0 ? Self.defaultPageSize : pageSize
        var after = -1
        if !pageToken.isEmpty {
            guard let value = Int(pageToken), value >= 0 else {
                throw StashError.invalidArgument("page_token '\(pageToken.prefix(64))' is not a token from a previous ListDownloads")
            }
            after = value
        }
        let filter = Set(states)
        var page: [Download] = []
        var total = 0
        var lastSeq = -1
        var more = false
        var totals = GroupTotals()
        for id in order {
            guard let entry = entries[id], filter.isEmpty || filter.contains(entry.download.state),
                  DownloadRequestRules.group(entry.download.group, isIn: group) else { continue }
            total += 1
            totals.add(entry.download)
            guard entry.seq > after else { continue }
            if page.count < size {
                var view = publicView(entry.download)
                view.files = []
                page.append(view)
                lastSeq = entry.seq
            } else {
                more = true
            }
        }
        return DownloadPage(downloads: page, nextPageToken: more ? String(lastSeq) : "", total: total, totals: totals)
    }

    public func pause(id: String) async throws -> Download {
        let change = try transition(id, .pause) { $0.stateReason = "paused by a client" }
        schedule()
        return try await committed(change, id: id)
    }

    /// Stops the download with the app's reason: STOPPED, told apart from PAUSED, and started
    /// again only by a resume.
    public func stop(id: String, reason: String) async throws -> Download {
        try DownloadRequestRules.validateStopReason(reason)
        let change = try transition(id, .stop) { $0.stateReason = reason.isEmpty ? "stopped by a client" : reason }
        schedule()
        return try await committed(change, id: id)
    }

    public func resume(id: String) async throws -> Download {
        // An HLS package that failed for lost files (its playlists or keys may be among them)
        // reads its playlists again: that rewrites them and seals its keys anew, and finds the
        // segments still on disk complete.
        let replan = entries[id].map { $0.download.state == .failed && $0.download.hls != nil && $0.download.error?.kind == .storage } ?? false
        let change = try transition(id, .resume) { record in
            record.error = nil
            record.stateReason = ""
            if replan {
                record.forgetPackagePlan()
                record.stateReason = "reading the playlists again to restore the package"
            }
        }
        // The emptied file list is stored too, so a restart plans the package again.
        if replan, change != nil, let download = entries[id]?.download { commits.submit(.add(download), event: nil) }
        schedule()
        return try await committed(change, id: id)
    }

    /// Stops the download, deletes its files and its record.
    public func cancel(id: String) async throws {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        // A licence it holds is given back: the release goes through the outbox, committed
        // with the cancel, so a server that cannot be reached now is told later, across restarts.
        var release: LicenseRelease?
        if download.state != .removing, let terms = download.license, let drm = download.drm {
            let queued = LicenseRelease(downloadID: id, drm: drm, kids: terms.kids, requestedAt: clock.now())
            // Queued before the cancel's own commit, so no crash leaves the record gone and the
            // release unrecorded.
            commits.submit(.release(queued), event: nil)
            outbox.append(queued)
            release = queued
            logger.info("licence release queued by the cancel", metadata: ["id": "\(id)"])
        }
        let change = try transition(id, .cancel) { $0.stateReason = "cancelled by a client" }
        schedule()
        do {
            try await change?.ticket.wait()
        } catch let error as StashError where error.code == .resourceExhausted {
            // A full disk: deleting the files is what frees the space the record's removal
            // needs. Should stashd die in between, the start finds the files gone and says so.
            logger.warning("cancel goes on with the registry full", metadata: ["id": "\(id)"])
        }
        try await finishRemoval(id)
        if release != nil { sendOutbox() }
    }

    public func pauseAll() async throws -> Int {
        try await pauseEach(in: "")
    }

    public func resumeAll() async throws -> Int {
        try await resumeEach(in: "", includeFailed: true)
    }

    public func cancelAll() async throws -> Int {
        try await cancelEach(in: "")
    }

    /// Pauses what can be paused of `group` and the groups under it; returns how many were.
    public func pauseGroup(_ group: String) async throws -> Int {
        try DownloadRequestRules.validateTargetGroup(group, every: "PauseAll")
        return try await pauseEach(in: group)
    }

    /// Resumes the PAUSED downloads of `group` and the groups under it, and the FAILED ones
    /// with `includeFailed`; returns how many were.
    public func resumeGroup(_ group: String, includeFailed: Bool) async throws -> Int {
        try DownloadRequestRules.validateTargetGroup(group, every: "ResumeAll")
        return try await resumeEach(in: group, includeFailed: includeFailed)
    }

    /// Cancels every download of `group` and the groups under it, as `cancel(id:)` does each
    /// (files deleted, a held licence released); returns how many were.
    public func cancelGroup(_ group: String) async throws -> Int {
        try DownloadRequestRules.validateTargetGroup(group, every: "CancelAll")
        return try await cancelEach(in: group)
    }

    private func pauseEach(in group: String) async throws -> Int {
        try await forEach(in: group, where: { $0 == .queued || $0.isActive }) { _ = try await self.pause(id: $0) }
    }

    private func resumeEach(in group: String, includeFailed: Bool) async throws -> Int {
        // Never STOPPED: an app's stop, with its reason, is lifted only by a resume of that download.
        try await forEach(in: group, where: { $0 == .paused || (includeFailed && $0 == .failed) }) { _ = try await self.resume(id: $0) }
    }

    private func cancelEach(in group: String) async throws -> Int {
        try await forEach(in: group, where: { $0 != .removing }) { try await self.cancel(id: $0) }
    }

    public func subscribe(ids: [String], minProgressStep: Int, minIntervalMs: Int, replayFrom: UInt64) -> EventSubscription {
        bus.subscribe(
            ids: Set(ids), minProgressStep: minProgressStep == 0 ? Self.progressStep : minProgressStep,
            minInterval: minIntervalMs == 0 ? Self.progressInterval : Double(minIntervalMs) / 1000, replayFrom: replayFrom)
    }

    public func stats() -> DownloadStats {
        var counts: [DownloadState: Int] = [:]
        var speed: Int64 = 0
        for entry in entries.values {
            counts[entry.download.state, default: 0] += 1
            speed += entry.download.speed
        }
        return DownloadStats(speed: speed, counts: counts, activeTransfers: queue.active.count, downloadedBytes: sessionBytes)
    }

    /// Applies every entry or none: the first bad key or value is the error.
    public func setConfig(_ changes: [(key: String, value: String)]) async throws -> DaemonConfig {
        var updated = config
        for change in changes { try updated.set(change.key, to: change.value) }
        try await registry.saveConfig(updated)
        let lowered = updated.maxParallel < config.maxParallel
        config = updated
        queue.maxParallel = updated.maxParallel
        slots.caps = TransferSlots.Caps(updated)
        fetch.setRateLimit(updated.rateLimit)
        if lowered { requeueExcess() }
        // Raised caps let more transfers start now; lowered ones apply as transfers end.
        slotsChanged = true
        schedule()
        return config
    }

    // MARK: - Internals shared by requests and fetch events

    /// A state change queued for commit, and the record as it will be committed.
    struct Change {
        let ticket: CommitTicket
        let download: Download
    }

    /// Runs one input through a download's state machine, edits the record, does the
    /// synchronous side effects and queues the commit and its event. Nil when nothing changed.
    @discardableResult
    func transition(_ id: String, _ input: DownloadLifecycle.Input, edit: (inout Download) -> Void = { _ in }) throws -> Change? {
        guard var entry = entries[id] else { throw StashError.notFound(id: id) }
        let previous = entry.lifecycle.state
        let action = try entry.lifecycle.on(input)
        if action == .none { return nil }
        entry.download.state = entry.lifecycle.state
        edit(&entry.download)
        if action == .startTransfer {
            // Noted before any byte of it is fetched or parsed: if that takes stashd down, the
            // next start knows which download was at work.
            flight.started(id)
            if entry.download.hls != nil, entry.download.files.isEmpty {
                beginPlanning(&entry)
            } else {
                beginFiles(&entry)
            }
        }
        if action == .stopTransfer || action == .remove {
            // Paused, failed, completed, requeued or removed: no transfer of it may go on.
            stopFiles(&entry)
            if previous.isActive { flight.ended(id) }
            entry.download.speed = 0
            entry.speed.reset()
            queue.deactivate(id)
        }
        entries[id] = entry
        storageCache = nil
        if entry.download.state == .queued { enqueueWaiting(id) }
        // A licence that ran out while the download ran applies from the moment it completes.
        if entry.download.state == .completed, entry.download.license != nil { armLicenseTimer() }
        followDiskWatch(entry.download, from: previous)
        logTransition(entry.download, from: previous, action: action)
        let ticket = commits.submit(.save(entry.download), event: .stateChanged(eventView(entry.download), previous: previous))
        return Change(ticket: ticket, download: publicView(entry.download))
    }

    /// The journal's line for each start, completion and failure: one per event, with the id,
    /// whichever path (a transfer, a playlist, a licence) led to it.
    private func logTransition(_ download: Download, from previous: DownloadState, action: DownloadLifecycle.Action) {
        let id = download.id
        if action == .startTransfer {
            logger.info("download started", metadata: ["id": "\(id)", "from": "\(previous.name)"])
        }
        guard download.state != previous else { return }
        switch download.state {
        case .completed:
            logger.info("download completed", metadata: ["id": "\(id)", "bytes": "\(download.downloadedBytes)", "files": "\(download.files.count)"])
        case .failed:
            // A warning (journal priority 4) so `journalctl -p warning` lists failures.
            logger.warning("download failed", metadata: [
                "id": "\(id)", "kind": "\(download.error?.kind.name ?? "none")",
                "error": "\((download.error?.message ?? download.stateReason).withoutURLSecrets)"])
        default:
            break
        }
    }

    /// Waits for a change to be durable and returns the record as committed; without a change,
    /// the record as it is.
    private func committed(_ change: Change?, id: String) async throws -> Download {
        guard let change else { return try get(id: id) }
        try await change.ticket.wait()
        return change.download
    }

    /// The record in an event: without a bundle's file list (its counts stay), so a bundle of
    /// thousands of files does not make every state change a large frame.
    func eventView(_ download: Download) -> Download {
        var view = publicView(download)
        view.files = []
        return view
    }

    nonisolated func publicView(_ download: Download) -> Download {
        var view = download
        // The files' resume validators stay in it: the wire encoding never carries them.
        view.assetPath = layout.absolute(download.assetPath)
        return view
    }

    /// nil when the file is missing or cannot be looked at: its size is then unknown.
    func fileSize(_ path: String) -> Int64? {
        guard let info = try? SystemCallError.status(path) else { return nil }
        return Int64(info.st_size)
    }

    /// Runs `body` for each download of `group` (every download when empty) whose state
    /// `matches`, oldest first, and counts those it changed.
    private func forEach(in group: String, where matches: (DownloadState) -> Bool, _ body: (String) async throws -> Void) async throws -> Int {
        let ids = order.filter { id in
            entries[id].map { matches($0.download.state) && DownloadRequestRules.group($0.download.group, isIn: group) } ?? false
        }
        var affected = 0
        for id in ids {
            do {
                try await body(id)
                affected += 1
            } catch let error as StashError where error.code == .failedPrecondition || error.code == .notFound {
                // Its state moved on while we went through the list; nothing to do for it.
                continue
            }
        }
        return affected
    }

    private func newID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        while true {
            // One random word for all 12 characters (36^12 < 2^63): a getrandom per character
            // was 12 system calls per added download.
            var word = UInt64.random(in: 0..<(1 << 63))
            var id = [UInt8]()
            id.reserveCapacity(12)
            for _ in 0..<12 {
                id.append(alphabet[Int(word % 36)])
                word /= 36
            }
            let text = String(decoding: id, as: UTF8.self)
            if entries[text] == nil { return text }
        }
    }

    private enum Recovery { case commit(CommitTicket), remove, unchanged }

    /// Reads one loaded record's files from the disk (`sizes`: those of its final paths, in
    /// order): which are complete (of the recorded size) and how many bytes the others hold. Returns what is wrong with a
    /// file that should be there, if any; the files a complete download lacks are the start's
    /// verify findings (one stat per file serves both).
    func reconcileFiles(_ download: inout Download, sizes: ArraySlice<Int64?>, findings: inout [VerifyFinding]) -> String? {
        let id = download.id
        let shouldBeComplete = download.state.holdsCompleteFiles || (download.state == .failed && download.error?.kind == .storage)
        var problem: String?
        var done = 0
        var bytes: Int64 = 0
        for (index, size) in zip(download.files.indices, sizes) {
            if let size, download.files[index].size == nil || download.files[index].size == size {
                if download.files[index].size == nil, !download.state.holdsCompleteFiles {
                    // A bundle file that landed after its noted size was lost with the daemon:
                    // the final name exists only for a whole file, so its size is this one.
                    download.files[index].size = size
                    commits.submit(.noteFile(id: id, index: index, file: download.files[index]), event: nil)
                }
                download.files[index].done = true
                download.files[index].downloadedBytes = size
                done += 1
            } else {
                download.files[index].done = false
                let path = layout.filePath(id: id, download.files[index])
                let finding: VerifyFinding
                if let size, let expected = download.files[index].size {
                    finding = VerifyFinding(kind: .wrongSize, id: id, path: path, detail: "\(size) bytes on disk, expected \(expected)")
                } else {
                    finding = VerifyFinding(kind: .missingFile, id: id, path: path, detail: "file missing on disk")
                }
                if shouldBeComplete { findings.append(finding) }
                if problem == nil {
                    problem = finding.kind == .missingFile ? "file missing on disk: \(path)" : "file on disk has \(finding.detail): \(path)"
                }
                download.files[index].downloadedBytes = download.state.holdsCompleteFiles ? 0 : fileSize(path + ".part") ?? 0
            }
            bytes = bytes.addingSaturating(download.files[index].downloadedBytes)
        }
        download.filesDone = done
        if !download.state.holdsCompleteFiles || problem != nil { download.downloadedBytes = bytes }
        guard let problem else { return nil }
        let missing = download.filesTotal - done
        return download.isFolder ? "\(missing) of \(download.filesTotal) files missing or damaged; first: \(problem)" : problem
    }

    /// Moves a loaded record to where it belongs after a restart: interrupted downloads back
    /// to the queue, a complete one with `problem` to FAILED, a removal to its end.
    private func recover(_ id: String, problem: String?) -> Recovery {
        do {
            let ticket = try transition(id, .recover(fileIntact: problem == nil)) { record in
                if let problem {
                    record.error = DownloadError(.storage, problem)
                    record.stateReason = ""
                    record.completedAt = nil
                } else if record.state == .queued {
                    record.stateReason = "resumed after a daemon restart"
                }
            }
            if entries[id]?.lifecycle.state == .removing { return .remove }
            return ticket.map { .commit($0.ticket) } ?? .unchanged
        } catch {
            return .unchanged
        }
    }

    /// A download that was transferring during `exits` unclean exits in a row: FAILED, and not
    /// started again until a client resumes it.
    private func failAfterCrashes(_ download: inout Download, exits: Int) -> CommitTicket {
        let reason = CrashGuard.reason(exits: exits)
        logger.error("download failed by the crash guard", metadata: ["id": "\(download.id)", "exits": "\(exits)"])
        download.state = .failed
        download.error = DownloadError(.internal, reason)
        download.stateReason = ""
        download.speed = 0
        return commits.submit(.save(download), event: nil)
    }

    /// Deletes a removed download's files and record, after its transfers have stopped.
    /// Concurrent cancels of one download all get here: only a download still REMOVING after
    /// the wait is deleted, so one that another cancel deleted and a client added again
    /// meanwhile is left alone, and a folder already gone is no error.
    private func finishRemoval(_ id: String) async throws {
        guard entries[id]?.lifecycle.state == .removing else { return }
        await waitForStops(of: id)
        guard entries[id]?.lifecycle.state == .removing else { return }
        try removeAssetFolder(layout.assetFolder(id: id))
        if entries[id]?.download.hls != nil {
            do {
                try keys.deleteAll(asset: id)
            } catch {
                throw StashError(.internal, "could not delete the keys of '\(id)': \(error)")
            }
        }
        if let download = entries[id]?.download { unindexContent(download) }
        entries[id] = nil
        if let index = order.firstIndex(of: id) { order.remove(at: index) }
        try await commits.submit(.delete(id), event: .removed(id: id)).wait()
        logger.info("download removed", metadata: ["id": "\(id)"])
    }
}
