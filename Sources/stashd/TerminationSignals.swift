import Dispatch
import Foundation
import Synchronization

/// Turns SIGTERM and SIGINT into an awaitable event. The handlers are in place from `init`,
/// so a signal that arrives before anyone awaits is remembered, not lost.
final class TerminationSignals: Sendable {
    private struct State {
        var received: Int32?
        var waiter: CheckedContinuation<Int32, Never>?
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
            source.setEventHandler { [weak self] in self?.fire(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// Returns the first signal received, waiting for it if none has come yet.
    func next() async -> Int32 {
        await withCheckedContinuation { continuation in
            park(continuation)
        }
    }

    private func park(_ continuation: CheckedContinuation<Int32, Never>) {
        let received = state.withLock { state in
            if state.received == nil { state.waiter = continuation }
            return state.received
        }
        if let received { continuation.resume(returning: received) }
    }

    private func fire(_ number: Int32) {
        let waiter = state.withLock { state -> CheckedContinuation<Int32, Never>? in
            guard state.received == nil else { return nil }
            state.received = number
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: number)
    }
}
