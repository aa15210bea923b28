import Foundation
import StashCore
import Synchronization

/// A `WallClock` that moves only when a test says so: `advance(by:)` sets the time forward and
/// wakes every sleeper whose time has come, so a timer of minutes is tested in milliseconds.
final class ManualClock: Sendable {
    private struct Sleeper {
        let deadline: Date
        let wake: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Date
        var timeZone = TimeZone(identifier: "UTC")!
        var sleepers: [Sleeper] = []
    }

    private let state: Mutex<State>

    init(start: Date = Date()) {
        state = Mutex(State(now: start))
    }

    var clock: WallClock {
        WallClock(now: { [self] in now }, timeZone: { [self] in timeZone }, sleep: { [self] seconds in await sleep(seconds) })
    }

    var now: Date { state.withLock { $0.now } }

    /// The zone the engine reads local time in (UTC unless a test sets one).
    var timeZone: TimeZone {
        get { state.withLock { $0.timeZone } }
        set { state.withLock { $0.timeZone = newValue } }
    }

    /// Sets the time (forward only, as `advance`), waking the sleepers whose time has come.
    func set(_ date: Date) {
        advance(by: date.timeIntervalSince(now))
    }

    /// Sleepers waiting for a later time: lets a test wait until a timer is armed.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Whether something sleeps until `seconds` from now: lets a test wait for one timer.
    func hasSleeper(wakingIn seconds: TimeInterval) -> Bool {
        state.withLock { state in state.sleepers.contains { $0.deadline == state.now.addingTimeInterval(seconds) } }
    }

    func advance(by seconds: TimeInterval) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.addingTimeInterval(seconds)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.wake.resume() }
    }

    private func sleep(_ seconds: TimeInterval) async {
        await withCheckedContinuation { (wake: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                let deadline = state.now.addingTimeInterval(Swift.max(0, seconds))
                if deadline <= state.now { return true }
                state.sleepers.append(Sleeper(deadline: deadline, wake: wake))
                return false
            }
            if now { wake.resume() }
        }
    }
}
