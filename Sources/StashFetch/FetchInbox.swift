import Foundation
import StashCore
import Synchronization

/// The only state shared between callers and the fetch thread, behind one lock. The thread
/// is woken through `wake`, which calls curl_multi_wakeup while the multi handle is alive.
final class FetchInbox: Sendable {
    private struct State {
        var commands = PendingBatch<FetchCommand>()
        var nextID: UInt64 = 1
        var unfinished = 0
        var rateLimit: Int64 = 0
        var rateLimitChanged = false
        /// Set when the thread has torn down the multi handle; nothing is queued after that.
        var closed = false
        var wake: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func attach(wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = wake }
    }

    /// Queues a command; false when the thread is gone. The thread is woken only when it has
    /// found the inbox empty since it last took commands (`take`): until then it takes again
    /// before it sleeps.
    func post(_ command: FetchCommand) -> Bool {
        // The wake-up is a system call (curl_multi_wakeup writes to a pipe): made after the
        // lock, which the sync threads posting their results and the fetch thread all take.
        let (posted, wake) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard !state.closed else { return (false, nil) }
            return (true, state.commands.add(command) ? state.wake : nil)
        }
        wake?()
        return posted
    }

    func makeID() -> TransferID {
        state.withLock { state in
            defer { state.nextID += 1 }
            state.unfinished += 1
            return TransferID(rawValue: state.nextID)
        }
    }

    func transferFinished() {
        state.withLock { $0.unfinished -= 1 }
    }

    var unfinishedCount: Int { state.withLock { $0.unfinished } }

    func setRateLimit(_ value: Int64) {
        let wake = state.withLock { state in
            state.rateLimit = max(0, value)
            state.rateLimitChanged = true
            return state.wake
        }
        wake?()
    }

    /// Everything queued since the last call, and the rate limit if it changed. The thread
    /// calls it until it returns no commands before it sleeps, which re-arms the wake-up.
    func take() -> (commands: [FetchCommand], rateLimit: Int64?) {
        state.withLock { state in
            defer { state.rateLimitChanged = false }
            return (state.commands.take(), state.rateLimitChanged ? state.rateLimit : nil)
        }
    }

    /// Marks the inbox closed and returns what was still queued, so the thread can answer it.
    func close() -> [FetchCommand] {
        state.withLock { state in
            state.closed = true
            state.wake = nil
            return state.commands.removeAll()
        }
    }
}
