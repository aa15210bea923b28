import Dispatch
import Foundation
import Synchronization

/// Turns SIGTERM and SIGINT (and stashd's own decision to exit when idle) into an awaitable
/// event. The handlers are in place from `init`, so a signal that arrives before anyone awaits
/// is remembered, not lost.
final class TerminationSignals: Sendable {
    private struct State {
        var received: StopReason?
        var waiter: CheckedContinuation<StopReason, Never>?
    }

    private let state = Mutex(State())
    /// Kept only so the sources live as long as this; set once in `init`, never read.
    nonisolated(unsafe) private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "stashd.signals")

    init(_ signals: Int32...) {
        for number in signals {
            // Dispatch sees the signal only when its default action (exit) is off.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.fire(.signal(number)) }
            source.resume()
            sources.append(source)
        }
    }

    /// Returns the first reason to stop, waiting for one if none has come yet.
    func next() async -> StopReason {
        await withCheckedContinuation { continuation in
            park(continuation)
        }
    }

    private func park(_ continuation: CheckedContinuation<StopReason, Never>) {
        let received = state.withLock { state in
            if state.received == nil { state.waiter = continuation }
            return state.received
        }
        if let received { continuation.resume(returning: received) }
    }

    /// Stops as a signal would; the first reason wins.
    func fire(_ reason: StopReason) {
        let waiter = state.withLock { state -> CheckedContinuation<StopReason, Never>? in
            guard state.received == nil else { return nil }
            state.received = reason
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: reason)
    }
}
