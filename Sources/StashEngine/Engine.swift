import Foundation
import Logging
import StashCore
import StashFetch
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
        /// Identifies the current transfer's events; 0 when there is none.
        var generation: UInt64 = 0
        var transfer: TransferID?
        var speed = SpeedMeter()
        var lastProgressEvent: (percent: Int, time: TimeInterval) = (-1, 0)
        var lastProgressSave: TimeInterval = 0
    }

    /// A fetch event tagged with the download and transfer it belongs to.
    struct FetchNotice: Sendable {
        let id: String
        let generation: UInt64
        let event: FetchEvent
    }

    let layout: AssetLayout
    let registry: Registry
    let fetch: FetchWorkers
    let bus = EventBus()
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
    /// Ids waiting for a slot, oldest first; stale ids (no longer QUEUED) are skipped on pop.
    var waiting: [String] = []
    var waitingHead = 0
    /// Downloads holding a transfer slot.
    var active: Set<String> = []
    var nextGeneration: UInt64 = 1
    var sessionBytes: Int64 = 0
    var shuttingDown = false
    let notices: AsyncStream<FetchNotice>
    let noticeSink: AsyncStream<FetchNotice>.Continuation
    var noticeTask: Task<Void, Never>?
    /// Transfers being torn down, so a removal can wait for the file to be closed.
    var stopping: [String: Task<Void, Never>] = [:]

    /// Progress of one download is announced when it moved by this many percent …
    static let progressStep = 1
    /// … or this many seconds passed.
    static let progressInterval: TimeInterval = 0.25
    /// Bytes of an active download are written to the registry this often, so `stash ls`
    /// after a crash is close to the truth (the part file is the real measure on resume).
    static let progressSaveInterval: TimeInterval = 2

    public init(dataDir: String, socketPath: String, registry: Registry, fetch: FetchWorkers, config: DaemonConfig, logger: Logger) {
        self.layout = AssetLayout(dataDir: dataDir)
        self.socketPath = socketPath
        self.registry = registry
        self.fetch = fetch
        self.config = config
        self.logger = logger
        self.commits = CommitQueue(registry: registry, bus: bus)
        self.records = entries.cache
        (notices, noticeSink) = AsyncStream.makeStream(of: FetchNotice.self)
    }

    /// Loads the registry, reconciles it with the disk, and starts what was queued or running.
    public func start() async throws {
        try FileManager.default.createDirectory(atPath: layout.assetsDir, withIntermediateDirectories: true)
        fetch.setRateLimit(config.rateLimit)
        let loaded = try registry.loadAll()
        for problem in loaded.problems {
            logger.warning("registry record skipped or repaired", metadata: ["problem": "\(problem)"])
        }
        var tickets: [CommitTicket] = []
        var removals: [String] = []
        for download in loaded.downloads {
            let id = download.id
            entries[id] = Entry(download: download, lifecycle: DownloadLifecycle(state: download.state), seq: nextSeq)
            order.append(id)
            nextSeq += 1
            switch recover(id) {
            case .commit(let ticket): tickets.append(ticket)
            case .remove: removals.append(id)
            case .unchanged: break
            }
        }
        for ticket in tickets { try await ticket.wait() }
        for id in removals { try await finishRemoval(id) }
        let notices = self.notices
        noticeTask = Task { [weak self] in
            for await notice in notices {
                guard let self else { return }
                await self.handle(notice)
            }
        }
        logger.info("engine started", metadata: ["downloads": "\(entries.count)", "queued": "\(waiting.count - waitingHead)"])
        schedule()
    }

    /// Stops every transfer and waits for the registry to hold the last state. Partial files
    /// stay; active downloads go back to the queue on the next start.
    public func shutdown() async {
        shuttingDown = true
        for id in active {
            entries[id]?.generation = 0
            entries[id]?.transfer = nil
        }
        await fetch.shutdown()
        var last: CommitTicket?
        for id in active {
            guard var entry = entries[id] else { continue }
            entry.download.downloadedBytes = fileSize(layout.partPath(entry.download.assetPath)) ?? entry.download.downloadedBytes
            entry.download.speed = 0
            entries[id] = entry
            last = commits.submit(.save(entry.download), event: nil)
        }
        try? await last?.wait()
        noticeSink.finish()
        bus.finishAll()
    }

    // MARK: - Requests

    /// Adds a download. With an id that exists: the same URI returns the existing record
    /// (`created` false); another URI is ALREADY_EXISTS.
    public func add(id requestedID: String, uri: String, title: String, sha256: String, headers: [HTTPHeader]) async throws -> (download: Download, created: Bool) {
        try DownloadRequestRules.validateURI(uri)
        try DownloadRequestRules.validateTitle(title)
        try DownloadRequestRules.validateHeaders(headers)
        let digest = try DownloadRequestRules.normalizeSHA256(sha256)
        let id: String
        if requestedID.isEmpty {
            id = newID()
        } else {
            try DownloadRequestRules.validateID(requestedID)
            id = requestedID
            if let existing = entries[id] {
                guard existing.download.uri == uri else {
                    throw StashError(.alreadyExists, "download '\(id)' already exists with uri '\(existing.download.uri)'; use another id or cancel it first")
                }
                return (publicView(existing.download), false)
            }
        }
        let download = Download(
            id: id, uri: uri, title: title, state: .queued,
            assetPath: layout.relativeFilePath(id: id, uri: uri), sha256: digest, headers: headers)
        entries[id] = Entry(download: download, lifecycle: DownloadLifecycle(state: .queued), seq: nextSeq)
        order.append(id)
        nextSeq += 1
        let ticket = commits.submit(.save(download), event: .stateChanged(publicView(download), previous: .notDownloaded))
        enqueueWaiting(id)
        schedule()
        try await ticket.wait()
        // The record as committed: later states reach the client as events once they are.
        return (publicView(download), true)
    }

    /// Answers from memory, on the caller's thread: no wait for the engine.
    public nonisolated func get(id: String) throws -> Download {
        guard let download = records.get(id) else { throw StashError.notFound(id: id) }
        return publicView(download)
    }

    /// Answers from memory, on the caller's thread: never touches the disk.
    public nonisolated func has(id: String) -> (exists: Bool, state: DownloadState) {
        guard let download = records.get(id) else { return (false, .notDownloaded) }
        return (true, download.state)
    }

    public static let defaultPageSize = 100
    public static let maxPageSize = 1000

    public func list(states: [DownloadState], pageSize: Int, pageToken: String) throws -> DownloadPage {
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
        for id in order {
            guard let entry = entries[id], filter.isEmpty || filter.contains(entry.download.state) else { continue }
            total += 1
            guard entry.seq > after else { continue }
            if page.count < size {
                page.append(publicView(entry.download))
                lastSeq = entry.seq
            } else {
                more = true
            }
        }
        return DownloadPage(downloads: page, nextPageToken: more ? String(lastSeq) : "", total: total)
    }

    public func pause(id: String) async throws -> Download {
        let change = try transition(id, .pause) { $0.stateReason = "paused by a client" }
        schedule()
        return try await committed(change, id: id)
    }

    public func resume(id: String) async throws -> Download {
        let change = try transition(id, .resume) {
            $0.error = nil
            $0.stateReason = ""
        }
        schedule()
        return try await committed(change, id: id)
    }

    /// Stops the download, deletes its files and its record.
    public func cancel(id: String) async throws {
        guard entries[id] != nil else { throw StashError.notFound(id: id) }
        let change = try transition(id, .cancel) { $0.stateReason = "cancelled by a client" }
        schedule()
        try await change?.ticket.wait()
        try await finishRemoval(id)
    }

    public func pauseAll() async throws -> Int {
        try await forEach(where: { $0 == .queued || $0.isActive }) { _ = try await self.pause(id: $0) }
    }

    public func resumeAll() async throws -> Int {
        try await forEach(where: { $0 == .paused || $0 == .failed || $0 == .stopped }) { _ = try await self.resume(id: $0) }
    }

    public func cancelAll() async throws -> Int {
        try await forEach(where: { $0 != .removing }) { try await self.cancel(id: $0) }
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
        return DownloadStats(speed: speed, counts: counts, activeTransfers: active.count, downloadedBytes: sessionBytes)
    }

    public func systemInfo() -> SystemInfo {
        let disk = DiskSpace.of(path: layout.dataDir)
        let held = entries.values.reduce(Int64(0)) { $0 + $1.download.downloadedBytes }
        return SystemInfo(
            dataDir: layout.dataDir, diskTotal: disk.total, diskFree: disk.free, bytesHeld: held,
            daemonVersion: StashVersion.daemon, socketPath: socketPath, downloadCount: entries.count)
    }

    /// Applies every entry or none: the first bad key or value is the error.
    public func setConfig(_ changes: [(key: String, value: String)]) async throws -> DaemonConfig {
        var updated = config
        for change in changes { try updated.set(change.key, to: change.value) }
        try await registry.saveConfig(updated)
        let lowered = updated.maxParallel < config.maxParallel
        config = updated
        fetch.setRateLimit(updated.rateLimit)
        if lowered { requeueExcess() }
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
        switch action {
        case .startTransfer:
            startTransfer(&entry)
        case .stopTransfer, .remove:
            stopTransfer(&entry)
        case .commit, .none:
            break
        }
        if !entry.lifecycle.state.isActive {
            entry.download.speed = 0
            entry.speed.reset()
            active.remove(id)
        }
        entries[id] = entry
        if entry.download.state == .queued { enqueueWaiting(id) }
        let view = publicView(entry.download)
        let ticket = commits.submit(.save(entry.download), event: .stateChanged(view, previous: previous))
        return Change(ticket: ticket, download: view)
    }

    /// Waits for a change to be durable and returns the record as committed; without a change,
    /// the record as it is.
    private func committed(_ change: Change?, id: String) async throws -> Download {
        guard let change else { return try get(id: id) }
        try await change.ticket.wait()
        return change.download
    }

    nonisolated func publicView(_ download: Download) -> Download {
        var view = download
        view.assetPath = layout.absolute(download.assetPath)
        view.etag = nil
        view.lastModified = nil
        return view
    }

    func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    private func forEach(where matches: (DownloadState) -> Bool, _ body: (String) async throws -> Void) async throws -> Int {
        let ids = order.filter { entries[$0].map { matches($0.download.state) } ?? false }
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
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        while true {
            let id = String((0..<12).map { _ in alphabet.randomElement()! })
            if entries[id] == nil { return id }
        }
    }

    private enum Recovery { case commit(CommitTicket), remove, unchanged }

    /// Reconciles one loaded record with the disk.
    private func recover(_ id: String) -> Recovery {
        guard let entry = entries[id] else { return .unchanged }
        let download = entry.download
        var intact = true
        var problem = ""
        if download.state == .completed {
            let path = layout.absolute(download.assetPath)
            if let size = fileSize(path) {
                let expected = download.totalBytes ?? download.downloadedBytes
                if size != expected {
                    intact = false
                    problem = "file on disk has \(size) bytes, expected \(expected): \(path)"
                }
            } else {
                intact = false
                problem = "file missing on disk: \(path)"
            }
        }
        do {
            let partBytes = fileSize(layout.partPath(download.assetPath))
            let ticket = try transition(id, .recover(fileIntact: intact)) { record in
                if !intact {
                    record.error = DownloadError(.storage, problem)
                    record.completedAt = nil
                } else if record.state == .queued {
                    record.downloadedBytes = partBytes ?? 0
                    record.stateReason = "resumed after a daemon restart"
                }
            }
            if entries[id]?.lifecycle.state == .removing { return .remove }
            return ticket.map { .commit($0.ticket) } ?? .unchanged
        } catch {
            return .unchanged
        }
    }

    /// Deletes a removed download's files and record, after its transfer has stopped.
    private func finishRemoval(_ id: String) async throws {
        guard entries[id] != nil else { return }
        await stopping[id]?.value
        let folder = layout.assetFolder(id: id)
        if FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.removeItem(atPath: folder)
            } catch {
                throw StashError(.internal, "could not delete \(folder): \(error.localizedDescription)")
            }
        }
        entries[id] = nil
        if let index = order.firstIndex(of: id) { order.remove(at: index) }
        try await commits.submit(.delete(id), event: .removed(id: id)).wait()
    }
}
