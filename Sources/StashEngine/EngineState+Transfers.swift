import Foundation
import StashCore
import StashFetch

/// Fetch events: what a transfer's report changes of its download.
extension EngineState {
    /// Applies one fetch event to its download; the caller schedules afterwards. An event of a
    /// transfer the download no longer has (stopped, or an earlier one of the same file) is
    /// ignored.
    mutating func handle(_ notice: FetchNotice, into effects: inout [EngineEffect]) {
        if !shuttingDown, handleReplacement(notice, into: &effects) { return }
        guard !shuttingDown, entries[notice.id]?.activity.transfers[notice.index] == notice.generation,
              var entry = entries.take(notice.id) else { return }
        // Every case below puts the entry back before it calls anything that looks it up.
        let id = notice.id
        let index = notice.index
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
                becomeHLS(id, into: &effects)
                return
            }
            started(&entry, index: index, info, into: &effects)

        case .progress(let bytes, _):
            let delta = bytes - entry.download.files[index].downloadedBytes
            entry.download.files[index].downloadedBytes = bytes
            record(&entry, delta: delta, forceEvent: false, into: &effects)
            entries[id] = entry
            if entry.lifecycle.state == .restarting {
                _ = try? transition(id, .transferStarted, into: &effects) { $0.stateReason = "" }
            }

        case .retrying(let attempt, let delayMs, let error):
            // Only a failure on a pooled connection is retried inside the transfer (on a new
            // connection); every other retry ends it (`.retryLater`).
            noteRetry(&entry, index: index, attempt: attempt, delayMs: delayMs, error: error, into: &effects)
            entries[id] = entry

        case .retryLater(let attempt, let delayMs, let error):
            entries[id] = entry
            retryLater(id, index: index, attempt: attempt, delayMs: delayMs, error: error, into: &effects)

        case .waitingForNetwork:
            entries[id] = entry
            _ = try? transition(id, .networkLost, into: &effects) { $0.stateReason = "the network is unreachable; resumes when it is back" }

        case .completed(let bytes, _):
            var file = entry.download.files[index]
            let sizeChanged = file.size != bytes
            let delta = bytes - file.downloadedBytes
            file.downloadedBytes = bytes
            file.size = bytes
            file.done = true
            entry.download.files[index] = file
            if !retries.isEmpty { retries[id]?[index] = nil }
            entry.download.filesDone += 1
            if sizeChanged {
                entry.download.totalBytes = SizeEstimate.total(of: entry.download, planned: entry.planEstimate)
                effects.append(.commit(.saveFile(id: id, index: index, file: file), then: nil))
            }
            if entry.download.filesDone == entry.download.filesTotal {
                sessionBytes += max(0, delta)
                entry.download.downloadedBytes += delta
                entries[id] = entry
                complete(id, into: &effects)
            } else {
                record(&entry, delta: delta, forceEvent: true, into: &effects)
                entries[id] = entry
            }

        case .failed(let error):
            entries[id] = entry
            var failure = error
            failure.message = fileLabel(entry.download, index, message: error.message) + error.message + Self.updateHint(entry.download, file: index, error)
            _ = try? transition(id, .transferFailed, into: &effects) { record in
                record.error = failure
                record.stateReason = ""
            }

        case .noSpace(let error):
            entries[id] = entry
            log(.warning, "download paused: disk full", ["id": "\(id)", "error": "\(error.message.withoutURLSecrets)"], into: &effects)
            var failure = error
            failure.message = fileLabel(entry.download, index, message: error.message) + error.message
            _ = try? transition(id, .pause, into: &effects) { record in
                record.error = failure
                record.stateReason = "insufficient storage: the disk filled up; free space, then resume"
            }

        case .stopped, .received:
            // File transfers never end with `.received`; that is for in-memory fetches.
            entries[id] = entry
        }
    }

    /// Response headers of file `index` arrived: its size and validators, where it resumed.
    /// Puts the entry back.
    private mutating func started(_ entry: inout Entry, index: Int, _ info: FetchResponseInfo, into effects: inout [EngineEffect]) {
        let id = entry.download.id
        var file = entry.download.files[index]
        let sizeWasUnknown = entry.download.totalBytes == nil
        // Bytes were kept for this file, and the server's answer made them worthless.
        let startsOver = file.downloadedBytes > 0 && info.resumedFrom == 0
        let newURI = file.newURL
        file.newURL = false
        file.etag = info.etag
        file.lastModified = info.lastModified
        entry.download.downloadedBytes = entry.download.downloadedBytes.addingSaturating(info.resumedFrom.subtractingSaturating(file.downloadedBytes))
        file.downloadedBytes = info.resumedFrom
        if let total = info.totalBytes, total != file.size {
            file.size = total
            entry.download.files[index] = file
            entry.download.totalBytes = SizeEstimate.total(of: entry.download, planned: entry.planEstimate)
        } else {
            entry.download.files[index] = file
        }
        if !entry.download.isFolder, index == 0 {
            entry.download.stateReason = info.resumedFrom > 0 ? "resumed at byte \(info.resumedFrom)" : ""
            entry.pace.speed.reset()
        }
        entries[id] = entry
        // Written with the record's next save (its first progress save, or its completion):
        // a transaction of its own per file start cost a commit per download.
        effects.append(.commit(.noteFile(id: id, index: index, file: file), then: nil))
        // The first response told the size: a download that cannot fit waits for space, or
        // fails when it never can.
        if sizeWasUnknown, let shortfall = storageShortfall(entry.download, into: &effects) {
            holdOrFail(id, for: shortfall, into: &effects)
            schedule(into: &effects)
            return
        }
        if startsOver {
            // Shown until its bytes flow again (the next progress), so a client sees why
            // the progress went back; a new URL's start over is logged too, as a bundle's other
            // files' progress soon takes its reason away.
            let what = entry.download.isFolder || index > 0 ? "file '\(file.path)'" : "the file"
            let reason = !newURI ? "the server did not resume \(what) (it ignored the range, or the file changed): starting over from byte 0"
                : what == "the file" ? "the new URL's content differs; started again" : "\(what): its new URL serves other content; it started again"
            if newURI { log(.notice, "a new URL started a file again", ["id": "\(id)", "file": "\(file.path)", "reason": "\(reason)"], into: &effects) }
            _ = try? transition(id, .restart, into: &effects) { $0.stateReason = reason }
        } else if entry.lifecycle.state != .downloading {
            _ = try? transition(id, .transferStarted, into: &effects)
        }
    }

    /// Counts new bytes of a download and announces or saves its progress when due.
    private mutating func record(_ entry: inout Entry, delta: Int64, forceEvent: Bool, into effects: inout [EngineEffect]) {
        let now = clock.now().timeIntervalSinceReferenceDate
        if delta > 0 { sessionBytes += delta }
        entry.download.downloadedBytes += delta
        entry.pace.speed.sample(bytes: entry.download.downloadedBytes, at: now)
        entry.download.speed = Int64(entry.pace.speed.bytesPerSecond)
        let percent = entry.download.progressPercent
        let announce = forceEvent || percent - entry.pace.lastEvent.percent >= Self.progressStep
            || now - entry.pace.lastEvent.time >= Self.progressInterval
        if announce { entry.pace.lastEvent = (percent, now) }
        let persist = now - entry.pace.lastSave >= Self.progressSaveInterval
        if persist { entry.pace.lastSave = now }
        if announce || persist {
            effects.append(.commit(persist ? .save(entry.download) : nil, then: announce ? .progress(ProgressUpdate(entry.download)) : nil))
        }
    }

    /// Every file is on disk: the download is complete. A bundle's renames are made durable
    /// first (`.syncFolders`; its files skip the per-file folder fsync), and a pause or cancel
    /// meanwhile wins.
    mutating func complete(_ id: String, into effects: inout [EngineEffect]) {
        guard var entry = entries[id], !entry.activity.isCompleting else { return }
        let download = entry.download
        guard download.isFolder else {
            finishCompletion(id, failure: nil, synced: nil, into: &effects)
            return
        }
        entry.activity = .completing
        entries[id] = entry
        var folders = Set<String>()
        for file in download.files {
            folders.insert((layout.filePath(id: id, file) as NSString).deletingLastPathComponent)
        }
        // Files appended meanwhile (`Engine+Append`) are not covered by this sync: their own
        // completion syncs again, and this one's end must not complete the download.
        effects.append(.syncFolders(id: id, folders: folders.sorted(), synced: download.filesTotal))
    }

    /// `synced`: how many files the folder sync before it covered (nil without one).
    mutating func finishCompletion(_ id: String, failure: DownloadError?, synced: Int?, into effects: inout [EngineEffect]) {
        guard let entry = entries[id], entry.lifecycle.state.isActive, entry.activity.transfers.isEmpty,
              entry.download.filesDone == entry.download.filesTotal, synced.map({ $0 == entry.download.filesTotal }) ?? true else { return }
        if let failure {
            _ = try? transition(id, .transferFailed, into: &effects) { $0.error = failure }
            schedule(into: &effects)
            return
        }
        let now = clock.now()
        _ = try? transition(id, .transferCompleted, into: &effects) { record in
            record.totalBytes = record.files.saturatingSum { $0.size ?? $0.downloadedBytes }
            record.downloadedBytes = record.totalBytes ?? record.downloadedBytes
            record.completedAt = now
            record.error = nil
            record.stateReason = ""
        }
        // The slot it held is free (when this ran after the folder sync, nothing else would
        // look at the queue).
        schedule(into: &effects)
    }

    /// Which file of a bundle or package an error is about, before the error's message; the
    /// URL only when that message does not name it already (a storage error names the path).
    /// A single file's URL is already in its messages; the files after a single file's own
    /// are its text tracks'.
    func fileLabel(_ download: Download, _ index: Int, message: String) -> String {
        guard download.isFolder || index > 0 else { return "" }
        let file = download.files[index]
        return message.contains(file.url) ? "file '\(file.path)': " : "file '\(file.path)' (\(file.url)): "
    }
}
