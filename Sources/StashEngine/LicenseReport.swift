import Foundation
import StashCore
import StashKeys

/// What the licence manager tells the engine (`EngineInput.license`): the result of an
/// exchange with a licence server, or a moment to look at the licences. `EngineState` decides
/// what each changes (`EngineState+License`); the manager never changes a download itself.
enum LicenseReport: Sendable {
    /// The licence timer fired, or stashd started: licences that ran out expire, the renewals
    /// due start, and the timer is armed for the next moment.
    case timer
    /// A client looks at `id`'s licence: what ran out by now expires first, so the answer is
    /// the truth at this instant even when the timer is a moment behind.
    case checked(String)
    /// A client asked to renew `id`'s licence: the timer does not start a renewal beside it.
    case renewing(String)
    /// A licence server granted keys for the download (acquired or renewed); they are sealed.
    case granted(String, LicenseGrant)
    /// A request of `action` to the download's licence server failed; for a renewal, that
    /// ends it (`automatic`: the timer started it, and it is tried again later).
    case failed(String, LicenseAction, LicenseFailure, automatic: Bool)
    /// A renewal ended without keys for a reason of stashd's own (the keys could not be
    /// sealed, the download went away).
    case renewalEnded(String, automatic: Bool)
    /// The keys of `terms`, the licence the download held, are deleted and the server was
    /// told (`note` says how that went).
    case released(String, LicenseTerms, note: String)
    /// A player got the download's first key at that moment: the playback window opens.
    case playbackStarted(String, at: Date)

    /// The download the report is about; nil for the timer.
    var id: String? {
        switch self {
        case .timer: return nil
        case .checked(let id), .renewing(let id), .granted(let id, _), .failed(let id, _, _, _), .renewalEnded(let id, _),
             .released(let id, _, _), .playbackStarted(let id, _):
            return id
        }
    }
}

/// Keys a licence server granted: for how long, with which playback window, for which key ids.
struct LicenseGrant: Sendable {
    /// `.acquire` (a first licence, or one after a release) or `.renew`.
    var action: LicenseAction
    /// Seconds from now, as the server says; nil: never expires.
    var expiresIn: Int?
    var playbackDuration: TimeInterval?
    /// Base64url key ids the licence covers.
    var kids: [String]
    /// For an acquisition: the key path of the package to the key id it takes.
    var keyIDs: [String: String]

    init(action: LicenseAction, answer: LicenseResponse, kids: [String], keyIDs: [String: String] = [:]) {
        self.action = action
        self.expiresIn = answer.expiresIn
        self.playbackDuration = answer.playbackDuration.map(TimeInterval.init)
        self.kids = kids
        self.keyIDs = keyIDs
    }
}
