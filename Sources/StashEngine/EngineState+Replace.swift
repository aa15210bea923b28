import StashCore
import StashFetch

/// Replace (add with `replace`): a COMPLETED single-file download fetches its URL again beside
/// the old copy (`Replacement`), which stays at its path, and the download COMPLETED, until the
/// new copy is whole; then `ReplacementSwap` renames it over the old one, and only once that is
/// durable is the record committed and the clients told. A download with a folder of files
/// does the same with a folder (`EngineState+FolderReplace`). A replace that fails, or that a
/// cancel stops, leaves the old copy and says why in the record's reason.
extension EngineState {
    static let replaceHold = "a new copy is being fetched to replace it (add --replace); cancel stops the replace and keeps this copy"

    static let replacingReason = "replacing: a new copy is being fetched beside this one, which stays until the new one is complete"
    /// Committed with the new copy's record just before the rename, and never told.
    static let swappingReason = "replacing: the new copy is complete and being put in place of the old one"
    static let replacedReason = "replaced by a new copy"

    /// A download loaded with a replace under way when stashd stopped: the replace is
    /// discarded (what it fetched deleted) and the old copy, whole, is what it holds; one
    /// stopped between the commit of its new copy and the rename was finished at start.
    mutating func discardReplaceAtLoad(_ download: inout Download, into effects: inout [EngineEffect]) {
        guard download.state == .completed, let file = download.files.first else { return }
        let id = download.id
        if download.stateReason == Self.swappingReason {
            // The engine renamed the new copy into place before it loaded the records.
            download.stateReason = Self.replacedReason
            effects.append(.commit(.save(download), then: nil))
            return
        }
        guard download.stateReason.hasPrefix(Self.replacingReason) else { return }
        download.stateReason = "a replace was under way when stashd stopped and was discarded; the old copy is kept (add with replace again)"
        if Replacement.replacesFolder(download) {
            effects.append(.discardReplacement(id: id, folder: layout.assetsDir, temporary: FolderSwap.siblingName(id)))
            // The new plan's keys are not known any more; a package planned again mostly names
            // its keys (a licence's by their key ids) as the old one did.
            let keys = ReplacementKeys.storeIDs(of: download)
            if !keys.isEmpty { effects.append(.discardReplacementKeys(id: id, paths: keys)) }
        } else {
            effects.append(.discardReplacement(id: id, folder: layout.assetFolder(id: id), temporary: file.path + Replacement.suffix))
        }
        effects.append(.commit(.save(download), then: nil))
    }

    /// Starts the replacement of `id`'s file, checked by `sha256` when given, or of its files
    /// (the add's `files`, with their digests). An add while one is under way answers the
    /// record as it is.
    mutating func startReplace(_ id: String, sha256: String, files: [DownloadFile], into effects: inout [EngineEffect]) throws {
        guard let entry = entries[id] else { throw StashError.notFound(id: id) }
        guard replacements[id] == nil else { return }
        let download = entry.download
        guard download.state == .completed else {
            throw StashError(
                .failedPrecondition, "replace: download '\(id)' is \(download.state.name), not COMPLETED; a download not yet complete is fetched already")
        }
        try checkNotHeld(id)
        guard queue.active.count < queue.maxParallel else {
            waitForReplaceSlot(id, sha256: sha256, files: files, into: &effects)
            return
        }
        beginReplace(id, sha256: sha256, files: files, into: &effects)
    }

    /// Starts the replace of `id`, which has its download slot.
    mutating func beginReplace(_ id: String, sha256: String, files: [DownloadFile], into effects: inout [EngineEffect]) {
        guard var entry = entries[id] else { return }
        let download = entry.download
        takeReplaceSlot(id, into: &effects)
        if Replacement.replacesFolder(download) {
            startFolderReplace(id, files: files, into: &effects)
            return
        }
        let file = download.files[0]
        let generation = nextGeneration
        nextGeneration += 1
        let replacement = Replacement(generation: generation, temporaryName: file.path + Replacement.suffix, finalName: file.path, sha256: sha256)
        var request = FetchRequest(
            url: file.url, headers: download.headers, folder: layout.assetFolder(id: id), relativePath: replacement.temporaryName,
            expectedSHA256: sha256, retry: RetryPolicy(config), lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime,
            contentCheck: ContentCheck(file: file, labelled: false))
        request.rateGroup = id
        request.groupRateLimit = download.rateLimit
        replacements[id] = replacement
        holds[id] = Self.replaceHold
        entry.download.stateReason = Self.replacingReason
        entries[id] = entry
        log(.info, "replace started", ["id": "\(id)", "uri": "\(file.url.withoutURLSecrets)"], into: &effects)
        effects.append(.startTransfer(id: id, index: 0, generation: generation, request))
        effects.append(.commit(.save(entry.download), then: .stateChanged(layout.eventView(entry.download), previous: .completed)))
    }

    /// Takes a fetch event of a replacement; false when `notice` is not one.
    mutating func handleReplacement(_ notice: FetchNotice, into effects: inout [EngineEffect]) -> Bool {
        let id = notice.id
        if replacements[id]?.folder != nil { return handleFolderReplacement(notice, into: &effects) }
        guard var replacement = replacements[id], replacement.generation == notice.generation else { return false }
        switch notice.event {
        case .started(let info):
            replacement.size = info.totalBytes
            replacement.etag = info.etag
            replacement.lastModified = info.lastModified
            replacements[id] = replacement
        case .completed(let bytes, _):
            replacement.size = bytes
            replacement.swapping = true
            guard var entry = entries[id] else { break }
            // Committed before the rename, told after it: a restart in between finds the record
            // of the new copy and the copy whole under its temporary name, and finishes the
            // rename (`ReplacementSwap.finishAtStart`); one after it finds them agreeing.
            replacement.oldFile = entry.download.files[0]
            replacements[id] = replacement
            describeNewCopy(&entry.download, replacement)
            entry.download.stateReason = Self.swappingReason
            entries[id] = entry
            effects.append(.commit(.saveFile(id: id, index: 0, file: entry.download.files[0]), then: nil))
            effects.append(.commit(.save(entry.download), then: nil))
            effects.append(.swapReplacement(id: id, folder: layout.assetFolder(id: id), temporary: replacement.temporaryName, final: replacement.finalName))
        // A replace's transfers retry inside the fetch service: `.retryLater` is not asked for.
        case .failed(let error), .noSpace(let error), .retryLater(_, _, let error):
            endReplacement(id, reason: "the replace failed and the old copy is kept: \(error.message)", discard: true, into: &effects)
        case .retrying(let attempt, let delayMs, let error):
            log(.notice, "replace will retry", [
                "id": "\(id)", "attempt": "\(attempt)", "delay_ms": "\(delayMs)", "error": "\(error.message.withoutURLSecrets)"], into: &effects)
        case .progress(let bytes, _):
            guard let total = replacement.size, total > 0, var entry = entries[id], entry.download.state == .completed else { break }
            let percent = Int(Double(min(max(bytes, 0), total)) / Double(total) * 100)
            guard percent >= replacement.shownPercent + Replacement.percentStep, percent < 100 else { break }
            replacement.shownPercent = percent
            replacements[id] = replacement
            entry.download.stateReason = Self.replacingReason + " (\(percent)% of \(total) bytes)"
            entries[id] = entry
            effects.append(.commit(.save(entry.download), then: .stateChanged(layout.eventView(entry.download), previous: .completed)))
        case .waitingForNetwork, .stopped, .received:
            break
        }
        return true
    }

    /// The swap ended: the record now describes the new copy, or the old one stays.
    mutating func replacementSwapped(_ id: String, failure: String?, into effects: inout [EngineEffect]) {
        guard let replacement = replacements[id], replacement.swapping else { return }
        if replacement.folder != nil {
            folderReplacementSwapped(id, failure: failure, into: &effects)
            return
        }
        if let failure {
            // The old copy is still in place: its record goes back too.
            if var entry = entries[id], entry.download.state == .completed, let oldFile = replacement.oldFile {
                entry.download.files[0] = oldFile
                entry.download.downloadedBytes = oldFile.downloadedBytes
                entry.download.totalBytes = SizeEstimate.total(of: entry.download)
                entry.download.sha256 = oldFile.sha256
                entries[id] = entry
                effects.append(.commit(.saveFile(id: id, index: 0, file: oldFile), then: nil))
            }
            endReplacement(id, reason: "the replace failed and the old copy is kept: \(failure)", discard: true, into: &effects)
            return
        }
        guard let entry = endSwappedReplacement(id, into: &effects) else { return }
        log(.info, "replace done", ["id": "\(id)", "bytes": "\(entry.download.downloadedBytes)"], into: &effects)
        effects.append(.commit(.save(entry.download), then: .stateChanged(layout.eventView(entry.download), previous: .completed)))
    }

    /// The record of the new copy: its size, validators and the add's sha256.
    private func describeNewCopy(_ download: inout Download, _ replacement: Replacement) {
        var file = download.files[0]
        let size = replacement.size ?? file.size ?? 0
        file.size = size
        file.downloadedBytes = size
        file.etag = replacement.etag
        file.lastModified = replacement.lastModified
        file.sha256 = replacement.sha256
        file.done = true
        download.files[0] = file
        download.downloadedBytes = size
        download.totalBytes = SizeEstimate.total(of: download)
        download.sha256 = replacement.sha256
    }

    /// A cancel of a download being replaced stops the replace only; true when it did.
    mutating func cancelReplace(_ id: String, into effects: inout [EngineEffect]) -> Bool {
        guard let replacement = replacements[id], !replacement.swapping else { return false }
        if replacement.folder == nil, replacement.waitingFiles == nil { effects.append(.stopTransfers(id: id, generations: [replacement.generation])) }
        endReplacement(id, reason: "the replace was cancelled by a client; the old copy is kept", discard: true, into: &effects)
        return true
    }

    /// Forgets the replacement of `id`, deletes what it fetched and says `reason` in the record.
    /// A folder copy's transfers still running are stopped first.
    mutating func endReplacement(_ id: String, reason: String, discard: Bool, into effects: inout [EngineEffect]) {
        guard let replacement = replacements.removeValue(forKey: id) else { return }
        if holds[id] == Self.replaceHold { holds[id] = nil }
        if let generation = replacement.planning { effects.append(.stopPlanning(id: id, generation: generation)) }
        if let copy = replacement.folder, !copy.running.isEmpty {
            effects.append(.stopTransfers(id: id, generations: Array(copy.running.values)))
        }
        if discard, let copy = replacement.folder {
            // A planning that failed after the licence exchange sealed keys it did not report:
            // those the old copy names are deleted too (all prefixed, none of the old copy's).
            var keys = copy.keyStoreIDs
            for key in entries[id].map({ ReplacementKeys.storeIDs(of: $0.download) }) ?? [] where !keys.contains(key) { keys.append(key) }
            if !keys.isEmpty { effects.append(.discardReplacementKeys(id: id, paths: keys)) }
        }
        // A replace that waited for a slot fetched nothing.
        let fetched = replacement.waitingFiles == nil
        if discard, fetched, replacement.folder != nil {
            effects.append(.discardReplacement(id: id, folder: layout.assetsDir, temporary: FolderSwap.siblingName(id)))
        } else if discard, fetched {
            effects.append(.discardReplacement(id: id, folder: layout.assetFolder(id: id), temporary: replacement.temporaryName))
        }
        // Its transfers are stopped first: the slot goes on once they are ordered to.
        releaseReplaceSlot(id, into: &effects)
        guard var entry = entries[id], entry.download.state == .completed else { return }
        entry.download.stateReason = reason
        entries[id] = entry
        log(.warning, "replace ended", ["id": "\(id)", "reason": "\(reason.withoutURLSecrets)"], into: &effects)
        effects.append(.commit(.save(entry.download), then: .stateChanged(layout.eventView(entry.download), previous: .completed)))
    }

    /// The end of a replace whose new copy is in place: its hold and slot let go, the record
    /// says it was replaced; nil when the download is no longer COMPLETED (removed meanwhile).
    mutating func endSwappedReplacement(_ id: String, into effects: inout [EngineEffect]) -> DownloadEntry? {
        replacements[id] = nil
        if holds[id] == Self.replaceHold { holds[id] = nil }
        releaseReplaceSlot(id, into: &effects)
        guard var entry = entries[id], entry.download.state == .completed else { return nil }
        entry.download.completedAt = clock.now()
        entry.download.stateReason = Self.replacedReason
        entries[id] = entry
        return entry
    }
}
