import Foundation
import StashCore

/// The global rate limit as the engine follows its schedule: the limit in force, the next
/// change, and the timer armed for it. Each arming has a new generation, so a timer armed
/// before a config change is ignored when it fires.
struct RateTimer {
    var schedule = RateSchedule()
    var inForce: Int64 = 0
    var next: (at: Date, limit: Int64)?
    var generation: UInt64 = 0
}
