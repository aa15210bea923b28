import Foundation
import StashCore
import StashHLS

/// The maintenance services' requests, handed to the service that does them, and what the
/// services may ask of the engine (`MaintenanceHost`).
extension Engine: MaintenanceHost {
    package func verify(deep: Bool, repair: Bool) async throws -> VerifyReport {
        defer { storage.forget() }
        return try await verifier.verify(deep: deep, repair: repair, host: self)
    }

    package func purge() async throws -> PurgeResult {
        defer { storage.forget() }
        return try await verifier.purge(host: self)
    }

    package func adopt(path: String, id: String, url: String, sha256: String, link: Bool) async throws -> Download {
        try await adopter.adopt(path: path, id: id, url: url, sha256: sha256, link: link, host: self)
    }

    package func forget(id: String, moveTo: String) async throws -> Download {
        try await forgetter.forget(id: id, moveTo: moveTo, host: self)
    }

    /// Adds files to the bundle `id` and returns its record once the new file list is
    /// committed (`EngineState.appendFiles`).
    package func append(id: String, files specs: [BundleFileSpec]) async throws -> Download {
        try DownloadRequestRules.validateID(id)
        let outcome = try await submit(.appendFiles(id, specs))
        guard outcome.changed, let download = outcome.download else { return try get(id: id) }
        return download
    }

    package func subtitles(id: String) throws -> (renditions: [ManifestInfo.RenditionInfo], textTracks: [TextTrack]) {
        guard let download = state.entries[id]?.download else { throw StashError.notFound(id: id) }
        return try subtitleService.subtitles(of: download)
    }

    package func addSubtitles(id: String, languages: [String], textTracks: [TextTrack]) async throws -> Download {
        try await subtitleService.add(id: id, languages: languages, textTracks: textTracks, preparation: hlsPreparation, host: self)
    }

    package func removeSubtitles(id: String, languages: [String]) async throws -> Download {
        try await subtitleService.remove(id: id, languages: languages, host: self)
    }

    package func systemInfo() -> SystemInfo {
        storage.systemInfo {
            StorageService.Inputs(
                figures: state.storageFigures(), lastVerify: verifier.lastVerify, warnings: warnings + diskWatch.startWarnings,
                laterWarnings: diskWatch.coverageWarnings)
        }
    }

    /// Starts the disk watch over every download that holds complete files; what it finds
    /// comes back as `.diskChanged`.
    func startDiskWatch() {
        let complete = state.order.compactMap { state.entries[$0]?.download }.filter(\.state.holdsCompleteFiles)
        diskWatch.start(complete, files: files) { [weak self] ids in
            Task { await self?.run(.maintenance(.diskChanged(ids))) }
        } added: { [weak self] ids in
            Task { await self?.run(.maintenance(.watchesAdded(ids))) }
        }
    }

    // MARK: - MaintenanceHost

    func download(_ id: String) -> Download? {
        state.entries[id]?.download
    }

    func downloads() -> [Download] {
        state.order.compactMap { state.entries[$0]?.download }
    }

    func decideRepairs(_ findings: [VerifyFinding], repair: Bool) -> [DamageRepair] {
        state.decideRepairs(findings, repair: repair)
    }

    func submit(_ fact: MaintenanceInput) async throws -> MaintenanceOutcome {
        var outcome = MaintenanceOutcome()
        var last: CommitTicket?
        for effect in try state.on(.maintenance(fact)) {
            outcome.changed = true
            guard let ticket = perform(effect) else { continue }
            last = ticket
            guard let id = fact.id, case .commit(let change?, let event) = effect else { continue }
            switch change {
            case .save(let download) where download.id == id, .add(let download) where download.id == id:
                if outcome.download == nil { outcome.download = publicView(download) }
                if case .stateChanged? = event { outcome.stateChanged = true }
            default:
                break
            }
        }
        if outcome.download == nil, let id = fact.id, let download = state.entries[id]?.download { outcome.download = publicView(download) }
        try await last?.wait()
        return outcome
    }

    func flush() async throws {
        try await commits.submit(nil, event: nil).wait()
    }
}
