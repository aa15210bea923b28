import Foundation
import StashCore
import StashFetch

extension Engine {
    /// Gives free slots to the oldest queued downloads.
    func schedule() {
        guard !shuttingDown else { return }
        while active.count < config.maxParallel, waitingHead < waiting.count {
            let id = waiting[waitingHead]
            waitingHead += 1
            guard entries[id]?.lifecycle.state == .queued else { continue }
            _ = try? transition(id, .schedule) { $0.stateReason = "" }
        }
        if waitingHead > 1024, waitingHead * 2 > waiting.count {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
    }

    func enqueueWaiting(_ id: String) {
        waiting.append(id)
    }

    /// After max-parallel was lowered: the newest active downloads go back to the queue,
    /// keeping their partial files.
    func requeueExcess() {
        let excess = active.count - config.maxParallel
        guard excess > 0 else { return }
        let newest = active.sorted { (entries[$0]?.seq ?? 0) > (entries[$1]?.seq ?? 0) }.prefix(excess)
        for id in newest {
            _ = try? transition(id, .requeue) { $0.stateReason = "waiting for a free slot (max-parallel lowered)" }
        }
    }

    func startTransfer(_ entry: inout Entry) {
        let download = entry.download
        let generation = nextGeneration
        nextGeneration += 1
        entry.generation = generation
        entry.lastProgressEvent = (-1, 0)
        entry.speed.reset()
        let request = FetchRequest(
            url: download.uri, headers: download.headers,
            partPath: layout.partPath(download.assetPath), finalPath: layout.absolute(download.assetPath),
            expectedSHA256: download.sha256, etag: download.etag, lastModified: download.lastModified,
            retry: RetryPolicy(config), lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime)
        let sink = noticeSink
        let id = download.id
        entry.transfer = fetch.start(request) { event in
            sink.yield(FetchNotice(id: id, generation: generation, event: event))
        }
        active.insert(id)
    }

    /// Detaches the transfer from the download (its later events are ignored) and stops it in
    /// the background; `stopping` lets a removal wait until the file is closed.
    func stopTransfer(_ entry: inout Entry) {
        entry.generation = 0
        guard let transfer = entry.transfer else { return }
        entry.transfer = nil
        let id = entry.download.id
        let fetch = self.fetch
        let previous = stopping[id]
        // Queued now, in order before any restart of this download reopens its part file.
        let (done, signal) = AsyncStream.makeStream(of: Void.self)
        fetch.cancel(transfer) { signal.finish() }
        stopping[id] = Task {
            await previous?.value
            for await _ in done {}
            self.stopped(id)
        }
    }

    private func stopped(_ id: String) {
        stopping[id] = nil
        // A paused download's byte count is what the part file holds once the writer stopped.
        guard var entry = entries[id], entry.transfer == nil, entry.download.state != .removing else { return }
        if let size = fileSize(layout.partPath(entry.download.assetPath)), size != entry.download.downloadedBytes {
            entry.download.downloadedBytes = size
            entries[id] = entry
            commits.submit(.save(entry.download), event: nil)
        }
    }

    func handle(_ notice: FetchNotice) {
        guard !shuttingDown, var entry = entries[notice.id], entry.generation == notice.generation, notice.generation != 0 else { return }
        let id = notice.id
        let now = Date().timeIntervalSinceReferenceDate
        switch notice.event {
        case .started(let info):
            entry.download.etag = info.etag
            entry.download.lastModified = info.lastModified
            entry.download.totalBytes = info.totalBytes
            entry.download.downloadedBytes = info.resumedFrom
            entry.download.stateReason = info.resumedFrom > 0 ? "resumed at byte \(info.resumedFrom)" : ""
            entry.speed.reset()
            entries[id] = entry
            if (try? transition(id, .transferStarted)) == nil {
                // Already downloading (a retry got new headers): keep the new validators.
                commits.submit(.save(entry.download), event: nil)
            }

        case .progress(let bytes, let total):
            if bytes > entry.download.downloadedBytes { sessionBytes += bytes - entry.download.downloadedBytes }
            entry.download.downloadedBytes = bytes
            if let total { entry.download.totalBytes = total }
            entry.speed.sample(bytes: bytes, at: now)
            entry.download.speed = Int64(entry.speed.bytesPerSecond)
            let percent = entry.download.progressPercent
            let announce = percent - entry.lastProgressEvent.percent >= Self.progressStep
                || now - entry.lastProgressEvent.time >= Self.progressInterval
            if announce { entry.lastProgressEvent = (percent, now) }
            let persist = now - entry.lastProgressSave >= Self.progressSaveInterval
            if persist { entry.lastProgressSave = now }
            entries[id] = entry
            if announce || persist {
                commits.submit(persist ? .save(entry.download) : nil, event: announce ? .progress(ProgressUpdate(entry.download)) : nil)
            }

        case .retrying(let attempt, let delayMs, let error):
            logger.notice("transfer will retry", metadata: ["id": "\(id)", "attempt": "\(attempt)", "delay_ms": "\(delayMs)", "error": "\(error.message)"])
            entry.download.stateReason = "retrying in \(delayMs) ms after attempt \(attempt): \(error.message)"
            entries[id] = entry

        case .waitingForNetwork:
            _ = try? transition(id, .networkLost) { $0.stateReason = "the network is unreachable; resumes when it is back" }

        case .completed(let bytes, _):
            if bytes > entry.download.downloadedBytes { sessionBytes += bytes - entry.download.downloadedBytes }
            entry.transfer = nil
            entry.generation = 0
            entries[id] = entry
            _ = try? transition(id, .transferCompleted) { record in
                record.downloadedBytes = bytes
                record.totalBytes = bytes
                record.completedAt = Date()
                record.error = nil
                record.stateReason = ""
            }

        case .failed(let error):
            entry.transfer = nil
            entry.generation = 0
            entries[id] = entry
            logger.warning("download failed", metadata: ["id": "\(id)", "error": "\(error.message)"])
            let partBytes = fileSize(layout.partPath(entry.download.assetPath)) ?? 0
            _ = try? transition(id, .transferFailed) { record in
                record.error = error
                record.downloadedBytes = partBytes
                record.stateReason = ""
            }

        case .stopped:
            break
        }
        schedule()
    }
}
