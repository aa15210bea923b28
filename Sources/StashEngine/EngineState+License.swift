import Foundation
import StashCore
import StashKeys

/// Licences: what each `LicenseReport` of the licence manager changes. A completed download
/// whose licence runs out is LICENSE_EXPIRED, or DRM_EXPIRED when its playback window ended or
/// its server refused a renewal; a licence granted again makes it COMPLETED. The timer
/// (`LicenseSchedule`) is armed here, and renewals are ordered here; the manager carries both out.
extension EngineState {
    mutating func on(license report: LicenseReport, into effects: inout [EngineEffect]) throws {
        let now = clock.now()
        switch report {
        case .timer:
            licenseSchedule.armedAt = nil
            expireLicenses(at: now, into: &effects)
            startRenewals(at: now, into: &effects)
        case .checked(let id):
            guard entries[id] != nil else { throw StashError.notFound(id: id) }
            expireLicenses(at: now, into: &effects)
        case .renewing(let id):
            guard entries[id] != nil else { throw StashError.notFound(id: id) }
            licenseSchedule.started(id)
        case .granted(let id, let grant):
            if grant.action == .renew {
                licenseSchedule.ended(id)
                licenseSchedule.retry(id, at: nil)
            }
            try updateLicense(id, event: grant.action == .renew ? .renewed : .downloaded, into: &effects) { record in
                if grant.action == .renew, let terms = record.license {
                    record.license = terms.renewed(at: now, expiresIn: grant.expiresIn, playbackDuration: grant.playbackDuration)
                } else {
                    if grant.action == .acquire { record.licenseKeyIDs = grant.keyIDs }
                    record.license = LicenseTerms(acquiredAt: now, expiresIn: grant.expiresIn, playbackDuration: grant.playbackDuration, kids: grant.kids)
                }
            }
        case .failed(let id, let action, let failure, let automatic):
            log(.warning, "licence request failed", [
                "id": "\(id)", "action": "\(action.rawValue)", "error": "\(failure.message.withoutURLSecrets)"], into: &effects)
            effects.append(.commit(nil, then: .license(LicenseEvent(id: id, kind: .error, message: failure.message))))
            guard action == .renew else { break }
            if case .refused = failure { try refuseRenewal(id, failure, at: now, into: &effects) }
            endRenewal(id, automatic: automatic, at: now)
        case .renewalEnded(let id, let automatic):
            endRenewal(id, automatic: automatic, at: now)
        case .released(let id, let terms, let note):
            // Another release of the same licence may have been recorded meanwhile.
            guard entries[id]?.download.license == terms else { break }
            try updateLicense(id, event: .released, message: "keys deleted; " + note, into: &effects) { $0.license = nil } next: { state in
                state == .completed ? (.licenseExpired, "the licence was released; `stash license get \(id)` gets a new one") : nil
            }
        case .playbackStarted(let id, let moment):
            try updateLicense(id, event: nil, into: &effects) { $0.license?.startPlayback(at: moment) }
        }
        armLicenseTimer(into: &effects)
    }

    /// A licence the download holds is given back when it is cancelled: the release goes
    /// through the outbox, its commit before the cancel's, so no crash leaves the record gone
    /// and the release unrecorded, and a server that cannot be reached now is told later.
    func releaseOnCancel(_ id: String, into effects: inout [EngineEffect]) {
        guard let download = entries[id]?.download, download.state != .removing, let terms = download.license,
              let drm = download.drm else { return }
        log(.info, "licence release queued by the cancel", ["id": "\(id)"], into: &effects)
        effects.append(.license(.keep(LicenseRelease(downloadID: id, drm: drm, kids: terms.kids, requestedAt: clock.now()))))
    }

    /// Arms the licence timer for the next licence moment of any download, unless it is
    /// armed for that moment already.
    mutating func armLicenseTimer(into effects: inout [EngineEffect]) {
        var next: Date?
        for id in entries.licensed {
            guard let download = entries[id]?.download, let moment = licenseSchedule.nextMoment(download) else { continue }
            next = min(next ?? moment, moment)
        }
        guard next != licenseSchedule.armedAt else { return }
        licenseSchedule.armedAt = next
        effects.append(.license(.arm(next)))
    }

    /// The downloads holding licence terms, oldest first, so what happens to several at one
    /// moment happens (and is reported) in the list's order.
    func licensedInOrder() -> [String] {
        // Each entry is looked up once, not twice per comparison.
        entries.licensed.compactMap { id in entries[id].map { (seq: $0.seq, id: id) } }
            .sorted { $0.seq < $1.seq }
            .map(\.id)
    }

    /// Why licences keep stashd from exiting before `horizon`, or nil.
    func licenseWork(before horizon: Date, sendingReleases: Bool) -> String? {
        if !licenseSchedule.renewing.isEmpty { return "\(licenseSchedule.renewing.count) licence renewal(s) under way" }
        if sendingReleases { return "licence releases waiting to be sent" }
        for id in entries.licensed {
            guard let download = entries[id]?.download, let moment = licenseSchedule.renewalMoment(download) else { continue }
            if moment <= horizon { return "licence renewal of '\(id)' due" }
        }
        return nil
    }

    /// LICENSE_EXPIRED and DRM_EXPIRED for completed downloads whose time is up.
    private mutating func expireLicenses(at now: Date, into effects: inout [EngineEffect]) {
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
            let reason = check.reason(for: id)
            guard (try? transition(id, input, into: &effects, edit: { $0.stateReason = reason })) == true else { continue }
            log(.info, "licence ran out", ["id": "\(id)", "verdict": "\(check.verdict.rawValue)"], into: &effects)
            effects.append(.commit(nil, then: .license(LicenseEvent(
                id: id, kind: .expired, message: reason, status: entries[id].map { LicenseStatus($0.download, at: now) }))))
        }
    }

    /// Orders the renewals that are due and whose server can be reached.
    private mutating func startRenewals(at now: Date, into effects: inout [EngineEffect]) {
        for id in licensedInOrder() {
            guard let download = entries[id]?.download, let terms = download.license, let drm = download.drm,
                  let moment = licenseSchedule.renewalMoment(download), moment <= now else { continue }
            guard !terms.kids.isEmpty, network.isOnline(host: URLComponents(string: drm.licenseServer)?.host ?? "") else {
                licenseSchedule.retry(id, at: now.addingTimeInterval(LicenseSchedule.offlineRecheck))
                continue
            }
            licenseSchedule.started(id)
            effects.append(.license(.renew(id, kids: terms.kids, drm: drm)))
        }
    }

    /// The server refused to renew: a download that can be played is DRM_EXPIRED; any other
    /// keeps the refusal in its terms, so one that completes later (a repair, say) does not
    /// come back playable.
    private mutating func refuseRenewal(_ id: String, _ failure: LicenseFailure, at now: Date, into effects: inout [EngineEffect]) throws {
        guard let state = entries[id]?.download.state else { return }
        if state == .completed || state == .licenseExpired {
            // A refusal of the app's credentials is undone by new ones (`renewAfterRefusal`).
            let credentials = [401, 403].contains(failure.downloadError.httpStatus)
                ? "; if its token expired, give a new one: stash set \(id) --license-header 'Name: value'" : ""
            try transition(id, .drmExpired, into: &effects) {
                $0.stateReason = "the licence server refused to renew the licence; the content cannot be played" + credentials
                $0.error = failure.downloadError
                $0.license?.refusedAt = now
            }
        } else {
            try updateLicense(id, event: nil, into: &effects) { $0.license?.refusedAt = now }
        }
    }

    /// The licence headers changed: a renewal the server refused (an expired token's 401) is
    /// asked for again at once with them. Granted, the download is COMPLETED again; refused,
    /// it stays DRM_EXPIRED. A licence never refused waits for its time as before.
    mutating func renewAfterRefusal(_ id: String, into effects: inout [EngineEffect]) {
        guard let download = entries[id]?.download, let terms = download.license, terms.refusedAt != nil, !terms.kids.isEmpty,
              let drm = download.drm, !licenseSchedule.renewing.contains(id) else { return }
        log(.info, "licence renewal asked again with new licence headers", ["id": "\(id)"], into: &effects)
        licenseSchedule.started(id)
        effects.append(.license(.renew(id, kids: terms.kids, drm: drm)))
    }

    /// Whatever ended a renewal, one the timer started does not start again at once.
    private mutating func endRenewal(_ id: String, automatic: Bool, at now: Date) {
        licenseSchedule.ended(id)
        if automatic { licenseSchedule.retry(id, at: now.addingTimeInterval(LicenseSchedule.retryInterval)) }
    }

    /// Edits the download's licence, moves an expired download back to COMPLETED when the
    /// licence is valid again (or along `next`), commits, and announces `event`.
    private mutating func updateLicense(
        _ id: String, event: LicenseEvent.Kind?, message: String = "", into effects: inout [EngineEffect], edit: (inout Download) -> Void,
        next: (DownloadState) -> (DownloadLifecycle.Input, String)? = { _ in nil }
    ) throws {
        guard var entry = entries[id] else { throw StashError.notFound(id: id) }
        edit(&entry.download)
        entry.download.hasDRM = true
        entries[id] = entry
        let now = clock.now()
        let restored = (entry.download.license?.check(at: now).isValid ?? false)
            && (entry.download.state == .licenseExpired || entry.download.state == .drmExpired)
        var changed = false
        if restored {
            changed = try transition(id, .licenseRestored, into: &effects) { record in
                record.stateReason = ""
                record.error = nil
            }
        }
        if !changed, let (input, reason) = next(entry.download.state) {
            changed = try transition(id, input, into: &effects) { $0.stateReason = reason }
        }
        if !changed { effects.append(.commit(.save(entry.download), then: nil)) }
        if let event {
            effects.append(.commit(nil, then: .license(LicenseEvent(
                id: id, kind: event, message: message, status: entries[id].map { LicenseStatus($0.download, at: now) }))))
        }
    }
}
