import Foundation
import StashCore
import StashFetch

/// Scheduling: download slots (max-parallel) to the first queued downloads (`QueueKey`), transfer slots
/// (the connection caps) to the files of the active ones.
extension EngineState {
    /// Gives free download slots to the first queued downloads, and with `preempt` the slots
    /// of lower-priority ones, then free transfer slots to the files of active downloads.
    mutating func schedule(into effects: inout [EngineEffect]) {
        guard !shuttingDown else { return }
        startWaitingReplaces(into: &effects)
        // Each preemption frees one slot for a download of higher priority than the one it
        // takes it from, so this ends; the bound is a second guard.
        var preemptions = 0
        repeat {
            while let id = nextQueued() {
                guard let entry = entries[id], entry.lifecycle.state == .queued else { continue }
                if let reason = desktopWait(for: entry.download) {
                    waitForDesktop(id, reason: reason, into: &effects)
                    continue
                }
                if let shortfall = storageShortfall(entry.download, into: &effects) {
                    holdOrFail(id, for: shortfall, into: &effects)
                    continue
                }
                _ = try? transition(id, .schedule, into: &effects) { $0.stateReason = "" }
            }
            preemptions += 1
        } while preemptions <= queue.maxParallel && preempt(into: &effects)
        if slotsChanged { fillTransferSlots(into: &effects) }
    }

    /// After max-parallel was lowered: the active downloads that would run last go back to
    /// the queue, keeping their partial files.
    mutating func requeueExcess(into effects: inout [EngineEffect]) {
        for id in queue.excess(key: { queueKey($0) ?? QueueKey(priority: .low, position: .max, seq: .max) }) {
            _ = try? transition(id, .requeue, into: &effects) { $0.stateReason = "waiting for a free slot (max-parallel lowered)" }
        }
    }

    /// A download got its slot: every file not yet on disk waits for a transfer slot.
    mutating func beginFiles(_ entry: inout Entry) {
        let files = entry.download.files
        slots.activate(
            entry.download.id, seq: entry.seq, priority: entry.download.priority,
            files: files.indices.filter { !files[$0].done }.map { ($0, files[$0].host) },
            fileSlots: entry.download.hls?.segmentConcurrency)
        entry.activity = .transferring([:])
        endRetryWaits(entry.download.id)
        entry.pace.lastEvent = (-1, 0)
        // Progress is saved once the files have been transferring for `progressSaveInterval`,
        // not at their first bytes: a small file's record is saved when it completes, one
        // transaction fewer per download.
        entry.pace.lastSave = clock.now().timeIntervalSinceReferenceDate
        entry.pace.speed.reset()
        queue.activate(entry.download.id, priority: entry.download.priority)
        slotsChanged = true
    }

    /// An HLS download got its slot but has no files yet: its playlists are read, and
    /// `.planned` turns the result into its files.
    mutating func beginPlanning(_ entry: inout Entry, into effects: inout [EngineEffect]) {
        let generation = nextGeneration
        nextGeneration += 1
        queue.activate(entry.download.id, priority: entry.download.priority)
        entry.pace.speed.reset()
        entry.activity = .planning(generation: generation)
        let attempts = retries[entry.download.id]?[FileRetry.planning]?.attempts ?? 0
        if attempts > 0 { retries[entry.download.id]?[FileRetry.planning]?.waiting = false }
        effects.append(.startPlanning(generation: generation, entry.download, attemptsBefore: attempts))
    }

    /// Starts the transfers `TransferSlots` gives room to and completes the downloads that
    /// have nothing left to transfer.
    mutating func fillTransferSlots(into effects: inout [EngineEffect]) {
        slotsChanged = false
        var finished: [String] = []
        var deferred: [String] = []
        for action in slots.fill() {
            switch action {
            case .start(let id, let index):
                guard var entry = entries[id] else { continue }
                startFile(&entry, index: index, into: &effects)
                entries[id] = entry
            case .idle(let id):
                // Every file was already on disk (a resume after the last one landed), or
                // the files left wait to retry.
                guard let entry = entries[id], entry.lifecycle.state.isActive, !entry.activity.isCompleting, !entry.activity.isPlanning else { continue }
                if entry.download.filesDone == entry.download.filesTotal {
                    finished.append(id)
                } else if waitsToRetry(id) {
                    deferred.append(id)
                }
            }
        }
        for id in finished { complete(id, into: &effects) }
        for id in deferred { deferRetry(id, into: &effects) }
        // Their download slots are free.
        if !deferred.isEmpty { schedule(into: &effects) }
    }

    private mutating func startFile(_ entry: inout Entry, index: Int, into effects: inout [EngineEffect]) {
        let download = entry.download
        let file = download.files[index]
        let generation = nextGeneration
        nextGeneration += 1
        var request = FetchRequest(
            url: file.url, headers: download.headers,
            folder: layout.assetFolder(id: download.id), relativePath: file.path,
            expectedSHA256: file.sha256, etag: file.etag, lastModified: file.lastModified,
            retry: RetryPolicy(config), lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime,
            durability: download.isFolder ? .grouped : .alone,
            range: file.rangeOffset.map { FetchRange(offset: $0, length: file.size ?? 0) },
            expectedSize: file.rangeOffset == nil ? file.size : nil, contentCheck: ContentCheck(file: file, labelled: !download.isFolder))
        // A new URL's server may give no validators: its size is then what tells the content.
        request.resumeOnSize = file.newURL
        request.rateGroup = download.id
        request.groupRateLimit = download.rateLimit
        request.retriesOutside = true
        if let retry = retries[download.id]?[index] {
            request.attemptsBefore = retry.attempts
            // Whole milliseconds left of the backoff; at most a day, so the conversion holds.
            request.delayMs = Int(min(max(0, retry.notBefore.timeIntervalSince(clock.now())), 86_400) * 1000)
        }
        entry.activity.started(index, generation: generation)
        effects.append(.startTransfer(id: download.id, index: index, generation: generation, request))
    }

    /// Gives up the download's transfer slots and orders its planning and transfers stopped;
    /// their later events are ignored. Whatever was under way ends here: a completion's sync
    /// that returns later finds the download no longer active.
    mutating func stopFiles(_ entry: inout Entry, into effects: inout [EngineEffect]) {
        let id = entry.download.id
        slots.deactivate(id)
        slotsChanged = true
        if case .planning(let generation) = entry.activity {
            // It may be writing playlists into the folder a removal deletes: the removal waits.
            effects.append(.stopPlanning(id: id, generation: generation))
        }
        let generations = Array(entry.activity.transfers.values)
        entry.activity = .idle
        guard !generations.isEmpty else { return }
        effects.append(.stopTransfers(id: id, generations: generations))
    }

    /// The transfers stopped: a paused download's byte count is what its files hold once the
    /// writers closed them.
    mutating func transfersStopped(_ id: String, into effects: inout [EngineEffect]) {
        guard var entry = entries[id], entry.activity.transfers.isEmpty, entry.download.state != .removing else { return }
        let before = entry.download.downloadedBytes
        measureFiles(&entry.download)
        guard entry.download.downloadedBytes != before else { return }
        entries[id] = entry
        effects.append(.commit(.save(entry.download), then: nil))
    }
}
