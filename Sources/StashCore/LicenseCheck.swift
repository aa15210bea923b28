import Foundation

/// The answer to "may this licence's keys be used now?", with the time left on each clock.
public struct LicenseCheck: Equatable, Sendable {
    public enum Verdict: String, Sendable {
        case valid
        /// The licence ran out; a renewal can make it valid again.
        case licenseExpired
        /// The playback window ended; the content cannot be played again, even after a renewal.
        case playbackExpired
        /// The licence server refused to renew the licence: whatever its dates say, it is void
        /// until a new licence is got.
        case refused
        /// No licence is held.
        case none
    }

    public var verdict: Verdict
    /// Whole seconds until the licence expires, 0 once it has; nil: it never expires.
    public var licenseSecondsLeft: Int64?
    /// Whole seconds until the playback window ends, 0 once it has, the full duration while
    /// it has not started; nil: the licence has no playback window.
    public var playbackSecondsLeft: Int64?
    /// When the licence expires; nil: never, or no licence.
    public var expiresAt: Date?

    public init(verdict: Verdict, licenseSecondsLeft: Int64?, playbackSecondsLeft: Int64?, expiresAt: Date?) {
        self.verdict = verdict
        self.licenseSecondsLeft = licenseSecondsLeft
        self.playbackSecondsLeft = playbackSecondsLeft
        self.expiresAt = expiresAt
    }

    public var isValid: Bool { verdict == .valid }
}
