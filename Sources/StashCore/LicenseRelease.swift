import Foundation

/// A licence release the server has not acknowledged yet. The keys are deleted when the
/// release is asked for; this entry stays in the registry's outbox, across restarts, until
/// the licence server answers 2xx, so the server's count of licences in use comes right.
package struct LicenseRelease: Equatable, Sendable, Codable {
    /// Unique per release, so one download released twice keeps two entries.
    package var id: String
    package var downloadID: String
    package var drm: DRMParams
    /// Base64url key ids the released licence covered.
    package var kids: [String]
    package var requestedAt: Date
    /// Sends so far that did not reach an acknowledgement.
    package var attempts: Int

    package init(id: String = UUID().uuidString, downloadID: String, drm: DRMParams, kids: [String],
                requestedAt: Date, attempts: Int = 0) {
        self.id = id
        self.downloadID = downloadID
        self.drm = drm
        self.kids = kids
        self.requestedAt = requestedAt
        self.attempts = attempts
    }
}
