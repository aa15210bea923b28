import Foundation
import Synchronization

/// The final event of one transfer, handed from the fetch thread to one async waiter whether
/// it arrives before or after the waiter does.
final class FetchOutcome: Sendable {
    private struct State {
        var event: FetchEvent?
        var waiter: CheckedContinuation<FetchEvent, Never>?
    }

    private let state = Mutex(State())

    func finish(_ final: FetchEvent) {
        let waiting = state.withLock { state -> CheckedContinuation<FetchEvent, Never>? in
            guard state.event == nil else { return nil }
            state.event = final
            defer { state.waiter = nil }
            return state.waiter
        }
        waiting?.resume(returning: final)
    }

    func wait() async -> FetchEvent {
        await withCheckedContinuation { continuation in
            let arrived = state.withLock { state -> FetchEvent? in
                if state.event == nil { state.waiter = continuation }
                return state.event
            }
            if let arrived { continuation.resume(returning: arrived) }
        }
    }
}
