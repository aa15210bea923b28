import Foundation
import StashCore
import Synchronization

/// Fetch events on their way from the fetch thread to the engine. The engine takes every
/// event waiting at once, so a busy moment costs one hop onto the actor for many events
/// instead of one hop (and a thread wake-up) for each; and while the fetch thread is in a
/// pass of its loop (`hold` to `release`), the drain its first event would start waits for
/// the pass to end, so the events of a pass go together.
final class NoticeInbox: Sendable {
    private struct State {
        var pending = PendingBatch<FetchNotice>()
        var closed = false
        var drain: (@Sendable () -> Void)?
        var holding = false
        /// A drain was claimed while holding: `release` starts it.
        var drainDue = false
    }

    private let state = Mutex(State())

    /// `drain` is called when a notice arrives and no drain is under way; it must take the
    /// notices until `take()` returns none.
    func attach(_ drain: @escaping @Sendable () -> Void) {
        let start = state.withLock { state in
            state.drain = drain
            // Notices posted before a drain existed claimed one that nobody ran: run it now.
            return state.pending.claim() || !state.pending.isEmpty
        }
        if start { drain() }
    }

    func post(_ notice: FetchNotice) {
        let drain = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.closed, state.pending.add(notice) else { return nil }
            if state.holding {
                state.drainDue = true
                return nil
            }
            return state.drain
        }
        drain?()
    }

    /// The fetch thread began a pass: a drain its events claim waits for `release`.
    func hold() {
        state.withLock { $0.holding = true }
    }

    /// The pass ended: the drain claimed in it, if any, starts.
    func release() {
        let drain = state.withLock { state -> (@Sendable () -> Void)? in
            state.holding = false
            guard state.drainDue, !state.closed else { return nil }
            state.drainDue = false
            return state.drain
        }
        drain?()
    }

    /// The notices in the order they came; once it returns none, the next post starts a drain.
    func take() -> [FetchNotice] {
        state.withLock { $0.pending.take() }
    }

    /// True when nothing waits, and the drain under way ends; false when notices wait.
    func finishIfEmpty() -> Bool {
        state.withLock { $0.pending.finishIfEmpty() }
    }

    /// Drops what is waiting and every later notice: the engine is shutting down.
    func close() {
        state.withLock { state in
            state.closed = true
            _ = state.pending.removeAll()
        }
    }
}
