import Foundation
import StashCore

/// Licences (PROTOCOL.md, "Licence exchange") are `LicenseManager`'s: a client's licence
/// requests go to it, and what it learns comes back as a `LicenseReport`, which `EngineState`
/// decides upon like any other input.
extension Engine: LicenseHost {
    /// Gets a licence for the download's keys (`LicenseManager.acquire`).
    package func downloadLicense(id: String) async throws -> LicenseStatus {
        try await licenses.acquire(id, config: config)
    }

    /// The licence's status now.
    package func checkLicense(id: String) async throws -> LicenseStatus {
        try await licenses.check(id)
    }

    /// Extends the licence; a refusal is final (DRM_EXPIRED).
    package func renewLicense(id: String) async throws -> LicenseStatus {
        try await licenses.renew(id, config: config)
    }

    /// Tells the server and deletes the keys; an unacknowledged release waits in the outbox.
    package func releaseLicense(id: String) async throws -> LicenseStatus {
        try await licenses.release(id, config: config)
    }

    /// Releases every licence held, in list order; returns how many.
    package func releaseAllLicenses() async throws -> Int {
        try await licenses.releaseAll(state.licensedInOrder(), config: config)
    }

    /// A content key while the licence is valid; the first starts the playback window.
    package func playbackKey(id: String, keyID: String) async throws -> PlaybackKey {
        try await licenses.playbackKey(id, keyID: keyID)
    }

    func licenseRecord(_ id: String) throws -> Download {
        guard let download = state.entries[id]?.download else { throw StashError.notFound(id: id) }
        return download
    }

    func report(_ report: LicenseReport) async throws -> Download? {
        let ticket = perform(try state.on(.license(report)))
        let record = report.id.flatMap { state.entries[$0]?.download }
        try await ticket?.wait()
        return record
    }
}
