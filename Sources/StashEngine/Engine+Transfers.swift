import Foundation
import StashCore
import StashFetch

extension Engine {
    /// Gives free download slots to the oldest queued downloads, then free transfer slots to
    /// the files of active downloads.
    func schedule() {
        guard !shuttingDown else { return }
        while let id = queue.next() {
            guard let entry = entries[id], entry.lifecycle.state == .queued else { continue }
            if let shortfall = storageShortfall(entry.download) {
                holdForStorage(id, reason: shortfall)
                continue
            }
            _ = try? transition(id, .schedule) { $0.stateReason = "" }
        }
        if slotsChanged { fillTransferSlots() }
    }

    func enqueueWaiting(_ id: String) {
        queue.enqueue(id)
    }

    /// After max-parallel was lowered: the newest active downloads go back to the queue,
    /// keeping their partial files.
    func requeueExcess() {
        for id in queue.excess(seq: { entries[$0]?.seq ?? 0 }) {
            _ = try? transition(id, .requeue) { $0.stateReason = "waiting for a free slot (max-parallel lowered)" }
        }
    }

    /// A download got its slot: every file not yet on disk waits for a transfer slot.
    func beginFiles(_ entry: inout Entry) {
        let files = entry.download.files
        slots.activate(
            entry.download.id, seq: entry.seq,
            files: files.indices.filter { !files[$0].done }.map { ($0, files[$0].host) },
            fileSlots: entry.download.hls?.segmentConcurrency)
        entry.activity = .transferring([:])
        entry.lastProgressEvent = (-1, 0)
        entry.speed.reset()
        queue.activate(entry.download.id)
        slotsChanged = true
    }

    /// Starts the transfers `TransferSlots` gives room to and completes the downloads that
    /// have nothing left to transfer.
    func fillTransferSlots() {
        slotsChanged = false
        var finished: [String] = []
        for action in slots.fill() {
            switch action {
            case .start(let id, let index):
                guard var entry = entries[id] else { continue }
                startFile(&entry, index: index)
                entries[id] = entry
            case .idle(let id):
                // Every file was already on disk (a resume after the last one landed).
                guard let entry = entries[id], entry.lifecycle.state.isActive, !entry.activity.isCompleting, !entry.activity.isPlanning,
                      entry.download.filesDone == entry.download.filesTotal else { continue }
                finished.append(id)
            }
        }
        for id in finished { complete(id) }
    }

    private func startFile(_ entry: inout Entry, index: Int) {
        let download = entry.download
        let file = download.files[index]
        let generation = nextGeneration
        nextGeneration += 1
        let request = FetchRequest(
            url: file.url, headers: download.headers,
            folder: layout.assetFolder(id: download.id), relativePath: file.path,
            expectedSHA256: file.sha256, etag: file.etag, lastModified: file.lastModified,
            retry: RetryPolicy(config), lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime,
            durability: download.isFolder ? .grouped : .alone,
            range: file.rangeOffset.map { FetchRange(offset: $0, length: file.size ?? 0) },
            expectedSize: file.rangeOffset == nil ? file.size : nil)
        let notices = self.notices
        let id = download.id
        let transfer = fetch.start(request) { event in
            notices.post(FetchNotice(id: id, index: index, generation: generation, event: event))
        }
        entry.activity.started(index, FileTransfer(transfer: transfer, generation: generation))
    }

    /// Detaches every transfer of the download (their later events are ignored) and stops
    /// them in the background; `stopping` lets a removal wait until the files are closed.
    func stopFiles(_ entry: inout Entry) {
        slots.deactivate(entry.download.id)
        slotsChanged = true
        stopPlanning(&entry)
        let transfers = Array(entry.activity.transfers.values)
        // Whatever was under way ends here; a completion's sync that returns later finds the
        // download no longer active.
        entry.activity = .idle
        guard !transfers.isEmpty else { return }
        let id = entry.download.id
        let previous = stopping[id]
        // Queued now, in order before any restart of this download reopens its part files.
        let (done, signal) = AsyncStream.makeStream(of: Void.self)
        for transfer in transfers {
            fetch.cancel(transfer.transfer) { signal.yield() }
        }
        let count = transfers.count
        let stop = Task {
            await previous?.value
            var stoppedCount = 0
            for await _ in done {
                stoppedCount += 1
                if stoppedCount == count { break }
            }
        }
        noteStopping(id, stop, measureWhenDone: true)
    }

    func stopped(_ id: String) {
        // A paused download's byte count is what its files hold once the writers stopped.
        guard var entry = entries[id], entry.activity.transfers.isEmpty, entry.download.state != .removing else { return }
        let before = entry.download.downloadedBytes
        measureFiles(&entry.download)
        if entry.download.downloadedBytes != before {
            entries[id] = entry
            commits.submit(.save(entry.download), event: nil)
        }
    }

    /// Reads each unfinished file's bytes from its part file, and sums the download.
    func measureFiles(_ download: inout Download) {
        var total: Int64 = 0
        for index in download.files.indices {
            if !download.files[index].done {
                download.files[index].downloadedBytes = fileSize(layout.filePath(id: download.id, download.files[index]) + ".part") ?? 0
            }
            total = total.addingSaturating(download.files[index].downloadedBytes)
        }
        download.downloadedBytes = total
    }

    /// The download's total: exact when every file's size is known, else the known sizes plus
    /// their average for each unknown file (refined as files start), nil when none is known.
    static func estimatedTotal(_ files: [DownloadFile]) -> Int64? {
        estimatedTotal(files, planned: nil)
    }

    /// A download's total as `estimatedTotal(_:planned:)` makes it, its text tracks' files
    /// counted by their known sizes only: subtitles are small, and guessing one from the
    /// average of a video would hold the download back for disk space it does not need.
    static func estimatedTotal(of download: Download, planned: Int64? = nil) -> Int64? {
        guard !download.textTracks.isEmpty else { return estimatedTotal(download.files, planned: planned) }
        var content: [DownloadFile] = []
        var tracks: Int64 = 0
        for file in download.files {
            if download.isTextTrackFile(file) {
                tracks = tracks.addingSaturating(file.size ?? 0)
            } else {
                content.append(file)
            }
        }
        return estimatedTotal(content, planned: planned).map { $0.addingSaturating(tracks) }
    }

    /// With `planned`, an HLS package's size from its playlists: unknown files are guessed
    /// from the known ones of their own folder only (a subtitle segment is not a video
    /// segment), and the total is never below the playlists' figure until every size is known.
    static func estimatedTotal(_ files: [DownloadFile], planned: Int64?) -> Int64? {
        guard let planned else { return estimatedTotalByAverage(files) }
        var known: Int64 = 0
        var byFolder: [Substring: (sum: Int64, count: Int64, unknown: Int64)] = [:]
        for file in files {
            let folder = file.path[..<(file.path.lastIndex(of: "/") ?? file.path.startIndex)]
            if let size = file.size {
                known = known.addingSaturating(size)
                byFolder[folder, default: (0, 0, 0)].sum = byFolder[folder, default: (0, 0, 0)].sum.addingSaturating(size)
                byFolder[folder, default: (0, 0, 0)].count += 1
            } else {
                byFolder[folder, default: (0, 0, 0)].unknown += 1
            }
        }
        if byFolder.values.allSatisfy({ $0.unknown == 0 }) { return known }
        let guessed = byFolder.values.reduce(known) { total, folder in
            folder.count > 0 ? total.addingSaturating((folder.sum / folder.count).multipliedSaturating(by: folder.unknown)) : total
        }
        return max(guessed, planned)
    }

    private static func estimatedTotalByAverage(_ files: [DownloadFile]) -> Int64? {
        var known: Int64 = 0
        var count: Int64 = 0
        for file in files {
            if let size = file.size {
                known = known.addingSaturating(size)
                count += 1
            }
        }
        guard count > 0 else { return nil }
        if count == files.count { return known }
        return known.addingSaturating((known / count).multipliedSaturating(by: Int64(files.count) - count))
    }

    /// Handles the fetch events waiting, in order, then gives the slots they freed to waiting
    /// files once, not once per event. Events that came meanwhile are handled by a job of their
    /// own, queued behind the requests already waiting for the engine, so a busy stream of
    /// events never keeps a client's call waiting for long.
    func handleNotices() {
        let batch = notices.take()
        // An empty take ends the drain: the next event starts another.
        guard !batch.isEmpty else { return }
        for notice in batch { handle(notice) }
        schedule()
        handleNoticesLater()
    }

    /// Queues a drain of the fetch events as a job of its own on the engine.
    nonisolated func handleNoticesLater() {
        Task { [weak self] in await self?.handleNotices() }
    }

    /// Applies one fetch event to its download; the caller schedules afterwards.
    func handle(_ notice: FetchNotice) {
        guard !shuttingDown, entries[notice.id]?.activity.transfers[notice.index]?.generation == notice.generation,
              var entry = entries.take(notice.id) else { return }
        // Every case below puts the entry back before it calls anything that looks it up.
        let id = notice.id
        let index = notice.index
        let now = clock.now().timeIntervalSinceReferenceDate
        if notice.event.isFinal {
            entry.activity.ended(index)
            slots.ended(id, index: index)
            slotsChanged = true
        }
        switch notice.event {
        case .started(let info):
            // Only the download's own file: a text track's server may call it anything.
            if HLSRules.isPlaylistContentType(info.contentType), !entry.download.isFolder, index == 0 {
                entries[id] = entry
                becomeHLS(id)
                return
            }
            var file = entry.download.files[index]
            let sizeWasUnknown = entry.download.totalBytes == nil
            // Bytes were kept for this file, and the server's answer made them worthless.
            let startsOver = file.downloadedBytes > 0 && info.resumedFrom == 0
            file.etag = info.etag
            file.lastModified = info.lastModified
            entry.download.downloadedBytes = entry.download.downloadedBytes.addingSaturating(info.resumedFrom.subtractingSaturating(file.downloadedBytes))
            file.downloadedBytes = info.resumedFrom
            if let total = info.totalBytes, total != file.size {
                file.size = total
                entry.download.files[index] = file
                entry.download.totalBytes = Self.estimatedTotal(of: entry.download, planned: entry.planEstimate)
            } else {
                entry.download.files[index] = file
            }
            if !entry.download.isFolder, index == 0 {
                entry.download.stateReason = info.resumedFrom > 0 ? "resumed at byte \(info.resumedFrom)" : ""
                entry.speed.reset()
            }
            entries[id] = entry
            commits.submit(
                entry.download.isFolder ? .noteFile(id: id, index: index, file: file) : .saveFile(id: id, index: index, file: file),
                event: nil)
            // The first response told the size: a download that cannot fit waits for space.
            if sizeWasUnknown, let shortfall = storageShortfall(entry.download) {
                _ = try? transition(id, .requeue) { $0.stateReason = shortfall }
                schedule()
                return
            }
            if startsOver {
                // Shown until its bytes flow again (the next progress), so a client sees why
                // the progress went back.
                let what = entry.download.isFolder || index > 0 ? "file '\(file.path)'" : "the file"
                _ = try? transition(id, .restart) {
                    $0.stateReason = "the server did not resume \(what) (it ignored the range, or the file changed): starting over from byte 0"
                }
            } else if entry.lifecycle.state != .downloading {
                _ = try? transition(id, .transferStarted)
            }

        case .progress(let bytes, _):
            let delta = bytes - entry.download.files[index].downloadedBytes
            entry.download.files[index].downloadedBytes = bytes
            record(&entry, delta: delta, now: now, forceEvent: false)
            entries[id] = entry
            if entry.lifecycle.state == .restarting {
                _ = try? transition(id, .transferStarted) { $0.stateReason = "" }
            }

        case .retrying(let attempt, let delayMs, let error):
            logger.notice("transfer will retry", metadata: ["id": "\(id)", "file": "\(entry.download.files[index].path)", "attempt": "\(attempt)", "delay_ms": "\(delayMs)", "error": "\(error.message.withoutURLSecrets)"])
            entry.download.stateReason = "retrying in \(delayMs) ms after attempt \(attempt): \(fileLabel(entry.download, index, message: error.message))\(error.message)"
            entries[id] = entry

        case .waitingForNetwork:
            entries[id] = entry
            _ = try? transition(id, .networkLost) { $0.stateReason = "the network is unreachable; resumes when it is back" }

        case .completed(let bytes, _):
            var file = entry.download.files[index]
            let sizeChanged = file.size != bytes
            let delta = bytes - file.downloadedBytes
            file.downloadedBytes = bytes
            file.size = bytes
            file.done = true
            entry.download.files[index] = file
            entry.download.filesDone += 1
            if sizeChanged {
                entry.download.totalBytes = Self.estimatedTotal(of: entry.download, planned: entry.planEstimate)
                commits.submit(.saveFile(id: id, index: index, file: file), event: nil)
            }
            if entry.download.filesDone == entry.download.filesTotal {
                sessionBytes += max(0, delta)
                entry.download.downloadedBytes += delta
                entries[id] = entry
                complete(id)
            } else {
                record(&entry, delta: delta, now: now, forceEvent: true)
                entries[id] = entry
            }

        case .failed(let error):
            entries[id] = entry
            var failure = error
            failure.message = fileLabel(entry.download, index, message: error.message) + error.message
            _ = try? transition(id, .transferFailed) { record in
                record.error = failure
                record.stateReason = ""
            }

        case .noSpace(let error):
            entries[id] = entry
            logger.warning("download paused: disk full", metadata: ["id": "\(id)", "error": "\(error.message.withoutURLSecrets)"])
            var failure = error
            failure.message = fileLabel(entry.download, index, message: error.message) + error.message
            _ = try? transition(id, .pause) { record in
                record.error = failure
                record.stateReason = "insufficient storage: the disk filled up; free space, then resume"
            }

        case .stopped, .received:
            // File transfers never end with `.received`; that is for in-memory fetches.
            entries[id] = entry
        }
    }

    /// Counts new bytes of a download and announces or saves its progress when due.
    private func record(_ entry: inout Entry, delta: Int64, now: TimeInterval, forceEvent: Bool) {
        if delta > 0 { sessionBytes += delta }
        entry.download.downloadedBytes += delta
        entry.speed.sample(bytes: entry.download.downloadedBytes, at: now)
        entry.download.speed = Int64(entry.speed.bytesPerSecond)
        let percent = entry.download.progressPercent
        let announce = forceEvent || percent - entry.lastProgressEvent.percent >= Self.progressStep
            || now - entry.lastProgressEvent.time >= Self.progressInterval
        if announce { entry.lastProgressEvent = (percent, now) }
        let persist = now - entry.lastProgressSave >= Self.progressSaveInterval
        if persist { entry.lastProgressSave = now }
        if announce || persist {
            commits.submit(persist ? .save(entry.download) : nil, event: announce ? .progress(ProgressUpdate(entry.download)) : nil)
        }
    }

    /// Every file is on disk: the download is complete. A bundle's renames are made durable
    /// first, by a syncfs shared with other files landing meanwhile (its files skip the
    /// per-file folder fsync); that runs off the engine, and a pause or cancel meanwhile wins.
    private func complete(_ id: String) {
        guard var entry = entries[id], !entry.activity.isCompleting else { return }
        let download = entry.download
        guard download.isFolder else {
            finishCompletion(id)
            return
        }
        entry.activity = .completing
        entries[id] = entry
        var folders = Set<String>()
        for file in download.files {
            folders.insert((layout.filePath(id: id, file) as NSString).deletingLastPathComponent)
        }
        let fetch = self.fetch
        // Files appended meanwhile (`Engine+Append`) are not covered by this sync: their own
        // completion syncs again, and this one's end must not complete the download.
        let synced = download.filesTotal
        Task {
            var failure: DownloadError?
            do {
                try await fetch.syncFolders(folders.sorted())
            } catch {
                failure = DownloadError(.storage, "\(error)")
            }
            self.finishCompletion(id, failure: failure, synced: synced)
        }
    }

    /// `synced`: how many files the folder sync before it covered (nil without one).
    private func finishCompletion(_ id: String, failure: DownloadError? = nil, synced: Int? = nil) {
        guard let entry = entries[id], entry.lifecycle.state.isActive, entry.activity.transfers.isEmpty,
              entry.download.filesDone == entry.download.filesTotal, synced.map({ $0 == entry.download.filesTotal }) ?? true else { return }
        if let failure {
            _ = try? transition(id, .transferFailed) { $0.error = failure }
            schedule()
            return
        }
        _ = try? transition(id, .transferCompleted) { record in
            record.totalBytes = record.files.saturatingSum { $0.size ?? $0.downloadedBytes }
            record.downloadedBytes = record.totalBytes ?? record.downloadedBytes
            record.completedAt = clock.now()
            record.error = nil
            record.stateReason = ""
        }
        // The slot it held is free (when this ran after the folder sync, nothing else would
        // look at the queue).
        schedule()
    }

    /// Names the file in a bundle's messages; a single file's URL is already in them. The
    /// files after a single file's own are its text tracks'.
    /// Which file of a bundle or package an error is about, before the error's message; the
    /// URL only when that message does not name it already (a storage error names the path).
    private func fileLabel(_ download: Download, _ index: Int, message: String) -> String {
        guard download.isFolder || index > 0 else { return "" }
        let file = download.files[index]
        return message.contains(file.url) ? "file '\(file.path)': " : "file '\(file.path)' (\(file.url)): "
    }
}
