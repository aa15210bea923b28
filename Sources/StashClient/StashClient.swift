import NIOCore
import StashCore
import StashWire

/// A connection to stashd. Every method sends one request and awaits its response; calls may
/// run concurrently on one client (responses are matched by request id). A failed status
/// throws its `StashError`; a lost connection throws UNAVAILABLE for every pending call.
public final class StashClient: Sendable {
    /// The socket this client is connected to.
    public let socketPath: String
    /// The name announced in Hello, also used for event connections.
    public let clientName: String
    /// The daemon's answer to the Hello sent by `connect`.
    public let daemonInfo: HelloResult
    private let connection: ClientConnection

    private init(socketPath: String, clientName: String, daemonInfo: HelloResult, connection: ClientConnection) {
        self.socketPath = socketPath
        self.clientName = clientName
        self.daemonInfo = daemonInfo
        self.connection = connection
    }

    deinit {
        connection.closeSoon()
    }

    /// Connects to the daemon and says Hello.
    ///
    /// - Parameter busyPollMicroseconds: after writing a request, the connection's thread
    ///   watches the socket this long for the answer before it sleeps (0, the default: it
    ///   sleeps at once). For a caller that makes calls back to back and wants each answer
    ///   soonest; it spends CPU time while it waits. Pair it with `stashd --busy-poll-us`.
    /// - Throws: UNAVAILABLE, saying how to start the daemon, when nothing listens at
    ///   `socketPath`; the daemon's error when it refuses the connection or the Hello.
    public static func connect(
        socketPath: String = StashPaths.defaultSocketPath(), clientName: String = "StashClient", busyPollMicroseconds: Int = 0
    ) async throws -> StashClient {
        let connection = try await ClientConnection.open(socketPath: socketPath, busyPollMicroseconds: busyPollMicroseconds)
        do {
            let info = try await hello(on: connection, clientName: clientName)
            return StashClient(socketPath: socketPath, clientName: clientName, daemonInfo: info, connection: connection)
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Says Hello again; the answer names the daemon's version, protocol and features.
    public func hello() async throws -> HelloResult {
        try await Self.hello(on: connection, clientName: clientName)
    }

    /// The executor of this client's connection thread, for latency-sensitive callers.
    ///
    /// A task that runs its calls under `withTaskExecutorPreference(client.taskExecutor)`
    /// runs on the thread that does the connection's I/O: each call writes its request in
    /// place and resumes from its response without waking another thread, two wake-ups less
    /// per round trip than from the default pool. Code in such a task holds up the connection
    /// (and every other connection on that thread) while it runs, so it must not block or
    /// compute for long.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *)
    public var taskExecutor: any TaskExecutor {
        connection.taskExecutor
    }

    /// Adds a download. `created` is false when a download with the same id and URI was
    /// already there (AddDownload is idempotent for a given id). A time range (`hls.start`,
    /// `hls.end`) needs a daemon that announces `time-range`; an older one would fetch the
    /// whole stream, so it is refused here with UNIMPLEMENTED instead; so are a rate limit
    /// (`rate-limit`), a priority other than normal (`priority`), content rules, the
    /// download's or a file's (`content-check`), and `replace` (`replace`), which such a
    /// daemon would ignore; a replace of a bundle, an HLS stream or a download with text
    /// tracks needs `replace-any` (a daemon with `replace` only refuses it).
    public func addDownload(_ request: AddDownloadRequest) async throws -> (download: Download, created: Bool) {
        if request.hls?.hasRange ?? false { try requireTimeRanges() }
        if request.rateLimit != 0, !daemonInfo.features.contains("rate-limit") {
            throw StashError(.unimplemented, "stashd \(daemonInfo.daemonVersion) does not support a rate limit per download (feature \"rate-limit\"); it would fetch at full speed")
        }
        if request.priority != .normal { try requirePriority() }
        if Self.hasContentRules(request), !daemonInfo.features.contains("content-check") {
            throw StashError(.unimplemented, "stashd \(daemonInfo.daemonVersion) does not check content (feature \"content-check\"); it would keep any body")
        }
        if request.network != nil || request.onBattery != nil { try requireDesktop() }
        if request.replace, !daemonInfo.features.contains("replace") {
            // An older daemon ignores the field and answers the old copy as if it were renewed.
            throw StashError(.unimplemented, "stashd \(daemonInfo.daemonVersion) does not support replace (feature \"replace\"); it would keep the old copy without fetching it again")
        }
        if request.replace, !request.files.isEmpty || request.hls != nil || !request.textTracks.isEmpty, !daemonInfo.features.contains("replace-any") {
            throw StashError(.unimplemented, "stashd \(daemonInfo.daemonVersion) replaces single files only (feature \"replace-any\" replaces bundles, HLS streams and downloads with text tracks)")
        }
        let result = try await connection.call(.addDownload(request))
        guard case .download(let download, let created) = result else { throw Self.unexpected(result, for: "AddDownload") }
        return (download, created)
    }

    /// The download's current record; NOT_FOUND when there is none with this id.
    public func getDownload(id: String) async throws -> Download {
        let result = try await connection.call(.getDownload(id: id))
        guard case .download(let download, _) = result else { throw Self.unexpected(result, for: "GetDownload") }
        return download
    }

    /// One page of downloads, oldest first.
    ///
    /// - Parameters:
    ///   - states: only downloads in these states; empty for all.
    ///   - pageSize: 0 for the daemon's default (100); at most 1000.
    ///   - pageToken: empty for the first page, else `nextPageToken` of the previous page.
    /// One page of downloads in the given states (all when empty) and group (with the groups
    /// under it; all when empty), with the totals of every match.
    public func listDownloads(states: [DownloadState] = [], pageSize: Int = 0, pageToken: String = "", group: String = "") async throws -> DownloadPage {
        let request = ListDownloadsRequest(states: states, pageSize: pageSize, pageToken: pageToken, group: group)
        let result = try await connection.call(.listDownloads(request))
        guard case .list(let page) = result else { throw Self.unexpected(result, for: "ListDownloads") }
        return page
    }

    /// Every download in the given states (all when empty), following page tokens.
    public func allDownloads(states: [DownloadState] = []) async throws -> [Download] {
        try await allDownloads(states: states, group: "").downloads
    }

    /// Every download in the given states and group, following page tokens, with their totals.
    public func allDownloads(states: [DownloadState], group: String) async throws -> (downloads: [Download], totals: GroupTotals) {
        var downloads: [Download] = []
        var token = ""
        var totals = GroupTotals()
        repeat {
            let page = try await listDownloads(states: states, pageSize: 1000, pageToken: token, group: group)
            downloads.append(contentsOf: page.downloads)
            token = page.nextPageToken
            totals = page.totals
        } while !token.isEmpty
        return (downloads, totals)
    }

    /// Whether a download exists, and its state; cheaper than `getDownload`.
    public func hasDownload(id: String) async throws -> (exists: Bool, state: DownloadState) {
        let result = try await connection.call(.hasDownload(id: id))
        guard case .has(let exists, let state) = result else { throw Self.unexpected(result, for: "HasDownload") }
        return (exists, state)
    }

    /// Pauses a download; returns its record after the change.
    public func pause(id: String) async throws -> Download {
        try await downloadResult(of: .pause(id: id))
    }

    /// The QUEUED downloads in the order they will get a slot.
    public func queue() async throws -> [Download] {
        try await allDownloads(states: [.queued])
    }

    /// Stops a download with the app's own reason (STOPPED, the reason as its `stateReason`);
    /// only `resume` starts it again. Returns its record after the change.
    public func stop(id: String, reason: String) async throws -> Download {
        try await downloadResult(of: .stop(id: id, reason: reason))
    }

    /// Moves a completed download's files into the folder `moveTo` (absolute, existing) and
    /// drops its record; returns the record as it was, its `assetPath` where the files are now.
    public func forget(id: String, moveTo: String) async throws -> Download {
        try await downloadResult(of: .forget(id: id, moveTo: moveTo))
    }

    /// Takes a file or folder already on disk as a COMPLETED download (moved, or hard-linked
    /// with `link`); returns its record.
    public func adopt(_ request: AdoptRequest) async throws -> Download {
        try await downloadResult(of: .adopt(request))
    }

    /// Resumes a paused, stopped or failed download; returns its record after the change.
    public func resume(id: String) async throws -> Download {
        try await downloadResult(of: .resume(id: id))
    }

    /// Cancels a download and removes its files.
    public func cancel(id: String) async throws {
        _ = try await connection.call(.cancel(id: id))
    }

    /// Pauses every download that can be paused; returns how many were.
    public func pauseAll() async throws -> Int {
        try await countResult(of: .pauseAll)
    }

    /// Resumes every paused or failed download (not the stopped ones); returns how many were.
    public func resumeAll() async throws -> Int {
        try await countResult(of: .resumeAll)
    }

    /// Cancels every download; returns how many were.
    public func cancelAll() async throws -> Int {
        try await countResult(of: .cancelAll)
    }

    /// Pauses what can be paused of `group` and the groups under it (`one-piece` takes
    /// `one-piece/chapter-12`, not `one-piece-2`); returns how many were. Needs a daemon that
    /// announces `group-ops`; an older one answers UNIMPLEMENTED.
    public func pauseGroup(_ group: String) async throws -> Int {
        try await countResult(of: .pauseGroup(GroupRequest(group: group)))
    }

    /// Resumes the PAUSED downloads of `group` and the groups under it, the FAILED ones too
    /// with `includeFailed`, never the STOPPED ones; returns how many were (`group-ops`).
    public func resumeGroup(_ group: String, includeFailed: Bool = false) async throws -> Int {
        try await countResult(of: .resumeGroup(GroupRequest(group: group, includeFailed: includeFailed)))
    }

    /// Cancels every download of `group` and the groups under it, deleting their files;
    /// returns how many were (`group-ops`).
    public func cancelGroup(_ group: String) async throws -> Int {
        try await countResult(of: .cancelGroup(GroupRequest(group: group)))
    }

    /// Traffic and downloads per state.
    public func stats() async throws -> DownloadStats {
        let result = try await connection.call(.getStats)
        guard case .stats(let stats) = result else { throw Self.unexpected(result, for: "GetStats") }
        return stats
    }

    /// Where the daemon keeps its data and how much room is left.
    public func systemInfo() async throws -> SystemInfo {
        let result = try await connection.call(.getSystemInfo)
        guard case .systemInfo(let info) = result else { throw Self.unexpected(result, for: "GetSystemInfo") }
        return info
    }

    /// The daemon's current settings.
    public func config() async throws -> DaemonConfig {
        try await configResult(of: .getConfig)
    }

    /// Changes settings (keys as in `DaemonConfig.keys`); all or none are applied. Returns the
    /// settings after the change.
    public func setConfig(_ entries: [(key: String, value: String)]) async throws -> DaemonConfig {
        try await configResult(of: .setConfig(entries.map { ConfigEntry(key: $0.key, value: $0.value) }))
    }

    /// Compares the registry with the disk. With `repair` (and not `dryRun`), downloads with
    /// missing or damaged files are queued to fetch them again and orphans are deleted.
    public func verify(deep: Bool = false, repair: Bool = false, dryRun: Bool = false) async throws -> VerifyReport {
        let result = try await connection.call(.verify(VerifyRequest(deep: deep, repair: repair, dryRun: dryRun)))
        guard case .verify(let report) = result else { throw Self.unexpected(result, for: "Verify") }
        return report
    }

    /// Deletes files and folders under `assets/` that no download owns, and stale part files.
    public func purge() async throws -> PurgeResult {
        let result = try await connection.call(.purge)
        guard case .purge(let purged) = result else { throw Self.unexpected(result, for: "Purge") }
        return purged
    }

    /// Reads the HLS stream at `uri` and says what it offers: variants with their estimated
    /// sizes, audio and subtitle renditions, duration. Nothing is downloaded or stored. With
    /// `start` or `end` (seconds), the sizes are those of that time range's segments, and the
    /// answer's `start` and `end` say the range as a download would keep it (`time-range`).
    public func manifestInfo(uri: String, headers: [HTTPHeader] = [], start: Double? = nil, end: Double? = nil) async throws -> ManifestInfo {
        if start != nil || end != nil { try requireTimeRanges() }
        let result = try await connection.call(.getManifestInfo(uri: uri, headers: headers, start: start, end: end))
        guard case .manifestInfo(let info) = result else { throw Self.unexpected(result, for: "GetManifestInfo") }
        return info
    }

    /// Writes a completed HLS download to `dir` (absolute; new or empty) as a package an
    /// ordinary player opens offline: with its keys next to the playlists, or decrypted.
    public func export(id: String, to dir: String, decrypt: Bool = false) async throws -> ExportResult {
        let result = try await connection.call(.export(ExportRequest(id: id, dir: dir, decrypt: decrypt)))
        guard case .export(let exported) = result else { throw Self.unexpected(result, for: "Export") }
        return exported
    }

    /// Writes a completed download as one file at `file` (absolute): an HLS download remuxed,
    /// without re-encoding, into an MP4 or Matroska file (`format`, else the extension's) with
    /// its video, each audio rendition and its subtitles as tracks; a single-file download
    /// copied, or with `link` hard-linked. An existing file is replaced only with `force`.
    /// While it runs, a subscription to `id` (`events`) gets `.exportProgress` events.
    public func export(id: String, toFile file: String, format: ExportFormat? = nil, force: Bool = false, link: Bool = false)
        async throws -> ExportResult
    {
        let result = try await connection.call(.export(ExportRequest(id: id, file: file, format: format, force: force, link: link)))
        guard case .export(let exported) = result else { throw Self.unexpected(result, for: "Export") }
        return exported
    }

    /// Adds subtitle languages ("all" for every one) to a completed HLS download; only the new
    /// subtitles are fetched. A language the stream does not offer is INVALID_ARGUMENT.
    public func addSubtitles(id: String, languages: [String]) async throws -> Download {
        try await downloadResult(of: .addSubtitles(id: id, languages: languages))
    }

    /// Adds side-loaded text tracks to any download (daemon feature `text-tracks`); only the
    /// new tracks are fetched, a track it has is skipped.
    public func addTextTracks(id: String, _ textTracks: [TextTrack]) async throws -> Download {
        try await downloadResult(of: .addSubtitles(id: id, languages: [], textTracks: textTracks))
    }

    /// Removes subtitle languages from an HLS download, and text tracks (by language, or by
    /// file name such as `es-2`) from any download; offline: nothing is fetched.
    public func removeSubtitles(id: String, languages: [String]) async throws -> Download {
        try await downloadResult(of: .removeSubtitles(id: id, languages: languages))
    }

    /// The subtitle renditions an HLS download keeps; `uri` is each one's playlist in the asset folder.
    public func subtitles(id: String) async throws -> [ManifestInfo.RenditionInfo] {
        try await allSubtitles(id: id).renditions
    }

    /// Every subtitle a download keeps: an HLS download's renditions and the text tracks of any
    /// download (`path` each one's file in the asset folder).
    public func allSubtitles(id: String) async throws -> (renditions: [ManifestInfo.RenditionInfo], textTracks: [TextTrack]) {
        let result = try await connection.call(.getSubtitles(id: id))
        guard case .subtitles(let renditions, let textTracks) = result else { throw Self.unexpected(result, for: "GetSubtitles") }
        return (renditions, textTracks)
    }

    /// Gets a licence for a download with DRM parameters: before it starts (its playlists are
    /// read to learn the key ids), while it runs, or again after one expired or was released.
    public func downloadLicense(id: String) async throws -> LicenseStatus {
        try await licenseResult(of: .downloadLicense(id: id))
    }

    /// Whether the download's licence is valid now, and the seconds left of it and of its
    /// playback window.
    public func checkLicense(id: String) async throws -> LicenseStatus {
        try await licenseResult(of: .checkLicense(id: id))
    }

    /// Extends the licence. A refusal by the server is PERMISSION_DENIED and leaves the
    /// download DRM_EXPIRED; an unreachable server is UNAVAILABLE and changes nothing.
    public func renewLicense(id: String) async throws -> LicenseStatus {
        try await licenseResult(of: .renewLicense(id: id))
    }

    /// Deletes the download's keys and tells the licence server (retried until it answers).
    public func releaseLicense(id: String) async throws -> LicenseStatus {
        try await licenseResult(of: .releaseLicense(id: id))
    }

    /// Releases every licence held; returns how many.
    public func releaseAllLicenses() async throws -> Int {
        try await countResult(of: .releaseAllLicenses)
    }

    /// A content key for offline playback, for processes of the daemon's own user and only
    /// while the licence is valid. The first one starts the licence's playback window.
    /// - Parameter keyID: 32 hex digits or base64url; "" for the licence's first key.
    public func playbackKey(id: String, keyID: String = "") async throws -> PlaybackKey {
        let result = try await connection.call(.getPlaybackKey(id: id, keyID: keyID))
        guard case .playbackKey(let key) = result else { throw Self.unexpected(result, for: "GetPlaybackKey") }
        return key
    }

    /// Opens an event stream on a connection of its own, so this client stays usable.
    ///
    /// The subscription is in place when this returns: no event after that moment is missed.
    /// The stream throws UNAVAILABLE when the connection closes; ending the iteration closes
    /// the connection.
    ///
    /// - Parameters:
    ///   - ids: only these downloads; empty for all.
    ///   - minProgressStep: percent between progress events of one download (0 means 1).
    ///   - minIntervalMs: milliseconds between progress events of one download (0 means 250).
    ///   - replayFromSeq: 0 for none; else the daemon first replays buffered events from this seq.
    ///   - states: empty for every event; else only changes into these states, removals and
    ///     `.eventsLost` (no progress, settings, licence or export events): for a client that
    ///     waits for outcomes, such as `[.completed, .failed]`.
    public func events(
        ids: [String] = [], minProgressStep: Int = 0, minIntervalMs: Int = 0, replayFromSeq: UInt64 = 0, states: [DownloadState] = []
    ) async throws -> AsyncThrowingStream<DownloadEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: DownloadEvent.self, throwing: Error.self)
        let eventConnection = try await ClientConnection.open(socketPath: socketPath, events: continuation)
        continuation.onTermination = { _ in eventConnection.closeSoon() }
        do {
            _ = try await Self.hello(on: eventConnection, clientName: clientName)
            let request = SubscribeRequest(
                ids: ids, minProgressStep: minProgressStep, minIntervalMs: minIntervalMs, replayFromSeq: replayFromSeq, states: states)
            _ = try await eventConnection.call(.subscribe(request))
        } catch {
            await eventConnection.close()
            throw error
        }
        return stream
    }

    /// Closes the connection; pending calls fail with UNAVAILABLE. Event streams opened by
    /// `events` have connections of their own and stay open.
    public func close() async {
        await connection.close()
    }

    // MARK: - Private

    private static func hello(on connection: ClientConnection, clientName: String) async throws -> HelloResult {
        let result = try await connection.call(.hello(HelloRequest(clientName: clientName)))
        guard case .hello(let info) = result else { throw unexpected(result, for: "Hello") }
        return info
    }

    func downloadResult(of op: Operation) async throws -> Download {
        let result = try await connection.call(op)
        guard case .download(let download, _) = result else { throw Self.unexpected(result, for: op.name) }
        return download
    }

    private func licenseResult(of op: Operation) async throws -> LicenseStatus {
        let result = try await connection.call(op)
        guard case .license(let status) = result else { throw Self.unexpected(result, for: op.name) }
        return status
    }

    private func countResult(of op: Operation) async throws -> Int {
        let result = try await connection.call(op)
        guard case .count(let affected) = result else { throw Self.unexpected(result, for: op.name) }
        return affected
    }

    private func configResult(of op: Operation) async throws -> DaemonConfig {
        let result = try await connection.call(op)
        guard case .config(let config) = result else { throw Self.unexpected(result, for: op.name) }
        return config
    }

    /// A daemon before time ranges ignores the fields it does not know: it would plan or
    /// fetch the whole stream while the caller asked for a part.
    private func requireTimeRanges() throws {
        guard daemonInfo.features.contains("time-range") else {
            throw StashError(.unimplemented, "stashd \(daemonInfo.daemonVersion) does not support time ranges (feature \"time-range\"); it would take the whole stream")
        }
    }

    /// A daemon before priorities adds every download as normal and knows neither SetDownload
    /// nor Move: refused here, before anything is sent, naming what is missing.
    func requirePriority() throws {
        guard daemonInfo.features.contains("priority") else {
            throw StashError(.unimplemented, "stashd \(daemonInfo.daemonVersion) does not support priorities and queue moves (feature \"priority\")")
        }
    }

    /// A daemon before content checks ignores the rules and keeps any body, so rules of the
    /// download's or of any file's are refused here instead.
    private static func hasContentRules(_ request: AddDownloadRequest) -> Bool {
        !request.expect.isEmpty || request.minSize != 0 || request.files.contains { !$0.expect.isEmpty || $0.minSize != 0 }
    }

    private static func unexpected(_ result: ResponseResult, for opName: String) -> StashError {
        StashError(.internal, "stashd answered \(opName) with an unexpected result: \(result)")
    }
}
