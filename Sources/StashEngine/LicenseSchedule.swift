import Foundation
import StashCore

/// When the licences need looking at, and which renewals are under way: the part of
/// `EngineState` that decides the licence timer. One timer serves every licence; it wakes at
/// the next expiry, end of a playback window or renewal, whichever comes first. A renewal
/// starts at 80 % of a licence's life (`LicenseTerms.renewalDue`), leaving the rest for retries.
struct LicenseSchedule {
    /// A renewal the timer started that failed is tried again this much later.
    static let retryInterval: TimeInterval = 15
    /// A renewal due while its licence server's host cannot be reached is looked at again
    /// this often (every 10 ms, the timer's floor, was a busy loop for as long as the machine
    /// was offline).
    static let offlineRecheck: TimeInterval = 1
    /// The timer sleeps at least this long: a moment already past is taken at once, not in a loop.
    static let minimumDelay: TimeInterval = 0.01

    /// Downloads whose licence is being renewed: the timer does not start another.
    private(set) var renewing: Set<String> = []
    /// When a renewal that failed, or found the network down, may be tried again.
    private(set) var retryAt: [String: Date] = [:]
    /// The moment the timer is armed for; nil: not armed.
    var armedAt: Date?

    mutating func started(_ id: String) {
        renewing.insert(id)
    }

    /// The renewal of `id` ended, with keys or without.
    mutating func ended(_ id: String) {
        renewing.remove(id)
    }

    /// The next renewal of `id` waits until `moment`; nil: it is due when its terms say.
    mutating func retry(_ id: String, at moment: Date?) {
        retryAt[id] = moment
    }

    /// When `download`'s licence is next to be renewed; nil when it is not (no expiry, a
    /// refusal, DRM_EXPIRED, or a renewal under way).
    func renewalMoment(_ download: Download) -> Date? {
        guard let terms = download.license, let due = terms.renewalDue, download.state != .drmExpired, terms.refusedAt == nil,
              !renewing.contains(download.id) else { return nil }
        return max(due, retryAt[download.id] ?? .distantPast)
    }

    /// The next moment the timer must wake for `download`: its licence's expiry or refusal
    /// while COMPLETED, the end of its playback window while it can still be played, or its
    /// renewal.
    func nextMoment(_ download: Download) -> Date? {
        guard let terms = download.license else { return nil }
        var moments = [renewalMoment(download)]
        // A refusal of a completed download's terms is due at once: it completed since.
        if download.state == .completed { moments.append(terms.refusedAt ?? terms.expiresAt) }
        if download.state == .completed || download.state == .licenseExpired { moments.append(terms.playbackEndsAt) }
        return moments.compactMap { $0 }.min()
    }
}
