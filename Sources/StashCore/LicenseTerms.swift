import Foundation

/// What a licence server granted for one download: when, for how long, for which keys, and
/// the playback window that opens when the content is first played. Every question takes
/// the time to answer it at, so the rules are unit-testable without a clock.
public struct LicenseTerms: Codable, Equatable, Sendable {
    public var acquiredAt: Date
    /// nil: the licence never expires.
    public var expiresAt: Date?
    /// How long the content may be played once playback starts; nil: no playback window.
    public var playbackDuration: TimeInterval?
    /// When a player first got a key; nil while the content was never played.
    public var firstPlaybackAt: Date?
    /// Base64url key ids the licence covers.
    public var kids: [String]
    /// When the licence server refused to renew these terms. From then on they are void,
    /// whatever their dates say; only a new licence replaces them. nil: never refused.
    public var refusedAt: Date?

    /// Renewal starts at this fraction of a licence's life, leaving the rest for retries.
    static let renewalPoint = 0.8

    /// - Parameter expiresIn: seconds from `acquiredAt`, as the server says; nil: never expires.
    public init(acquiredAt: Date, expiresIn: Int?, playbackDuration: TimeInterval?, kids: [String]) {
        self.acquiredAt = acquiredAt
        self.expiresAt = expiresIn.map { acquiredAt.addingTimeInterval(TimeInterval($0)) }
        self.playbackDuration = playbackDuration
        self.firstPlaybackAt = nil
        self.kids = kids
        self.refusedAt = nil
    }

    /// When the playback window ends; nil while it has not started, or when there is none.
    public var playbackEndsAt: Date? {
        guard let firstPlaybackAt, let playbackDuration else { return nil }
        return firstPlaybackAt.addingTimeInterval(playbackDuration)
    }

    /// When to ask for a renewal: 80 % into the licence's life. nil: it never expires.
    package var renewalDue: Date? {
        guard let expiresAt else { return nil }
        return acquiredAt.addingTimeInterval(Self.renewalPoint * expiresAt.timeIntervalSince(acquiredAt))
    }

    /// Whether the keys may be used at `now`. An ended playback window wins over a refusal and
    /// both over an expired licence, since they are final: a renewal does not undo them.
    package func check(at now: Date) -> LicenseCheck {
        let licenseLeft = expiresAt.map { Self.wholeSeconds($0.timeIntervalSince(now)) }
        var playbackLeft: Int64?
        if let playbackDuration {
            playbackLeft = Self.wholeSeconds(playbackEndsAt?.timeIntervalSince(now) ?? playbackDuration)
        }
        let verdict: LicenseCheck.Verdict
        if let end = playbackEndsAt, now >= end {
            verdict = .playbackExpired
        } else if refusedAt != nil {
            verdict = .refused
        } else if let expiresAt, now >= expiresAt {
            verdict = .licenseExpired
        } else {
            verdict = .valid
        }
        return LicenseCheck(
            verdict: verdict, licenseSecondsLeft: licenseLeft, playbackSecondsLeft: playbackLeft, expiresAt: expiresAt)
    }

    /// Opens the playback window at `now`, the first time a player gets a key. Later calls
    /// change nothing: the window runs from the first playback.
    package mutating func startPlayback(at now: Date) {
        if firstPlaybackAt == nil { firstPlaybackAt = now }
    }

    /// The terms after the server renewed the licence at `now`: its answer replaces the
    /// expiry and the playback duration. The playback window keeps its start: a renewal
    /// extends how long the licence is held, not a window already running, which would
    /// otherwise let every renewal restart, say, a 48-hour rental.
    package func renewed(at now: Date, expiresIn: Int?, playbackDuration: TimeInterval?) -> LicenseTerms {
        var terms = LicenseTerms(acquiredAt: now, expiresIn: expiresIn, playbackDuration: playbackDuration, kids: kids)
        terms.firstPlaybackAt = firstPlaybackAt
        return terms
    }

    /// Floored and never negative. Clamped rather than converted blindly, because `Int64(_:)`
    /// traps on a value out of range, and terms decoded from disk can hold any date.
    static func wholeSeconds(_ interval: TimeInterval) -> Int64 {
        let floored = interval.rounded(.down)
        guard floored > 0 else { return 0 }
        return floored < TimeInterval(Int64.max) ? Int64(floored) : .max
    }
}
