import Foundation

/// The wall-clock time the engine reads and waits on: licence terms and renewals, the storage
/// recheck, progress pacing. Injected, so tests move time forward instead of sleeping
/// (StashTestSupport's `ManualClock`).
package struct WallClock: Sendable {
    package let now: @Sendable () -> Date
    /// Waits `seconds` (returning early if the task is cancelled).
    package let sleep: @Sendable (_ seconds: TimeInterval) async -> Void
    /// The local time zone the rate schedule is read in: the system's (TZ, /etc/localtime)
    /// unless a test gives its own.
    package let timeZone: @Sendable () -> TimeZone

    package init(
        now: @escaping @Sendable () -> Date, timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current },
        sleep: @escaping @Sendable (_ seconds: TimeInterval) async -> Void
    ) {
        self.now = now
        self.timeZone = timeZone
        self.sleep = sleep
    }

    /// The longest single wait: far beyond any licence term, and far from overflowing
    /// nanoseconds in a UInt64.
    static let maxSleepSeconds: TimeInterval = 100 * 365 * 86_400

    package static let system = WallClock(now: { Date() }) { seconds in
        let bounded = Swift.min(Swift.max(0, seconds), maxSleepSeconds)
        try? await Task.sleep(nanoseconds: UInt64(bounded * 1_000_000_000))
    }
}
