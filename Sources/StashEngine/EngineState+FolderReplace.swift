import Foundation
import StashCore
import StashFetch

/// Replace of a download with a folder of files (a bundle, a file with text tracks, an HLS
/// package, whose playlists are read again first with the record's choice): every file is
/// fetched again into a sibling folder (`FolderCopy`), the old copy staying in place and the
/// download COMPLETED meanwhile. Once every file is whole, their renames are made
/// durable and the marker put in (`.markReplacementFolder`), then the record of the new copy
/// is committed, and only then are the folders exchanged (`FolderSwap`): a stop at any point
/// leaves the whole old copy or the whole new one, and the record that describes it.
extension EngineState {
    /// Starts fetching the new copy of `id`'s files; `given`: the add's files, whose sizes and
    /// digests the new copy must have (a text track's file keeps its own).
    mutating func startFolderReplace(_ id: String, files given: [DownloadFile], into effects: inout [EngineEffect]) {
        guard var entry = entries[id] else { return }
        if entry.download.hls != nil {
            startPackageReplace(&entry, into: &effects)
            return
        }
        var added: [String: DownloadFile] = [:]
        for file in given { added[file.path] = file }
        let files = entry.download.files.map { old in
            let new = added[old.path]
            return DownloadFile(
                url: old.url, path: old.path, size: new?.size, sha256: new?.sha256 ?? old.sha256, expect: old.expect, minSize: old.minSize)
        }
        replacements[id] = Replacement(generation: 0, folder: FolderCopy(files: files), temporaryName: "", finalName: "", sha256: "")
        holds[id] = Self.replaceHold
        fillFolderCopy(id, into: &effects)
        entry.download.stateReason = Self.replacingReason
        entries[id] = entry
        log(.info, "replace started", ["id": "\(id)", "files": "\(files.count)"], into: &effects)
        effects.append(.commit(.save(entry.download), then: .stateChanged(layout.eventView(entry.download), previous: .completed)))
    }

    /// An HLS package reads its playlists again, with the record's choice, into the sibling
    /// folder, its keys sealed beside the old copy's (`ReplacementKeys`); `.planned` follows.
    private mutating func startPackageReplace(_ entry: inout Entry, into effects: inout [EngineEffect]) {
        let id = entry.download.id
        let generation = nextGeneration
        nextGeneration += 1
        var replacement = Replacement(generation: 0, folder: FolderCopy(files: []), temporaryName: "", finalName: "", sha256: "")
        replacement.planning = generation
        replacements[id] = replacement
        holds[id] = Self.replaceHold
        entry.download.stateReason = Self.replacingReason
        entries[id] = entry
        log(.info, "replace started", ["id": "\(id)", "uri": "\(entry.download.uri.withoutURLSecrets)", "hls": "true"], into: &effects)
        // Without the licence held, the new copy's keys are asked for as an add asks for them,
        // and sealed beside the old copy's, which keeps its licence until the exchange.
        var planned = entry.download
        planned.license = nil
        effects.append(.startReplacePlanning(generation: generation, planned))
        effects.append(.commit(.save(entry.download), then: .stateChanged(layout.eventView(entry.download), previous: .completed)))
    }

    /// A replace's planning ended: the new copy gets its files, or the replace fails. False
    /// when the planning is none of a replace.
    mutating func replacementPlanned(
        _ id: String, generation: UInt64, _ result: Result<HLSPreparation.Prepared, Error>, into effects: inout [EngineEffect]
    ) -> Bool {
        guard var replacement = replacements[id], replacement.planning == generation, let download = entries[id]?.download else { return false }
        replacement.planning = nil
        switch result {
        case .success(let prepared):
            var copy = FolderCopy(files: prepared.files + download.textTracks.map(\.file))
            copy.keyPaths = prepared.keyPaths
            copy.playlistPaths = prepared.playlistPaths
            copy.quality = prepared.quality
            copy.hasSubtitles = prepared.hasSubtitles || !download.textTracks.isEmpty
            copy.licenseKeyIDs = prepared.licenseKeyIDs
            copy.license = prepared.license
            replacement.folder = copy
            replacements[id] = replacement
            log(.info, "replace planned", ["id": "\(id)", "files": "\(copy.files.count)", "keys": "\(copy.keyPaths.count)"], into: &effects)
            if copy.isComplete {
                markFolderCopy(id, into: &effects)
            } else {
                fillFolderCopy(id, into: &effects)
            }
        case .failure(let error):
            replacements[id] = replacement
            let message = (error as? DownloadError)?.message ?? (error as? LicenseFailure)?.downloadError.message ?? "\(error)"
            endReplacement(id, reason: "the replace failed and the old copy is kept: \(message)", discard: true, into: &effects)
        }
        return true
    }

    /// Starts files of the new copy while fewer than `files-per-download` (an HLS package's
    /// segment concurrency) transfer.
    private mutating func fillFolderCopy(_ id: String, into effects: inout [EngineEffect]) {
        guard var replacement = replacements[id], var copy = replacement.folder, let download = entries[id]?.download else { return }
        let concurrency = max(1, download.hls?.segmentConcurrency ?? config.filesPerDownload)
        while copy.running.count < concurrency, let index = copy.next() {
            let generation = nextGeneration
            nextGeneration += 1
            copy.running[index] = generation
            let file = copy.files[index]
            var request = FetchRequest(
                url: file.url, headers: download.headers, folder: layout.assetsDir + "/" + FolderSwap.siblingName(id), relativePath: file.path,
                expectedSHA256: file.sha256, retry: RetryPolicy(config), lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime,
                durability: .grouped, range: file.rangeOffset.map { FetchRange(offset: $0, length: file.size ?? 0) },
                expectedSize: file.rangeOffset == nil ? file.size : nil, contentCheck: ContentCheck(file: file, labelled: !download.isFolder))
            request.rateGroup = id
            request.groupRateLimit = download.rateLimit
            effects.append(.startTransfer(id: id, index: index, generation: generation, request))
        }
        replacement.folder = copy
        replacements[id] = replacement
    }

    /// Takes a fetch event of a folder copy's transfer; false when `notice` is not one.
    mutating func handleFolderReplacement(_ notice: FetchNotice, into effects: inout [EngineEffect]) -> Bool {
        let id = notice.id
        let index = notice.index
        guard var replacement = replacements[id], var copy = replacement.folder, copy.running[index] == notice.generation else { return false }
        let path = copy.files[index].path
        switch notice.event {
        case .started(let info):
            copy.files[index].etag = info.etag
            copy.files[index].lastModified = info.lastModified
        case .completed(let bytes, _):
            copy.running[index] = nil
            copy.files[index].size = bytes
            copy.files[index].downloadedBytes = bytes
            copy.files[index].done = true
            copy.filesDone += 1
        // A replace's transfers retry inside the fetch service: `.retryLater` is not asked for.
        case .failed(let error), .noSpace(let error), .retryLater(_, _, let error):
            copy.running[index] = nil
            replacement.folder = copy
            replacements[id] = replacement
            endReplacement(id, reason: "the replace failed and the old copy is kept: file '\(path)': \(error.message)", discard: true, into: &effects)
            return true
        case .retrying(let attempt, let delayMs, let error):
            log(.notice, "replace will retry", [
                "id": "\(id)", "file": "\(path)", "attempt": "\(attempt)", "delay_ms": "\(delayMs)", "error": "\(error.message.withoutURLSecrets)"], into: &effects)
        case .progress, .waitingForNetwork, .stopped, .received:
            break
        }
        replacement.folder = copy
        replacements[id] = replacement
        guard case .completed = notice.event else { return true }
        if copy.isComplete {
            markFolderCopy(id, into: &effects)
        } else {
            fillFolderCopy(id, into: &effects)
            showFolderProgress(id, into: &effects)
        }
        return true
    }

    /// The reason shows how many files of the new copy are whole, in steps of 10 % of them.
    private mutating func showFolderProgress(_ id: String, into effects: inout [EngineEffect]) {
        guard var replacement = replacements[id], let copy = replacement.folder, var entry = entries[id], entry.download.state == .completed else { return }
        let percent = copy.filesDone * 100 / max(copy.files.count, 1)
        guard percent >= replacement.shownPercent + Replacement.percentStep, percent < 100 else { return }
        replacement.shownPercent = percent
        replacements[id] = replacement
        entry.download.stateReason = Self.replacingReason + " (\(copy.filesDone) of \(copy.files.count) files)"
        entries[id] = entry
        effects.append(.commit(.save(entry.download), then: .stateChanged(layout.eventView(entry.download), previous: .completed)))
    }

    /// Every file of the new copy is whole: no longer cancellable; their renames are made
    /// durable and the marker put in (`.replacementMarked` follows).
    private mutating func markFolderCopy(_ id: String, into effects: inout [EngineEffect]) {
        guard var replacement = replacements[id], let copy = replacement.folder else { return }
        replacement.swapping = true
        replacements[id] = replacement
        let sibling = layout.assetsDir + "/" + FolderSwap.siblingName(id)
        var folders = Set<String>()
        for file in copy.files {
            folders.insert(((sibling + "/" + file.path) as NSString).deletingLastPathComponent)
        }
        effects.append(.markReplacementFolder(id: id, folder: sibling, folders: folders.sorted()))
    }

    /// The new copy is durable and marked: its record is committed (never told), then the
    /// folders are exchanged (`.replacementSwapped` follows).
    mutating func replacementMarked(_ id: String, failure: String?, into effects: inout [EngineEffect]) {
        guard var replacement = replacements[id], let copy = replacement.folder, replacement.swapping else { return }
        guard failure == nil, var entry = entries[id], entry.download.state == .completed else {
            endReplacement(id, reason: "the replace failed and the old copy is kept: \(failure ?? "the download changed")", discard: true, into: &effects)
            return
        }
        replacement.oldRecord = entry.download
        replacements[id] = replacement
        let staleKeys = ReplacementKeys.storeIDs(of: entry.download)
        entry.download.files = copy.files
        if entry.download.hls != nil {
            entry.download.hlsKeys = copy.keyPaths
            if entry.download.drm != nil {
                entry.download.licenseKeyIDs = copy.licenseKeyIDs
                entry.download.license = copy.license
            }
            entry.download.hlsPlaylists = copy.playlistPaths
            entry.download.quality = copy.quality
            entry.download.hasSubtitles = copy.hasSubtitles
        }
        entry.download.filesDone = copy.files.count
        entry.download.filesTotal = copy.files.count
        let total = copy.files.saturatingSum { $0.size ?? 0 }
        entry.download.downloadedBytes = total
        entry.download.totalBytes = total
        entry.download.stateReason = Self.swappingReason
        entries[id] = entry
        effects.append(.commit(.add(entry.download), then: nil))
        effects.append(.swapReplacementFolder(id: id, keys: copy.keyStoreIDs, staleKeys: staleKeys))
    }

    /// The exchange ended: the record of the new copy stands and the disk watch follows the
    /// new folder, or the old record goes back.
    mutating func folderReplacementSwapped(_ id: String, failure: String?, into effects: inout [EngineEffect]) {
        guard let replacement = replacements[id], replacement.swapping else { return }
        if let failure {
            if var entry = entries[id], entry.download.state == .completed, let old = replacement.oldRecord {
                entry.download = old
                entries[id] = entry
                effects.append(.commit(.add(old), then: nil))
            }
            endReplacement(id, reason: "the replace failed and the old copy is kept: \(failure)", discard: true, into: &effects)
            return
        }
        guard let entry = endSwappedReplacement(id, into: &effects) else { return }
        effects.append(.watch(entry.download))
        if let old = replacement.oldRecord { replacedLicense(of: old, by: entry.download, into: &effects) }
        log(.info, "replace done", ["id": "\(id)", "bytes": "\(entry.download.downloadedBytes)", "files": "\(entry.download.files.count)"], into: &effects)
        effects.append(.commit(.save(entry.download), then: .stateChanged(layout.eventView(entry.download), previous: .completed)))
    }
}
