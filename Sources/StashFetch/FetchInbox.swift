import Foundation

/// The only state shared between callers and the fetch thread, behind one lock. The thread
/// is woken through `wake`, which calls curl_multi_wakeup while the multi handle is alive.
final class FetchInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var commands: [FetchCommand] = []
    private var nextID: UInt64 = 1
    private var unfinished = 0
    private var rateLimit: Int64 = 0
    private var rateLimitChanged = false
    /// Set when the thread has torn down the multi handle; nothing is queued after that.
    private var closed = false
    private var wake: (() -> Void)?

    func attach(wake: @escaping () -> Void) {
        lock.withLock { self.wake = wake }
    }

    /// Queues a command; false when the thread is gone. Only the first command since the
    /// thread last took them wakes it: the others are taken by that same wake-up.
    func post(_ command: FetchCommand) -> Bool {
        lock.withLock {
            guard !closed else { return false }
            commands.append(command)
            if commands.count == 1 { wake?() }
            return true
        }
    }

    func makeID() -> TransferID {
        lock.withLock {
            defer { nextID += 1 }
            unfinished += 1
            return TransferID(rawValue: nextID)
        }
    }

    func transferFinished() {
        lock.withLock { unfinished -= 1 }
    }

    var unfinishedCount: Int { lock.withLock { unfinished } }

    func setRateLimit(_ value: Int64) {
        lock.withLock {
            rateLimit = max(0, value)
            rateLimitChanged = true
            wake?()
        }
    }

    /// Everything queued since the last call, and the rate limit if it changed.
    func take() -> (commands: [FetchCommand], rateLimit: Int64?) {
        lock.withLock {
            defer {
                commands.removeAll(keepingCapacity: true)
                rateLimitChanged = false
            }
            return (commands, rateLimitChanged ? rateLimit : nil)
        }
    }

    /// Marks the inbox closed and returns what was still queued, so the thread can answer it.
    func close() -> [FetchCommand] {
        lock.withLock {
            closed = true
            wake = nil
            defer { commands.removeAll() }
            return commands
        }
    }
}
