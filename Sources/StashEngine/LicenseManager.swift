import Foundation
import Logging
import StashCore
import StashFetch
import StashHLS
import StashKeys
import StashStore
import Synchronization

/// Licences as a service (PROTOCOL.md, "Licence exchange"): gets keys from a download's licence
/// server, renews and releases them, seals and deletes them in the key store, keeps the
/// releases a server has not acknowledged (`LicenseOutbox`) and runs the licence timer. It
/// never changes a download: each result goes to the engine as a `LicenseReport`
/// (`LicenseHost`), and `EngineState` decides what it changes and what the manager does next
/// (`LicenseOrder`). Time is the engine's clock's.
///
/// Its own state: the timer, and one lane per download, so that the sealing or deleting of a
/// download's keys and the report of it are never interleaved with another exchange's
/// (a release must not delete keys a renewal has just sealed); the exchanges themselves run
/// side by side.
package final class LicenseManager: Sendable {
    /// Releases not acknowledged yet.
    let outbox: LicenseOutbox
    private let fetch: any FetchService
    private let keys: KeyStore
    private let clock: WallClock
    private let logger: Logger
    /// Service certificates of licence servers, fetched once.
    private let certificates = CertificateCache()

    private struct Lane {
        var tail: Task<Void, Never>
        var users: Int
    }

    private struct State {
        weak var host: (any LicenseHost)?
        var timer: Task<Void, Never>?
        var lanes: [String: Lane] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    init(fetch: any FetchService, keys: KeyStore, commits: CommitQueue, clock: WallClock, logger: Logger) {
        self.fetch = fetch
        self.keys = keys
        self.clock = clock
        self.logger = logger
        self.outbox = LicenseOutbox(commits: commits, clock: clock, logger: logger)
    }

    /// The engine the manager reports to (held weakly: the engine holds the manager).
    func attach(_ host: any LicenseHost) {
        state.withLock { $0.host = host }
    }

    /// The exchange with licence servers under `config`'s retries and timeouts; HLS planning
    /// acquires through it too.
    func client(_ config: DaemonConfig) -> LicenseClient {
        LicenseClient(fetch: fetch, certificates: certificates, retry: RetryPolicy(config),
                      lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime, clock: clock)
    }

    /// Takes in the releases no server had acknowledged when stashd stopped (at start).
    func loadOutbox(from registry: Registry) throws {
        let releases = try registry.loadReleases()
        for problem in releases.problems {
            logger.warning("licence release outbox entry skipped", metadata: ["problem": "\(problem)"])
        }
        outbox.load(releases.releases)
    }

    /// Sends the releases the outbox keeps (at start).
    func sendReleases(_ config: DaemonConfig) {
        outbox.send(through: client(config))
    }

    /// No more timer or sends: stashd stops.
    func close() {
        let timer = state.withLock { state in
            state.closed = true
            return state.timer
        }
        timer?.cancel()
        outbox.close()
    }

    /// Carries out what `EngineState` ordered.
    func perform(_ order: LicenseOrder, config: DaemonConfig) {
        switch order {
        case .arm(let moment):
            arm(moment)
        case .renew(let id, let kids, let drm):
            Task { _ = try? await self.renew(id, kids: kids, drm: drm, config: config, automatic: true, held: true) }
        case .keep(let release):
            outbox.keep(release)
            outbox.send(through: client(config))
        }
    }

    // MARK: - A client's requests

    /// Gets a licence for the download's keys, before or during the download (reading its
    /// playlists when they were not read yet) or again after one expired or was released.
    package func acquire(_ id: String) async throws -> LicenseStatus {
        let config = try await host().config
        let (download, drm) = try await licensable(id)
        var keyIDs = download.licenseKeyIDs
        if keyIDs.isEmpty {
            let planned: [PackageKey]
            do {
                let plan = try await preparation(config).plan(uri: download.uri, headers: download.headers, options: download.hls ?? HLSOptions())
                planned = try HLSPreparation.sortKeys(plan.plan.keys, drm: drm).licensed
            } catch let failure as LicenseFailure {
                throw failure.stashError
            } catch let error as DownloadError {
                throw StashError(error.kind == .validation ? .failedPrecondition : .unavailable, error.message)
            } catch is FoundMPD {
                throw StashError(.failedPrecondition, "the stream of '\(id)' is a DASH MPD; licences for DASH (ClearKey CENC) are not supported yet")
            }
            keyIDs = HLSPreparation.licenseKeyIDs(planned)
            guard !keyIDs.isEmpty else {
                throw StashError(.failedPrecondition, "the stream of '\(id)' names no key a licence server gives (skd:// or KEYID); it needs no licence")
            }
        }
        let kids = Array(Set(keyIDs.values)).sorted()
        // Captured by the lane, which runs concurrently: a constant.
        let found = keyIDs
        let answer = try await exchange(id, .acquire, kids: kids, drm: drm, config: config, automatic: false)
        let record = try await inLane(id) {
            try self.seal(answer, id: id, config: config)
            return try await self.host().report(.granted(id, LicenseGrant(action: .acquire, answer: answer, kids: kids, keyIDs: found)))
        }
        return try status(record, id)
    }

    /// The licence's status now; one that ran out meanwhile expires first.
    package func check(_ id: String) async throws -> LicenseStatus {
        guard try await host().licenseRecord(id).drm != nil else {
            throw StashError(.failedPrecondition, "download '\(id)' has no DRM parameters; it has no licence")
        }
        return try status(try await host().report(.checked(id)), id)
    }

    /// Asks the licence server to extend the licence. A refusal is final: the download is
    /// DRM_EXPIRED. A server that cannot be reached leaves everything as it was.
    package func renew(_ id: String) async throws -> LicenseStatus {
        let config = try await host().config
        let (download, drm) = try await licensable(id)
        let kids = download.license?.kids ?? download.licenseKids
        guard !kids.isEmpty else {
            throw StashError(.failedPrecondition, "download '\(id)' holds no licence to renew; `stash license get \(id)` gets one")
        }
        _ = try await host().report(.renewing(id))
        return try status(try await renew(id, kids: kids, drm: drm, config: config, automatic: false, held: download.license != nil), id)
    }

    /// Tells the server, then deletes the keys. A release the server does not acknowledge
    /// (it cannot be reached) stays in the outbox and is sent again, across restarts, until
    /// it does; the keys are deleted all the same, since the app asked to give them up.
    package func release(_ id: String) async throws -> LicenseStatus {
        let config = try await host().config
        let (download, drm) = try await licensable(id)
        guard let terms = download.license else {
            throw StashError(.failedPrecondition, "download '\(id)' holds no licence to release")
        }
        let (acknowledged, note) = await tell(release: terms, drm: drm, config: config)
        let record = try await inLane(id) { () -> Download? in
            let host = try self.host()
            // Another release may have finished while this one waited: nothing is held then.
            // A renewal may have ended meanwhile: the server was told of the release of the
            // same keys, so the renewed terms are what is released.
            let current = try await host.licenseRecord(id)
            guard let held = current.license, Set(held.kids) == Set(terms.kids) else { return current }
            for kid in held.kids {
                do {
                    try self.keys.delete(asset: id, keyID: Download.licenseKeyStoreID(kid))
                } catch {
                    throw StashError(.internal, "could not delete the licence keys of '\(id)': \(error)")
                }
            }
            if !acknowledged {
                self.outbox.keep(LicenseRelease(downloadID: id, drm: drm, kids: terms.kids, requestedAt: self.clock.now()))
            }
            self.logger.info("licence released", metadata: ["id": "\(id)", "acknowledged": "\(acknowledged)"])
            return try await host.report(.released(id, held, note: note))
        }
        if !acknowledged { sendReleases(config) }
        return try status(record, id)
    }

    /// Whether the server acknowledged the release of `terms`, and what it answered.
    private func tell(release terms: LicenseTerms, drm: DRMParams, config: DaemonConfig) async -> (acknowledged: Bool, note: String) {
        do {
            try await client(config).release(kids: terms.kids.compactMap(Base64URL.decode), drm: drm)
            return (true, "the licence server acknowledged the release")
        } catch LicenseFailure.refused(let message, _) {
            // An answer all the same: the server knows of the release and will not take it.
            return (true, "the licence server answered the release with a refusal (\(message))")
        } catch {
            let reason = (error as? LicenseFailure)?.message ?? "\(error)"
            return (false, "the licence server could not be reached (\(reason)); the release is kept and sent again until it answers")
        }
    }

    /// Releases every licence held, one after the other in list order; returns how many.
    package func releaseAll() async throws -> Int {
        var released = 0
        for id in try await host().licensedInOrder() {
            do {
                _ = try await release(id)
                released += 1
            } catch let error as StashError where error.code == .failedPrecondition || error.code == .notFound {
                continue
            }
        }
        return released
    }

    /// A content key for a player of the daemon's own user, while the licence is valid. The
    /// first one starts the licence's playback window.
    package func playbackKey(_ id: String, keyID requested: String) async throws -> PlaybackKey {
        let host = try self.host()
        guard var terms = try await host.licenseRecord(id).license else {
            throw StashError(.failedPrecondition, "download '\(id)' holds no licence; `stash license get \(id)` gets one")
        }
        let now = clock.now()
        let check = terms.check(at: now)
        guard check.isValid else {
            _ = try? await host.report(.checked(id))
            throw StashError(.failedPrecondition, check.reason(for: id))
        }
        let kid = try Self.kid(requested, in: terms, id: id)
        let stored: [UInt8]?
        do {
            stored = try keys.read(asset: id, keyID: Download.licenseKeyStoreID(kid))
        } catch {
            throw StashError(.internal, "cannot read the licence key \(kid) of '\(id)': \(error)")
        }
        guard let key = stored else {
            throw StashError(.failedPrecondition, "the licence key \(kid) of '\(id)' is not in the key store; `stash license get \(id)` fetches it again")
        }
        if terms.firstPlaybackAt == nil {
            terms.startPlayback(at: now)
            _ = try await inLane(id) { try await host.report(.playbackStarted(id, at: now)) }
        }
        return PlaybackKey(key: key, keyID: kid, playbackSecondsLeft: terms.check(at: now).playbackSecondsLeft)
    }

    /// The base64url id of the requested key: "" for the licence's first, else 32 hex digits,
    /// base64url, or the text of an opaque `skd://` id (`someuri`), naming one of its keys.
    static func kid(_ requested: String, in terms: LicenseTerms, id: String) throws -> String {
        if requested.isEmpty, let first = terms.kids.first { return first }
        let hex = SKDURI.hex(requested.filter { $0 != "-" }[...]).map(Base64URL.encode)
        let candidates = [hex, requested, Base64URL.encode(Array(requested.utf8))].compactMap { $0 }
        guard let candidate = candidates.first(where: terms.kids.contains) else {
            throw StashError(.notFound, "key id '\(requested.prefix(64))' is not one of the \(terms.kids.count) keys of the licence of '\(id)'")
        }
        return candidate
    }

    // MARK: - Exchanges

    /// One renewal, ended by exactly one report: granted, failed or ended. `held`: the
    /// download held a licence when it started. If it holds none once the server has
    /// answered, a release came meanwhile: the keys are not sealed (they would bring back a
    /// licence the app gave up), and the server, which has just granted them, is told of the
    /// release again through the outbox.
    private func renew(_ id: String, kids: [String], drm: DRMParams, config: DaemonConfig, automatic: Bool, held: Bool) async throws -> Download? {
        let answer = try await exchange(id, .renew, kids: kids, drm: drm, config: config, automatic: automatic)
        do {
            return try await inLane(id) {
                let host = try self.host()
                if held, try await host.licenseRecord(id).license == nil {
                    self.logger.info("licence renewal answered after a release; its keys are given back", metadata: ["id": "\(id)"])
                    self.outbox.keep(LicenseRelease(downloadID: id, drm: drm, kids: kids, requestedAt: self.clock.now()))
                    self.sendReleases(config)
                    return try await host.report(.renewalEnded(id, automatic: automatic))
                }
                try self.seal(answer, id: id, config: config)
                return try await host.report(.granted(id, LicenseGrant(action: .renew, answer: answer, kids: kids)))
            }
        } catch {
            _ = try? await host().report(.renewalEnded(id, automatic: automatic))
            throw error
        }
    }

    /// One licence request. A failure is reported (a LicenseError event; for a renewal, its
    /// end, and a refusal's consequences committed before the caller hears of it).
    private func exchange(
        _ id: String, _ action: LicenseAction, kids: [String], drm: DRMParams, config: DaemonConfig, automatic: Bool
    ) async throws -> LicenseResponse {
        do {
            return try await client(config).keys(action, kids: kids.compactMap(Base64URL.decode), drm: drm)
        } catch let failure as LicenseFailure {
            _ = try? await inLane(id) { try await self.host().report(.failed(id, action, failure, automatic: automatic)) }
            throw failure.stashError
        } catch {
            if action == .renew { _ = try? await host().report(.renewalEnded(id, automatic: automatic)) }
            throw error
        }
    }

    private func seal(_ answer: LicenseResponse, id: String, config: DaemonConfig) throws {
        do {
            try preparation(config).sealLicenseKeys(answer, asset: id)
        } catch let error as DownloadError {
            throw StashError(.internal, "download '\(id)': \(error.message)")
        }
    }

    private func preparation(_ config: DaemonConfig) -> HLSPreparation {
        HLSPreparation(fetch: fetch, keys: keys, licenses: client(config), retry: RetryPolicy(config),
                       lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime, clock: clock)
    }

    // MARK: - Timer, lanes, helpers

    /// One timer for every licence: a new moment replaces the one armed before.
    private func arm(_ moment: Date?) {
        let clock = self.clock
        let previous = state.withLock { state -> Task<Void, Never>? in
            let previous = state.timer
            state.timer = nil
            guard let moment, !state.closed else { return previous }
            let delay = max(LicenseSchedule.minimumDelay, moment.timeIntervalSince(clock.now()))
            state.timer = Task.detached { [weak host = state.host] in
                await clock.sleep(delay)
                guard !Task.isCancelled else { return }
                _ = try? await host?.report(.timer)
            }
            return previous
        }
        previous?.cancel()
    }

    /// Runs `body` after every earlier body of the same download's lane has ended.
    private func inLane<T: Sendable>(_ id: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = state.withLock { state -> Task<T, Error> in
            let previous = state.lanes[id]?.tail
            let task = Task {
                await previous?.value
                return try await body()
            }
            state.lanes[id] = Lane(tail: Task { _ = await task.result }, users: (state.lanes[id]?.users ?? 0) + 1)
            return task
        }
        let result = await task.result
        state.withLock { state in
            guard var lane = state.lanes[id] else { return }
            lane.users -= 1
            state.lanes[id] = lane.users > 0 ? lane : nil
        }
        return try result.get()
    }

    private func host() throws -> any LicenseHost {
        guard let host = state.withLock({ $0.host }) else { throw StashError(.unavailable, "stashd is stopping") }
        return host
    }

    /// The download and its DRM parameters; an error when it has none.
    private func licensable(_ id: String) async throws -> (download: Download, drm: DRMParams) {
        let download = try await host().licenseRecord(id)
        guard let drm = download.drm else {
            throw StashError(.failedPrecondition, "download '\(id)' has no DRM parameters; add it with --drm-type clearkey --license-server URL")
        }
        return (download, drm)
    }

    private func status(_ record: Download?, _ id: String) throws -> LicenseStatus {
        guard let record else { throw StashError.notFound(id: id) }
        return LicenseStatus(record, at: clock.now())
    }
}
