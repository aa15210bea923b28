import Foundation
import StashCore
import StashFetch
import StashHLS
import StashKeys

/// Licences: the keys of a protected HLS download come from its licence server (PROTOCOL.md,
/// "Licence exchange"). The engine keeps each download's licence terms in its record, moves a
/// completed download to LICENSE_EXPIRED or DRM_EXPIRED when they run out, renews at 80 % of
/// a licence's life, and keeps releases the server has not acknowledged in an outbox.
extension Engine {
    var licenseClient: LicenseClient {
        LicenseClient(fetch: fetch, certificates: certificates, retry: RetryPolicy(config),
                      lowSpeedLimit: config.lowSpeedLimit, lowSpeedTime: config.lowSpeedTime, clock: clock)
    }

    /// Gets a licence for the download's keys, before or during the download (reading its
    /// playlists when they were not read yet) or again after one expired or was released.
    public func downloadLicense(id: String) async throws -> LicenseStatus {
        let (download, drm) = try licensable(id)
        var keyIDs = download.licenseKeyIDs
        if keyIDs.isEmpty {
            let preparation = hlsPreparation
            let planned: [PackageKey]
            do {
                planned = try HLSPreparation.sortKeys(
                    try await preparation.plan(uri: download.uri, headers: download.headers, options: download.hls ?? HLSOptions()).plan.keys,
                    drm: drm).licensed
            } catch let failure as LicenseFailure {
                throw failure.stashError
            } catch let error as DownloadError {
                throw StashError(error.kind == .validation ? .failedPrecondition : .unavailable, error.message)
            }
            keyIDs = HLSPreparation.licenseKeyIDs(planned)
            guard !keyIDs.isEmpty else {
                throw StashError(.failedPrecondition, "the stream of '\(id)' names no key a licence server gives (skd:// or KEYID); it needs no licence")
            }
        }
        let kids = Array(Set(keyIDs.values)).sorted()
        let answer = try await exchange(id, .acquire, kids: kids, drm: drm)
        try store(answer, id: id)
        return try await updateLicense(id, event: .downloaded) { record in
            record.licenseKeyIDs = keyIDs
            record.license = LicenseTerms(
                acquiredAt: clock.now(), expiresIn: answer.expiresIn, playbackDuration: answer.playbackDuration.map(TimeInterval.init), kids: kids)
        }
    }

    public func checkLicense(id: String) throws -> LicenseStatus {
        guard let entry = entries[id] else { throw StashError.notFound(id: id) }
        guard entry.download.drm != nil else {
            throw StashError(.failedPrecondition, "download '\(id)' has no DRM parameters; it has no licence")
        }
        // The timer may be a moment behind: the answer is the truth at this instant.
        expireLicenses(now: clock.now())
        return LicenseStatus(entries[id]?.download ?? entry.download, at: clock.now())
    }

    /// Asks the licence server to extend the licence. A refusal is final: the download is
    /// DRM_EXPIRED. A server that cannot be reached leaves everything as it was.
    public func renewLicense(id: String) async throws -> LicenseStatus {
        try await renew(id, automatic: false)
    }

    /// Tells the server, then deletes the keys. A release the server does not acknowledge
    /// (it cannot be reached) stays in the outbox and is sent again, across restarts, until
    /// it does; the keys are deleted all the same, since the app asked to give them up.
    public func releaseLicense(id: String) async throws -> LicenseStatus {
        let (download, drm) = try licensable(id)
        guard let terms = download.license else {
            throw StashError(.failedPrecondition, "download '\(id)' holds no licence to release")
        }
        var note: String
        var acknowledged = true
        do {
            try await licenseClient.release(kids: terms.kids.compactMap(Base64URL.decode), drm: drm)
            note = "the licence server acknowledged the release"
        } catch LicenseFailure.refused(let message, _) {
            // An answer all the same: the server knows of the release and will not take it.
            note = "the licence server answered the release with a refusal (\(message))"
        } catch {
            acknowledged = false
            note = "the licence server could not be reached (\((error as? LicenseFailure)?.message ?? "\(error)")); the release is kept and sent again until it answers"
        }
        // Another release of the same licence may have finished while this one waited.
        guard entries[id]?.download.license == terms else { return LicenseStatus(try licensable(id).download, at: clock.now()) }
        for kid in terms.kids {
            do {
                try keys.delete(asset: id, keyID: Download.licenseKeyStoreID(kid))
            } catch {
                throw StashError(.internal, "could not delete the licence keys of '\(id)': \(error)")
            }
        }
        if !acknowledged {
            outbox.keep(LicenseRelease(downloadID: id, drm: drm, kids: terms.kids, requestedAt: clock.now()))
        }
        logger.info("licence released", metadata: ["id": "\(id)", "acknowledged": "\(acknowledged)"])
        let status = try await updateLicense(id, event: .released, message: "keys deleted; " + note) { record in
            record.license = nil
        } transition: { state in
            state == .completed ? (.licenseExpired, "the licence was released; `stash license get \(id)` gets a new one") : nil
        }
        if !acknowledged { sendOutbox() }
        return status
    }

    public func releaseAllLicenses() async throws -> Int {
        let ids = order.filter { entries[$0]?.download.license != nil }
        var released = 0
        for id in ids {
            do {
                _ = try await releaseLicense(id: id)
                released += 1
            } catch let error as StashError where error.code == .failedPrecondition || error.code == .notFound {
                continue
            }
        }
        return released
    }

    /// A content key for a player of the daemon's own user, while the licence is valid. The
    /// first one starts the licence's playback window.
    public func playbackKey(id: String, keyID requested: String) async throws -> PlaybackKey {
        guard let entry = entries[id] else { throw StashError.notFound(id: id) }
        guard var terms = entry.download.license else {
            throw StashError(.failedPrecondition, "download '\(id)' holds no licence; `stash license get \(id)` gets one")
        }
        let now = clock.now()
        let check = terms.check(at: now)
        guard check.isValid else {
            expireLicenses(now: now)
            throw StashError(.failedPrecondition, Self.invalidLicenseMessage(id, check))
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
            _ = try await updateLicense(id, event: nil) { $0.license = terms }
        }
        return PlaybackKey(key: key, keyID: kid, playbackSecondsLeft: terms.check(at: now).playbackSecondsLeft)
    }

    // MARK: - Timer, renewal and outbox

    /// Moves completed downloads whose licence or playback window ran out, starts the
    /// renewals that are due, and sleeps until the next of those moments.
    func licenseTick() {
        let now = clock.now()
        expireLicenses(now: now)
        for id in licensedInOrder() {
            guard let download = entries[id]?.download, let terms = download.license, let drm = download.drm,
                  download.state != .drmExpired, terms.refusedAt == nil, let due = terms.renewalDue, due <= now,
                  !renewing.contains(id), (renewRetryAt[id] ?? .distantPast) <= now,
                  network.isOnline(host: URLComponents(string: drm.licenseServer)?.host ?? "") else { continue }
            renewing.insert(id)
            Task { _ = try? await self.renew(id, automatic: true) }
        }
        armLicenseTimer()
    }

    /// The downloads holding licence terms, oldest first, so what happens to several at one
    /// moment happens (and is reported) in the list's order.
    private func licensedInOrder() -> [String] {
        // Each entry is looked up once, not twice per comparison.
        entries.licensed.compactMap { id in entries[id].map { (seq: $0.seq, id: id) } }
            .sorted { $0.seq < $1.seq }
            .map(\.id)
    }

    /// Sleeps until the next licence moment of any download (expiry, end of playback,
    /// renewal); one timer for all of them.
    func armLicenseTimer() {
        licenseTimer?.cancel()
        var next: Date?
        func consider(_ date: Date?) {
            guard let date else { return }
            if next == nil || date < next! { next = date }
        }
        for id in entries.licensed {
            guard let download = entries[id]?.download, let terms = download.license else { continue }
            // A refusal of a completed download's terms is due at once: it completed since.
            if download.state == .completed { consider(terms.refusedAt ?? terms.expiresAt) }
            if download.state == .completed || download.state == .licenseExpired { consider(terms.playbackEndsAt) }
            if download.state != .drmExpired, terms.refusedAt == nil, !renewing.contains(download.id) {
                consider(max(terms.renewalDue ?? .distantFuture, renewRetryAt[download.id] ?? .distantPast))
            }
        }
        guard let next, next != .distantFuture else { return }
        let delay = max(0.01, next.timeIntervalSince(clock.now()))
        let clock = self.clock
        licenseTimer = Task.detached { [weak self] in
            await clock.sleep(delay)
            guard !Task.isCancelled else { return }
            await self?.licenseTick()
        }
    }

    /// LICENSE_EXPIRED and DRM_EXPIRED for completed downloads whose time is up.
    func expireLicenses(now: Date) {
        for id in licensedInOrder() {
            guard let download = entries[id]?.download, let terms = download.license,
                  download.state == .completed || download.state == .licenseExpired else { continue }
            let check = terms.check(at: now)
            let input: DownloadLifecycle.Input
            switch check.verdict {
            case .playbackExpired, .refused: input = .drmExpired
            case .licenseExpired where download.state == .completed: input = .licenseExpired
            default: continue
            }
            let reason = Self.invalidLicenseMessage(id, check)
            guard (try? transition(id, input, edit: { $0.stateReason = reason })) != nil else { continue }
            logger.info("licence ran out", metadata: ["id": "\(id)", "verdict": "\(check.verdict.rawValue)"])
            commits.submit(nil, event: .license(LicenseEvent(id: id, kind: .expired, message: reason,
                                                             status: entries[id].map { LicenseStatus($0.download, at: now) })))
        }
    }

    func renew(_ id: String, automatic: Bool) async throws -> LicenseStatus {
        renewing.insert(id)
        defer {
            renewing.remove(id)
            armLicenseTimer()
        }
        let (download, drm) = try licensable(id)
        let kids = download.license?.kids ?? download.licenseKids
        guard !kids.isEmpty else {
            throw StashError(.failedPrecondition, "download '\(id)' holds no licence to renew; `stash license get \(id)` gets one")
        }
        let answer: LicenseResponse
        do {
            answer = try await exchange(id, .renew, kids: kids, drm: drm)
            renewRetryAt[id] = nil
        } catch let error as StashError {
            if error.code == .permissionDenied, let state = entries[id]?.download.state {
                let refusedAt = clock.now()
                if [.completed, .licenseExpired].contains(state) {
                    let change = try? transition(id, .drmExpired) {
                        $0.stateReason = "the licence server refused to renew the licence; the content cannot be played"
                        $0.error = DownloadError(.http, error.message)
                        $0.license?.refusedAt = refusedAt
                    }
                    // Committed before the refusal is answered, so a GetDownload that follows
                    // the answer sees DRM_EXPIRED.
                    try? await change?.ticket.wait()
                } else {
                    // Kept in the terms, so a download that completes later (a repair, say)
                    // does not come back playable.
                    _ = try? await updateLicense(id, event: nil) { $0.license?.refusedAt = refusedAt }
                }
            }
            // Whatever went wrong, the timer does not ask again at once.
            if automatic { renewRetryAt[id] = clock.now().addingTimeInterval(Self.renewalRetryInterval) }
            throw error
        }
        try store(answer, id: id)
        let now = clock.now()
        return try await updateLicense(id, event: .renewed) { record in
            let playback = answer.playbackDuration.map(TimeInterval.init)
            record.license = record.license?.renewed(at: now, expiresIn: answer.expiresIn, playbackDuration: playback)
                ?? LicenseTerms(acquiredAt: now, expiresIn: answer.expiresIn, playbackDuration: playback, kids: kids)
        }
    }

    /// Sends what the outbox keeps.
    func sendOutbox() {
        outbox.send(through: licenseClient)
    }

    // MARK: - Helpers

    static let renewalRetryInterval: TimeInterval = 15

    /// The download, if it can have a licence (an HLS download with DRM parameters).
    /// The download and its DRM parameters; an error when it has none.
    private func licensable(_ id: String) throws -> (download: Download, drm: DRMParams) {
        guard let entry = entries[id] else { throw StashError.notFound(id: id) }
        guard let drm = entry.download.drm else {
            throw StashError(.failedPrecondition, "download '\(id)' has no DRM parameters; add it with --drm-type clearkey --license-server URL")
        }
        return (entry.download, drm)
    }

    /// One licence request; a failure is also a LicenseError event.
    private func exchange(_ id: String, _ action: LicenseAction, kids: [String], drm: DRMParams) async throws -> LicenseResponse {
        do {
            return try await licenseClient.keys(action, kids: kids.compactMap(Base64URL.decode), drm: drm)
        } catch let failure as LicenseFailure {
            logger.warning("licence request failed", metadata: ["id": "\(id)", "action": "\(action.rawValue)", "error": "\(failure.message.withoutURLSecrets)"])
            commits.submit(nil, event: .license(LicenseEvent(id: id, kind: .error, message: failure.message)))
            throw failure.stashError
        }
    }

    private func store(_ answer: LicenseResponse, id: String) throws {
        do {
            try hlsPreparation.sealLicenseKeys(answer, asset: id)
        } catch let error as DownloadError {
            throw StashError(.internal, "download '\(id)': \(error.message)")
        }
    }

    /// Edits the record's licence, moves an expired download back to COMPLETED when the
    /// licence is valid again (or along `transition`), commits, and announces `event`.
    @discardableResult
    private func updateLicense(
        _ id: String, event: LicenseEvent.Kind?, message: String = "", edit: (inout Download) -> Void,
        transition next: (DownloadState) -> (DownloadLifecycle.Input, String)? = { _ in nil }
    ) async throws -> LicenseStatus {
        guard var entry = entries[id] else { throw StashError.notFound(id: id) }
        edit(&entry.download)
        entry.download.hasDRM = true
        entries[id] = entry
        let now = clock.now()
        var ticket: CommitTicket
        let restored = (entry.download.license?.check(at: now).isValid ?? false)
            && [.licenseExpired, .drmExpired].contains(entry.download.state)
        if restored, let change = try self.transition(id, .licenseRestored, edit: { $0.stateReason = ""; $0.error = nil }) {
            ticket = change.ticket
        } else if let (input, reason) = next(entry.download.state), let change = try self.transition(id, input, edit: { $0.stateReason = reason }) {
            ticket = change.ticket
        } else {
            ticket = commits.submit(.save(entry.download), event: nil)
        }
        let status = LicenseStatus(entries[id]?.download ?? entry.download, at: now)
        if let event {
            ticket = commits.submit(nil, event: .license(LicenseEvent(id: id, kind: event, message: message, status: status)))
        }
        try await ticket.wait()
        armLicenseTimer()
        return status
    }

    static func invalidLicenseMessage(_ id: String, _ check: LicenseCheck) -> String {
        switch check.verdict {
        case .playbackExpired:
            return "the playback window of the licence of '\(id)' has ended; the content cannot be played again"
        case .refused:
            return "the licence server refused to renew the licence of '\(id)'; `stash license get \(id)` asks for a new one"
        case .licenseExpired:
            let when = check.expiresAt.map { " at " + ISO8601DateFormatter().string(from: $0) } ?? ""
            return "the licence of '\(id)' expired\(when); `stash license renew \(id)` renews it"
        case .none:
            return "download '\(id)' holds no licence; `stash license get \(id)` gets one"
        case .valid:
            return "the licence of '\(id)' is valid"
        }
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
}
