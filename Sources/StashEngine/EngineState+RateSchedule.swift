import Foundation
import StashCore

/// The rate schedule (`config set rate-schedule`): the global limit in force is decided here,
/// at each config change and when the timer for its next change fires; the fetch service only
/// hears the limit. No polling: one timer, armed for the schedule's next change.
extension EngineState {
    /// Parses the config's schedule, sets the limit in force now and arms the timer.
    mutating func followRateSchedule(into effects: inout [EngineEffect]) {
        // The config checked it when it was set; a stored one that no longer parses holds nothing.
        rateTimer.schedule = (try? RateSchedule(parsing: config.rateSchedule)) ?? RateSchedule()
        applyRateSchedule(into: &effects)
    }

    /// At start: the limit in force and the timer, as effects for the engine to carry out.
    mutating func startRateSchedule() -> [EngineEffect] {
        var effects: [EngineEffect] = []
        followRateSchedule(into: &effects)
        return effects
    }

    /// The timer armed with `generation` fired.
    mutating func rateChangeDue(generation: UInt64, into effects: inout [EngineEffect]) {
        guard generation == rateTimer.generation, !shuttingDown else { return }
        applyRateSchedule(into: &effects)
    }

    private mutating func applyRateSchedule(into effects: inout [EngineEffect]) {
        let now = clock.now()
        let zone = clock.timeZone()
        let limit = rateTimer.schedule.limit(at: now, in: zone, otherwise: config.rateLimit)
        rateTimer.next = rateTimer.schedule.nextChange(after: now, in: zone, otherwise: config.rateLimit)
        rateTimer.generation += 1
        if limit != rateTimer.inForce {
            log(.info, "global rate limit changes", ["limit": "\(limit)", "schedule": "\(config.rateSchedule)"], into: &effects)
        }
        rateTimer.inForce = limit
        effects.append(.setRateLimit(limit))
        effects.append(.forgetStorageInfo)
        if let next = rateTimer.next {
            effects.append(.arm(after: max(0, next.at.timeIntervalSince(now)), .rateChangeDue(generation: rateTimer.generation)))
        }
    }
}
