import Dispatch
import Foundation

/// Turns SIGTERM and SIGINT into an awaitable event. The handlers are in place from `init`,
/// so a signal that arrives before anyone awaits is remembered, not lost.
final class TerminationSignals: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var waiter: CheckedContinuation<Int32, Never>?
    private var sources: [DispatchSourceSignal] = []
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
        lock.lock()
        if let received {
            lock.unlock()
            continuation.resume(returning: received)
            return
        }
        waiter = continuation
        lock.unlock()
    }

    private func fire(_ number: Int32) {
        lock.lock()
        guard received == nil else {
            lock.unlock()
            return
        }
        received = number
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(returning: number)
    }
}
