import Synchronization

/// How many downloads hold a download slot (PREPARING, DOWNLOADING and the other active
/// states), told to an observer each time it changes: the daemon holds a sleep inhibitor
/// while it is above 0 (StashDesktop's `SleepInhibitor`).
package final class ActivityWatch: Sendable {
    private struct State {
        var count = 0
        var observer: (@Sendable (Int) -> Void)?
    }

    private let state = Mutex(State())

    /// `observer` gets the count now, then each change, in order.
    package func observe(_ observer: @escaping @Sendable (Int) -> Void) {
        let count = state.withLock { state in
            state.observer = observer
            return state.count
        }
        observer(count)
    }

    package var count: Int { state.withLock { $0.count } }

    /// Called by the engine's actor, so the changes come in order.
    func report(_ count: Int) {
        let observer = state.withLock { state -> (@Sendable (Int) -> Void)? in
            guard state.count != count else { return nil }
            state.count = count
            return state.observer
        }
        observer?(count)
    }
}
