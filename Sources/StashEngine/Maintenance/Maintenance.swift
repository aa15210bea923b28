import Logging
import StashCore
import StashKeys
import Synchronization

/// The maintenance services behind one door. A client's maintenance requests (VerifyAssets,
/// PurgeOrphans, Adopt, Forget, AppendFiles, Export, the subtitle requests, GetSystemInfo) come here,
/// as `Engine.maintenance`, not through the engine actor: each service reaches the engine only
/// through `MaintenanceHost`, which the door holds weakly (the engine holds the door) and hands
/// to the service with each call.
package final class Maintenance: Sendable {
    let verifier: VerifyService
    let adopter: AdoptService
    let forgetter: ForgetService
    let subtitles: SubtitleService
    let diskWatch: DiskWatchService
    let storage: StorageService
    let exporter: ExportService
    private let files: FilePool

    private struct State {
        weak var host: (any MaintenanceHost)?
        /// What keeps the daemon from working fully, for GetSystemInfo.
        var warnings: [String] = []
    }

    private let state = Mutex(State())

    init(
        layout: AssetLayout, keys: KeyStore, files: FilePool, commits: CommitQueue, clock: WallClock, logger: Logger, socketPath: String,
        diskWatch: DiskWatchSettings
    ) {
        self.files = files
        verifier = VerifyService(layout: layout, keys: keys, files: files, clock: clock, logger: logger)
        adopter = AdoptService(layout: layout, files: files, clock: clock, logger: logger)
        forgetter = ForgetService(layout: layout, files: files, logger: logger)
        subtitles = SubtitleService(layout: layout, keys: keys, logger: logger)
        self.diskWatch = DiskWatchService(settings: diskWatch, layout: layout, logger: logger)
        storage = StorageService(layout: layout, socketPath: socketPath, clock: clock)
        exporter = ExportService(layout: layout, keys: keys, files: files, commits: commits, clock: clock, logger: logger)
    }

    /// The engine the services ask (held weakly: the engine holds the door).
    func attach(_ host: any MaintenanceHost) {
        state.withLock { $0.host = host }
    }

    /// Says in GetSystemInfo what keeps the daemon from working fully.
    func warn(_ warning: String) {
        state.withLock { $0.warnings.append(warning) }
    }

    private func host() throws -> any MaintenanceHost {
        guard let host = state.withLock({ $0.host }) else { throw StashError(.unavailable, "stashd is stopping") }
        return host
    }

    package func verify(deep: Bool, repair: Bool) async throws -> VerifyReport {
        defer { storage.forget() }
        return try await verifier.verify(deep: deep, repair: repair, host: host())
    }

    package func purge() async throws -> PurgeResult {
        defer { storage.forget() }
        return try await verifier.purge(host: host())
    }

    package func adopt(path: String, id: String, url: String, sha256: String, link: Bool) async throws -> Download {
        try await adopter.adopt(path: path, id: id, url: url, sha256: sha256, link: link, host: host())
    }

    /// Writes a completed download for players outside stash: see `ExportService`.
    package func export(_ order: ExportOrder) async throws -> ExportResult {
        try await exporter.export(order, host: host())
    }

    package func forget(id: String, moveTo: String) async throws -> Download {
        try await forgetter.forget(id: id, moveTo: moveTo, host: host())
    }

    /// Adds files to the bundle `id` and returns its record once the new file list is
    /// committed (`EngineState.appendFiles`).
    package func append(id: String, files specs: [BundleFileSpec]) async throws -> Download {
        try DownloadRequestRules.validateID(id)
        let host = try host()
        let outcome = try await host.submit(.appendFiles(id, specs))
        guard outcome.changed, let download = outcome.download else { return try await host.get(id: id) }
        return download
    }

    package func subtitles(id: String) async throws -> (renditions: [ManifestInfo.RenditionInfo], textTracks: [TextTrack]) {
        guard let download = try await host().download(id) else { throw StashError.notFound(id: id) }
        return try subtitles.subtitles(of: download)
    }

    package func addSubtitles(id: String, languages: [String], textTracks: [TextTrack]) async throws -> Download {
        let host = try host()
        return try await subtitles.add(id: id, languages: languages, textTracks: textTracks, preparation: await host.hlsPreparation, host: host)
    }

    package func removeSubtitles(id: String, languages: [String]) async throws -> Download {
        try await subtitles.remove(id: id, languages: languages, host: host())
    }

    package func systemInfo() async throws -> SystemInfo {
        let host = try host()
        return await storage.systemInfo {
            StorageService.Inputs(
                figures: await host.storageFigures(), lastVerify: verifier.lastVerify,
                warnings: state.withLock { $0.warnings } + diskWatch.startWarnings, laterWarnings: diskWatch.coverageWarnings)
        }
    }

    /// Starts the disk watch over every download that holds complete files; what it finds is
    /// decided as `.diskChanged`, and `.watchesAdded` follows once every watch is in place.
    func startDiskWatch() async {
        guard let host = try? host() else { return }
        let complete = await host.downloads().filter(\.state.holdsCompleteFiles)
        diskWatch.start(complete, files: files) { [weak host] ids in
            Task { _ = try? await host?.submit(.diskChanged(ids)) }
        } added: { [weak host] ids in
            Task { _ = try? await host?.submit(.watchesAdded(ids)) }
        }
    }
}
