import Foundation
import StashCore

/// SetDownload's headers: those the download's own requests carry, and those of its licence
/// requests. Both are kept in the record (the licence's with its DRM parameters).
extension EngineState {
    /// New headers go with the transfers started from now on. A running download's transfers
    /// stop and it takes its slot again at once (each file keeps its bytes, resumed with
    /// If-Range), so no transfer goes on with the old ones.
    mutating func setHeaders(_ id: String, _ change: HeaderChange, into effects: inout [EngineEffect]) throws {
        guard let headers = try checkHeaders(id, change), var entry = entries[id] else { return }
        entry.download.headers = headers
        entries[id] = entry
        effects.append(.commit(.save(entry.download), then: .settingsChanged(entry.download, changed: ["headers"])))
        guard entry.download.state.isActive else { return }
        try transition(id, .requeue, into: &effects) { $0.stateReason = "restarting with its new headers" }
        schedule(into: &effects)
    }

    /// New headers for the licence requests: the next acquire, renewal and release carry them.
    /// A licence whose renewal was refused for its credentials (401, 403) is asked for again
    /// at once with them, so a renewed token brings a DRM_EXPIRED download back.
    mutating func setLicenseHeaders(_ id: String, _ change: HeaderChange, into effects: inout [EngineEffect]) throws {
        guard let drm = try checkLicenseHeaders(id, change), var entry = entries[id] else { return }
        entry.download.drm = drm
        entries[id] = entry
        effects.append(.commit(.save(entry.download), then: .settingsChanged(entry.download, changed: ["license_headers"])))
        renewAfterRefusal(id, into: &effects)
    }

    /// Refuses headers `id` cannot take; its headers after `change`, or nil when they are its own.
    func checkHeaders(_ id: String, _ change: HeaderChange) throws -> [HTTPHeader]? {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        let headers = change.applied(to: download.headers)
        try change.validate(field: "headers", result: headers, limit: DownloadRequestRules.maxHeaders)
        guard headers != download.headers else { return nil }
        try refuseChange(download, of: "headers")
        return headers
    }

    /// Refuses licence headers `id` cannot take; its DRM parameters after `change`, or nil
    /// when they are unchanged.
    func checkLicenseHeaders(_ id: String, _ change: HeaderChange) throws -> DRMParams? {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard var drm = download.drm else {
            throw StashError.invalidArgument("license_headers: '\(id)' has no licence server (it was added without DRM parameters); give its own headers instead")
        }
        let headers = change.applied(to: drm.headers)
        try change.validate(field: "license_headers", result: headers, limit: DRMRules.maxHeaders)
        guard headers != drm.headers else { return nil }
        try refuseChange(download, of: "licence headers")
        drm.headers = headers
        return drm
    }

    private func refuseChange(_ download: Download, of what: String) throws {
        guard download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(download.id)' is REMOVING; its \(what) cannot change")
        }
        guard replacements[download.id] == nil else {
            throw StashError(.failedPrecondition, "download '\(download.id)' is being replaced; change its \(what) once the replace ends")
        }
    }
}
