import Foundation
import StashCore

/// What `EngineState` orders the licence manager to do (`EngineEffect.license`), carried out
/// by `LicenseManager.perform`.
enum LicenseOrder {
    /// Wake at `moment` and report `.timer`; nil: no licence moment is ahead, and the timer
    /// armed before sleeps no more.
    case arm(Date?)
    /// Renew the download's licence for `kids` (the timer found it due); the result comes back
    /// as a `LicenseReport`.
    case renew(String, kids: [String], drm: DRMParams)
    /// Keep `release` until its licence server answers, and send it. Its commit is queued in
    /// this order, before whatever is committed next (a cancel's removal must not be durable
    /// without it).
    case keep(LicenseRelease)
}
