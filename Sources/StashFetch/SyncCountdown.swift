import StashCore
import Synchronization

/// Waits for several syncs; calls `done` once, after the last, with the first failure if any.
final class SyncCountdown: Sendable {
    private struct State {
        var remaining: Int
        var failure: SystemCallError?
    }

    private let state: Mutex<State>
    private let done: @Sendable (SystemCallError?) -> Void

    init(count: Int, done: @escaping @Sendable (SystemCallError?) -> Void) {
        state = Mutex(State(remaining: count))
        self.done = done
    }

    func finished(_ error: SystemCallError?) {
        let (last, failure) = state.withLock { state in
            if state.failure == nil { state.failure = error }
            state.remaining -= 1
            return (state.remaining == 0, state.failure)
        }
        if last { done(failure) }
    }
}
