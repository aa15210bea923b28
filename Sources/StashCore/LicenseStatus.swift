import Foundation

/// What the licence operations answer about one download's licence: the verdict at the time
/// of asking and the terms it was computed from.
public struct LicenseStatus: Equatable, Sendable {
    public var id: String
    public var check: LicenseCheck
    /// nil: no licence held.
    public var terms: LicenseTerms?
    /// The download's state after the operation.
    public var state: DownloadState

    public init(id: String, check: LicenseCheck, terms: LicenseTerms?, state: DownloadState) {
        self.id = id
        self.check = check
        self.terms = terms
        self.state = state
    }

    /// The status of `download`'s licence at `now`.
    package init(_ download: Download, at now: Date) {
        self.init(
            id: download.id,
            check: download.license?.check(at: now)
                ?? LicenseCheck(verdict: .none, licenseSecondsLeft: nil, playbackSecondsLeft: nil, expiresAt: nil),
            terms: download.license, state: download.state)
    }

    public var isValid: Bool { check.isValid }
}
