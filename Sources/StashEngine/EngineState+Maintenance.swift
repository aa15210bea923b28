import Foundation
import StashCore

/// The facts of the maintenance services (`MaintenanceInput`), and the holds they take: a
/// download whose files a service is working on (forget's move, a removal of subtitles) is
/// held, and what would change its files meanwhile is refused.
extension EngineState {
    mutating func on(_ fact: MaintenanceInput, into effects: inout [EngineEffect]) throws {
        switch fact {
        case .diskChanged(let ids):
            for id in ids { _ = checkFiles(id, how: "outside stash", into: &effects) }
        case .watchesAdded(let ids):
            for id in ids where entries[id]?.download.state.holdsCompleteFiles != true { effects.append(.unwatch(id)) }
        case .repairDamage(let repair):
            repairDamage(repair, into: &effects)
        case .adopted(let id):
            if let download = entries[id]?.download, download.state.holdsCompleteFiles { effects.append(.watch(download)) }
        case .handOverStarts(let id):
            try handOverStarts(id, into: &effects)
        case .handOverEnded(let id, let moved):
            holds[id] = nil
            // Moved: the cancel that follows removes it. Not moved: its files are where they were.
            if !moved, let download = entries[id]?.download, download.state.holdsCompleteFiles { effects.append(.watch(download)) }
        case .appendFiles(let id, let specs):
            try appendFiles(id, specs, into: &effects)
        case .addTextTracks(let id, let tracks):
            try addTextTracks(id, tracks, into: &effects)
        case .addSubtitleLanguages(let id, let options, let languages):
            try addSubtitleLanguages(id, options, languages: languages, into: &effects)
        case .subtitleRemovalStarts(let id):
            try subtitleRemovalStarts(id)
        case .subtitleRemovalEnded(let id, let removal):
            holds[id] = nil
            if let removal { removeSubtitles(id, removal, into: &effects) }
        }
    }

    /// Refuses, with what the service does, an input that would change the files of a held
    /// download: a resume, a repair, files found lost (the service's own work). A cancel goes
    /// through: it wins over the work, which then fails.
    func checkHold(_ id: String, _ input: DownloadLifecycle.Input) throws {
        guard input == .resume || input == .repair || input == .filesLost else { return }
        try checkNotHeld(id)
    }

    func checkNotHeld(_ id: String) throws {
        guard let work = holds[id] else { return }
        throw StashError(.failedPrecondition, "download '\(id)' is busy: \(work); try again once it is done")
    }

    /// Forget may move the files: the download is COMPLETED and whole (if not, it fails
    /// instead, and is not held), and is held and unwatched: its own move is not a loss.
    private mutating func handOverStarts(_ id: String, into effects: inout [EngineEffect]) throws {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard download.state == .completed else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(download.state.name); only a COMPLETED download can be forgotten with its files (cancel deletes them)")
        }
        try checkNotHeld(id)
        // Files already damaged are not handed over as if whole.
        if checkFiles(id, how: "found by forget", into: &effects) != nil { return }
        holds[id] = "its files are being moved out by a forget"
        effects.append(.unwatch(id))
    }

    private mutating func subtitleRemovalStarts(_ id: String) throws {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard download.hls != nil || !download.textTracks.isEmpty else {
            throw StashError(.failedPrecondition, "download '\(id)' is not an HLS download and has no text tracks; it has no subtitles to remove")
        }
        guard !download.state.isActive, download.state != .queued, download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is \(download.state.name); pause it or let it complete before removing subtitles")
        }
        try checkNotHeld(id)
        holds[id] = "its subtitles are being removed"
    }

    /// The bytes the downloads hold, from the records (not by walking the tree), for
    /// GetSystemInfo.
    func storageFigures() -> StorageService.Figures {
        var figures = StorageService.Figures(downloadCount: entries.count)
        figures.rateLimitNow = rateTimer.inForce
        figures.rateNext = rateTimer.next
        for entry in entries.values where entry.download.state != .removing {
            let bytes = entry.download.downloadedBytes
            figures.bytesHeld = figures.bytesHeld.addingSaturating(bytes)
            if bytes > 0 { figures.bytesByState[entry.download.state] = (figures.bytesByState[entry.download.state] ?? 0).addingSaturating(bytes) }
            figures.assetCount += 1
        }
        return figures
    }
}
