// An app of another package, as it sees StashClient: it imports StashClient alone and uses every
// method of the client, its records and its errors. scripts/check-client-api.py (make test)
// compiles it outside the package, where `package` declarations are out of sight; it must
// compile. Never run.
import Foundation
import StashClient

func everyCall(socketPath: String) async throws {
    let client = try await StashClient.connect(socketPath: socketPath, clientName: "outside-app", busyPollMicroseconds: 0)
    let defaultClient = try await StashClient.connect()
    await defaultClient.close()
    let hello: HelloResult = try await client.hello()
    print(hello.protocolVersion, hello.daemonVersion, hello.features, client.daemonInfo, client.socketPath, client.clientName)
    print(StashVersion.protocolVersion, StashVersion.daemon, StashPaths.defaultSocketPath())

    let headers = [HTTPHeader(name: "Authorization", value: "Bearer x"), try HTTPHeader(parsing: "Accept: */*")]
    let request = AddDownloadRequest(
        id: "a", uri: "https://example.org/a.mp3", title: "A", sha256: "", headers: headers,
        files: [BundleFileSpec(url: "https://example.org/1.jpg", path: "1.jpg", size: 10, sha256: "")],
        hls: HLSOptions(quality: .high, maxHeight: 720, subtitles: ["en"], audio: ["es"], start: 60, end: 120.5),
        drm: DRMParams(kind: .clearkey, licenseServer: "https://example.org/licence"), force: false,
        appData: [1, 2], group: "album/one", append: false,
        textTracks: [TextTrack(uri: "https://example.org/a.vtt", language: "en")], rateLimit: 1 << 20, expect: "audio",
        minSize: 1000, priority: .high)
    let (download, created) = try await client.addDownload(request)
    record(download)
    print(created)
    record(try await client.getDownload(id: "a"))
    let page: DownloadPage = try await client.listDownloads(states: [.queued, .downloading], pageSize: 10, pageToken: "", group: "album")
    print(page.downloads.count, page.nextPageToken, page.total, totals(page.totals))
    print(try await client.allDownloads(states: [.completed]).count)
    let (all, groupTotals) = try await client.allDownloads(states: [], group: "album")
    print(all.count, totals(groupTotals))
    let (exists, state) = try await client.hasDownload(id: "a")
    print(exists, state.name, state.isActive, state.isTerminal, state.holdsCompleteFiles, DownloadState(name: "QUEUED") as Any)
    record(try await client.pause(id: "a"))
    record(try await client.stop(id: "a", reason: "user"))
    record(try await client.resume(id: "a"))
    record(try await client.forget(id: "a", moveTo: "/tmp/keep"))
    record(try await client.adopt(AdoptRequest(path: "/tmp/keep/a.mp3", id: "a", url: "", sha256: "", link: true)))
    try await client.cancel(id: "a")
    print(try await client.pauseAll(), try await client.resumeAll(), try await client.cancelAll())
    print(try await client.pauseGroup("album"), try await client.resumeGroup("album", includeFailed: true), try await client.cancelGroup("album"))
    record(try await client.setPriority(id: "a", .high))
    record(try await client.setRateLimit(id: "a", 512 * 1024))
    record(try await client.setURI(id: "a", "https://cdn.example/a.mp3?sig=2"))
    record(try await client.setURI(id: "ch1", "https://cdn.example/ch1/3.jpg?sig=2", file: "pages/3.jpg"))
    record(try await client.setDownload(
        id: "a", priority: .low, rateLimit: 0, uri: "https://cdn.example/a.mp3?sig=3", headers: [HTTPHeader(name: "X-Token", value: "3")],
        clearHeaders: true, licenseHeaders: [], clearLicenseHeaders: false))
    record(try await client.move(id: "a", .before("b")))
    print(try await client.queue().map { "\($0.id) \($0.priority.name)" }, DownloadPriority(name: "low") as Any, QueueMove.top.other as Any)

    let stats: DownloadStats = try await client.stats()
    print(stats.speed, stats.counts[.queued] ?? 0, stats.activeTransfers, stats.downloadedBytes)
    let info: SystemInfo = try await client.systemInfo()
    print(info.dataDir, info.diskTotal, info.diskFree, info.bytesHeld, info.daemonVersion, info.socketPath, info.downloadCount,
          info.bytesByState, info.assetCount, verified(info.lastVerify), info.warnings)
    var config: DaemonConfig = try await client.config()
    config = try await client.setConfig([(key: "max-parallel", value: "2")])
    print(config.maxParallel, config.filesPerDownload, config.rateLimit, DaemonConfig.keys.map { ($0.name, $0.range, $0.help) })
    print(try config.value(forKey: "max-parallel"))
    print(verified(try await client.verify(deep: true, repair: false, dryRun: true)))
    let purged: PurgeResult = try await client.purge()
    print(purged.filesDeleted, purged.bytesFreed, purged.paths)

    let manifest: ManifestInfo = try await client.manifestInfo(uri: "https://example.org/master.m3u8", headers: headers)
    let window: ManifestInfo = try await client.manifestInfo(uri: "https://example.org/master.m3u8", start: 60, end: 120)
    print(window.start ?? 0, window.end ?? 0)
    for variant in manifest.variants {
        print(variant.uri, variant.bandwidth as Any, variant.width as Any, variant.height as Any, variant.codecs, variant.estimatedBytes,
              variant.sizeIsExact, variant.duration, variant.encryption)
    }
    print(manifest.audio.map(\.language), manifest.duration, manifest.warnings)
    let exported: ExportResult = try await client.export(id: "a", to: "/tmp/out", decrypt: true)
    print(exported.dir, exported.files, exported.bytes, exported.decrypted)
    let film: ExportResult = try await client.export(id: "a", toFile: "/tmp/film.mkv", format: .mkv, force: true, link: false)
    print(film.file, film.format?.rawValue ?? "copy", film.linked, ExportFormat(fileName: "a.mp4") == .mp4)
    for track in film.tracks {
        let kind: ExportTrack.Kind = track.kind
        print(kind.rawValue, track.language, track.codec, track.title)
    }
    record(try await client.addSubtitles(id: "a", languages: ["fr"]))
    record(try await client.addTextTracks(id: "a", [TextTrack(uri: "https://example.org/b.srt", language: "es", title: "ES", type: "srt")]))
    record(try await client.removeSubtitles(id: "a", languages: ["fr"]))
    let renditions: [ManifestInfo.RenditionInfo] = try await client.subtitles(id: "a")
    print(renditions.map { ($0.groupID, $0.language, $0.name, $0.isDefault, $0.forced, $0.uri) })
    let (allRenditions, tracks) = try await client.allSubtitles(id: "a")
    print(allRenditions.count, tracks.map { ($0.uri, $0.language, $0.title, $0.type, $0.path) }, TextTrack.types)

    for status in [try await client.downloadLicense(id: "a"), try await client.checkLicense(id: "a"),
                   try await client.renewLicense(id: "a"), try await client.releaseLicense(id: "a")] {
        licence(status)
    }
    print(try await client.releaseAllLicenses())
    let key: PlaybackKey = try await client.playbackKey(id: "a", keyID: "")
    print(key.key.count, key.keyID, key.playbackSecondsLeft as Any)

    for try await event in try await client.events(ids: ["a"], minProgressStep: 5, minIntervalMs: 500, replayFromSeq: 1) {
        print(event.seq, event.time, event.downloadID)
        switch event.kind {
        case .stateChanged(let record, let previous): print(record.state.name, previous.name)
        case .progress(let update):
            print(update.id, update.downloadedBytes, update.totalBytes as Any, update.progressPercent, update.speed,
                  update.remainingTime as Any, update.filesDone, update.filesTotal)
        case .removed(let id): print(id)
        case .license(let event):
            print(event.id, event.kind.name, event.message)
            if let status = event.status { licence(status) }
        case .eventsLost(let lost): print(lost.firstSeq, lost.lastSeq, lost.count)
        case .exportProgress(let progress):
            print(progress.id, progress.file, progress.bytesDone, progress.bytesTotal, progress.progressPercent)
        case .settingsChanged(let download, let changed):
            print(download.id, download.priority.name, download.rateLimit, download.headers.map(\.name), changed)
        }
    }
    if #available(macOS 15.0, *) {
        try await withTaskExecutorPreference(client.taskExecutor) { _ = try await client.getDownload(id: "a") }
    }

    do {
        _ = try await client.getDownload(id: "missing")
    } catch let error as StashError {
        print(error.code.name, error.code.rawValue, error.message, error.isConnectionFailure, error.description,
              StashError.Code.allCases.count, StashError(.notFound, "made by the app"))
    }
    await client.close()
}

func record(_ download: Download) {
    print(download.id, download.uri, download.title, download.state, download.progressPercent, download.downloadedBytes,
          download.totalBytes as Any, download.speed, download.remainingTime as Any, download.quality, download.hasSubtitles,
          download.hasDRM, download.assetPath, download.createdAt, download.completedAt as Any, download.stateReason,
          download.sha256, download.headers, download.isBundle, download.filesDone, download.filesTotal, download.appData,
          download.group, download.textTracks)
    if let error = download.error { print(error.kind.name, error.message, error.httpStatus, error.description) }
    for file in download.files { print(file.url, file.path, file.size as Any, file.sha256, file.downloadedBytes, file.done) }
    if let hls = download.hls {
        print(hls.quality.rawValue, hls.maxHeight as Any, hls.bandwidth as Any, hls.subtitles, hls.audio, hls.segmentConcurrency,
              hls.start as Any, hls.end as Any, hls.hasRange)
    }
    if let drm = download.drm { print(drm.kind.rawValue, drm.licenseServer, drm.headers, drm.contentID, drm.certificateURL) }
    if let terms = download.license {
        print(terms.acquiredAt, terms.expiresAt as Any, terms.playbackDuration as Any, terms.firstPlaybackAt as Any, terms.kids,
              terms.refusedAt as Any, terms.playbackEndsAt as Any)
    }
}

func totals(_ totals: GroupTotals) -> String {
    "\(totals.bytesDownloaded) \(totals.bytesTotal) \(totals.filesDone) \(totals.filesTotal) \(totals.states)"
}

func verified(_ report: VerifyReport) -> String {
    let findings = report.findings.map { "\($0.kind.name) \($0.id) \($0.path) \($0.detail) \($0.repaired)" }
    return "\(findings) \(report.downloadsChecked) \(report.filesChecked) \(report.finishedAt as Any) \(report.durationMs) "
        + "\(report.deep) \(report.repaired) \(report.requeued) \(report.filesDeleted) \(report.bytesFreed) \(report.digestsChecked)"
}

func licence(_ status: LicenseStatus) {
    print(status.id, status.isValid, status.state.name, status.terms?.kids ?? [], status.check.verdict.rawValue,
          status.check.licenseSecondsLeft as Any, status.check.playbackSecondsLeft as Any, status.check.expiresAt as Any,
          status.check.isValid)
}
