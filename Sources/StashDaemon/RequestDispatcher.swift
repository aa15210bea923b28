import Logging
import StashCore
import StashDesktop
import StashEngine
import StashWire

/// Answers each wire operation with the engine. The only place that knows both the wire's
/// operations and the engine's methods.
package struct RequestDispatcher: RequestHandler {
    let engine: Engine
    let logger: Logger
    /// What the desktop says over D-Bus, for GetSystemInfo; nil in a daemon that does not look.
    let desktop: DesktopWatch?
    let sleepInhibitor: SleepInhibitor?
    let notifier: Notifier?

    /// What this daemon offers, announced in Hello.
    package static let features = ["downloads", "bundles", "events", "config", "stats", "verify", "hls", "license", "stop", "dedupe", "forget", "adopt", "append", "text-tracks", "group-ops", "time-range", "export-file", "rate-limit", "content-check", "priority", "set-download", "replace", "set-uri", "replace-any", "set-file-uri", "set-headers", "dash", "desktop", "subscribe-states"]

    package init(
        engine: Engine, logger: Logger, desktop: DesktopWatch? = nil, sleepInhibitor: SleepInhibitor? = nil, notifier: Notifier? = nil
    ) {
        self.engine = engine
        self.logger = logger
        self.desktop = desktop
        self.sleepInhibitor = sleepInhibitor
        self.notifier = notifier
    }

    package var clock: WallClock { engine.clock }

    package func handle(_ op: Operation, peer: PeerCredentials) async -> Result<ResponseResult, StashError> {
        do {
            return .success(try await answer(op))
        } catch {
            return .failure(stashError(error, op: op.name))
        }
    }

    /// An error as the client gets it: a StashError as it is, any other internal (and logged).
    private func stashError(_ error: Error, op: String) -> StashError {
        if let error = error as? StashError { return error }
        logger.error("request failed", metadata: ["op": "\(op)", "error": "\("\(error)".withoutURLSecrets)"])
        return StashError(.internal, "\(op) failed: \(error)")
    }

    /// GetDownload (but a bundle's) and HasDownload are answered on the event loop from the
    /// engine's record cache; everything else goes through `handle`.
    package func handleImmediately(_ op: Operation, peer: PeerCredentials) -> Result<ResponseResult, StashError>? {
        switch op {
        case .getDownload(let id):
            do {
                return try engine.cachedGet(id: id).map { .success(.download($0, created: false)) }
            } catch {
                return .failure(error as? StashError ?? StashError(.internal, "\(error)"))
            }
        case .hasDownload(let id):
            let answer = engine.has(id: id)
            return .success(.has(exists: answer.exists, state: answer.state))
        default:
            return nil
        }
    }

    package func subscribe(_ request: SubscribeRequest) async throws -> EventSubscription {
        guard request.minProgressStep >= 0, request.minProgressStep <= 100 else {
            throw StashError.invalidArgument("min_progress_step \(request.minProgressStep) is outside 0...100")
        }
        let states = Set(request.states)
        var accepts: (@Sendable (DownloadEvent) -> Bool)?
        if !states.isEmpty { accepts = { Self.sent($0, askingFor: states) } }
        return await engine.subscribe(
            ids: request.ids, minProgressStep: request.minProgressStep,
            minIntervalMs: request.minIntervalMs, replayFrom: request.replayFromSeq, accepts: accepts)
    }

    /// What a subscription that asked for changes into `states` alone is sent: those, and the
    /// removals and lost-event notices a client needs to keep its records true. Picked as the
    /// events are delivered, so the others are never queued, encoded or sent.
    static func sent(_ event: DownloadEvent, askingFor states: Set<DownloadState>) -> Bool {
        switch event.kind {
        case .stateChanged(let download, _): return states.contains(download.state)
        case .removed, .eventsLost: return true
        case .progress, .license, .exportProgress, .settingsChanged: return false
        }
    }

    /// An append names the bundle and its new files; what describes a new download is the
    /// bundle's own already and is refused rather than ignored.
    static func checkAppend(_ request: AddDownloadRequest) throws {
        guard !request.id.isEmpty else {
            throw StashError.invalidArgument("id is empty; append adds files to the bundle with this id")
        }
        let given = [
            ("uri", !request.uri.isEmpty), ("title", !request.title.isEmpty), ("sha256", !request.sha256.isEmpty),
            ("headers", !request.headers.isEmpty), ("hls", request.hls != nil), ("drm", request.drm != nil), ("force", request.force),
            ("app_data", !request.appData.isEmpty), ("group", !request.group.isEmpty), ("text_tracks", !request.textTracks.isEmpty),
            ("rate_limit", request.rateLimit != 0),
            ("expect (give each file its own)", !request.expect.isEmpty), ("min_size (give each file its own)", request.minSize != 0),
            ("priority", request.priority != .normal), ("replace", request.replace),
        ].filter(\.1).map(\.0)
        guard given.isEmpty else {
            throw StashError.invalidArgument("append takes only id and files; \(given.joined(separator: ", ")) belong to a new download (bundle '\(request.id.prefix(128))' keeps its own)")
        }
    }

    /// SetDownload: the fields given are changed together, all or none (the engine checks
    /// every field before it applies any); one that names nothing to change is refused rather
    /// than answered as if it had done something.
    static func set(_ request: DownloadChanges, on engine: Engine) async throws -> Download {
        guard request.priority != nil || request.rateLimit != nil || request.uri != nil || request.headers != nil || request.licenseHeaders != nil
            || request.network != nil || request.onBattery != nil
        else {
            throw StashError.invalidArgument(
                "SetDownload for '\(request.id.prefix(128))' gives no field to change; give priority, rate_limit, uri, headers, license_headers, network or on_battery")
        }
        try request.headers.map { try $0.validate(field: "headers", result: $0.headers, limit: DownloadRequestRules.maxHeaders) }
        try request.licenseHeaders.map { try $0.validate(field: "license_headers", result: $0.headers, limit: DRMRules.maxHeaders) }
        if let file = request.file, request.uri == nil {
            throw StashError.invalidArgument("file '\(file.prefix(256))' is given without a uri; file names the bundle file whose URL changes")
        }
        if let rateLimit = request.rateLimit, rateLimit < 0 {
            throw StashError.invalidArgument("rate_limit: \(rateLimit) is negative; give bytes per second, 0 = none")
        }
        return try await engine.set(request)
    }

    /// AddDownloads pipelined on one connection (not appends), added in one turn on the engine
    /// (`AddBurst`); the answers are in their order.
    package func handleAdds(_ requests: [AddDownloadRequest], peer: PeerCredentials) async -> [Result<ResponseResult, StashError>] {
        await engine.add(requests.map(Self.engineRequest)).map { added in
            added.map { .download($0.download, created: $0.created) }.mapError { stashError($0, op: "AddDownload") }
        }
    }

    private static func engineRequest(_ request: AddDownloadRequest) -> AddRequest {
        AddRequest(
            id: request.id, uri: request.uri, files: request.files, title: request.title, sha256: request.sha256, headers: request.headers,
            hls: request.hls, drm: request.drm, force: request.force, appData: request.appData, group: request.group,
            textTracks: request.textTracks, rateLimit: request.rateLimit, expect: request.expect, minSize: request.minSize,
            priority: request.priority, replace: request.replace, network: request.network, onBattery: request.onBattery)
    }

    /// include_failed chooses which downloads ResumeGroup takes; sent with another group
    /// operation it is refused rather than ignored, as the client meant something by it.
    static func refuseIncludeFailed(_ request: GroupRequest, in operation: String) throws {
        guard !request.includeFailed else {
            throw StashError.invalidArgument("include_failed is true; only ResumeGroup takes it, \(operation) acts on the group's downloads in every state it applies to")
        }
    }

    private func answer(_ op: Operation) async throws -> ResponseResult {
        switch op {
        case .hello:
            return .hello(HelloResult(features: Self.features))
        case .addDownload(let request) where request.append:
            try Self.checkAppend(request)
            return .download(try await engine.maintenance.append(id: request.id, files: request.files), created: false)
        case .addDownload(let request):
            let added = try await engine.add(Self.engineRequest(request))
            return .download(added.download, created: added.created)
        case .getDownload(let id):
            return .download(try await engine.get(id: id), created: false)
        case .listDownloads(let request):
            return .list(try await engine.list(states: request.states, pageSize: request.pageSize, pageToken: request.pageToken, group: request.group))
        case .hasDownload(let id):
            let answer = engine.has(id: id)
            return .has(exists: answer.exists, state: answer.state)
        case .pause(let id):
            return .download(try await engine.pause(id: id), created: false)
        case .adopt(let request):
            return .download(
                try await engine.maintenance.adopt(path: request.path, id: request.id, url: request.url, sha256: request.sha256, link: request.link),
                created: true)
        case .forget(let id, let moveTo):
            return .download(try await engine.maintenance.forget(id: id, moveTo: moveTo), created: false)
        case .stop(let id, let reason):
            return .download(try await engine.stop(id: id, reason: reason), created: false)
        case .resume(let id):
            return .download(try await engine.resume(id: id), created: false)
        case .cancel(let id):
            try await engine.cancel(id: id)
            return .empty
        case .pauseAll:
            return .count(affected: try await engine.bulk(.pauseAll))
        case .resumeAll:
            return .count(affected: try await engine.bulk(.resumeAll))
        case .cancelAll:
            return .count(affected: try await engine.bulk(.cancelAll))
        case .pauseGroup(let request):
            try Self.refuseIncludeFailed(request, in: "PauseGroup")
            return .count(affected: try await engine.bulk(.pause(group: request.group)))
        case .resumeGroup(let request):
            return .count(affected: try await engine.bulk(.resume(group: request.group, includeFailed: request.includeFailed)))
        case .cancelGroup(let request):
            try Self.refuseIncludeFailed(request, in: "CancelGroup")
            return .count(affected: try await engine.bulk(.cancel(group: request.group)))
        case .setDownload(let request):
            return .download(try await Self.set(request, on: engine), created: false)
        case .move(let id, let move):
            return .download(try await engine.move(id: id, move), created: false)
        case .getStats:
            return .stats(await engine.stats())
        case .getSystemInfo:
            var info = try await engine.maintenance.systemInfo()
            if let desktop {
                let conditions = desktop.conditions
                let seen = desktop.seen
                info.metered = conditions.metered
                info.onBattery = conditions.onBattery
                info.networkService = seen[DesktopService.networkManager.title] ?? ""
                info.powerService = seen[DesktopService.upower.title] ?? ""
            }
            info.sleepInhibitor = sleepInhibitor?.seen ?? ""
            info.notificationService = notifier?.seen ?? ""
            return .systemInfo(info)
        case .getConfig:
            return .config(await engine.config)
        case .setConfig(let entries):
            let config = try await engine.setConfig(entries.map { ($0.key, $0.value) })
            sleepInhibitor?.mode(config.inhibitSleep)
            return .config(config)
        case .verify(let request):
            return .verify(try await engine.maintenance.verify(deep: request.deep, repair: request.repair && !request.dryRun))
        case .purge:
            return .purge(try await engine.maintenance.purge())
        case .getManifestInfo(let uri, let headers, let start, let end):
            return .manifestInfo(try await engine.manifestInfo(uri: uri, headers: headers, start: start, end: end))
        case .export(let request):
            return .export(try await engine.maintenance.export(ExportOrder(
                id: request.id, dir: request.dir, decrypt: request.decrypt, file: request.file, format: request.format, force: request.force,
                link: request.link)))
        case .addSubtitles(let id, let languages, let textTracks):
            return .download(try await engine.maintenance.addSubtitles(id: id, languages: languages, textTracks: textTracks), created: false)
        case .removeSubtitles(let id, let languages):
            return .download(try await engine.maintenance.removeSubtitles(id: id, languages: languages), created: false)
        case .getSubtitles(let id):
            let subtitles = try await engine.maintenance.subtitles(id: id)
            return .subtitles(subtitles.renditions, textTracks: subtitles.textTracks)
        case .downloadLicense(let id):
            return .license(try await engine.licenses.acquire(id))
        case .checkLicense(let id):
            return .license(try await engine.licenses.check(id))
        case .renewLicense(let id):
            return .license(try await engine.licenses.renew(id))
        case .releaseLicense(let id):
            return .license(try await engine.licenses.release(id))
        case .releaseAllLicenses:
            return .count(affected: try await engine.licenses.releaseAll())
        case .getPlaybackKey(let id, let keyID):
            return .playbackKey(try await engine.licenses.playbackKey(id, keyID: keyID))
        case .subscribe:
            // The server streams subscriptions itself (it calls `subscribe(_:)`).
            throw StashError(.internal, "Subscribe reached the dispatcher")
        case .invalid(let error):
            throw error
        case .unknown:
            throw StashError.unknownOperation
        }
    }
}
