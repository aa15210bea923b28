import Foundation

/// The final event of one transfer, handed from the fetch thread to one async waiter whether
/// it arrives before or after the waiter does.
final class FetchOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var event: FetchEvent?
    private var waiter: CheckedContinuation<FetchEvent, Never>?

    func finish(_ final: FetchEvent) {
        lock.lock()
        guard event == nil else {
            lock.unlock()
            return
        }
        event = final
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume(returning: final)
    }

    func wait() async -> FetchEvent {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let event {
                lock.unlock()
                continuation.resume(returning: event)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
