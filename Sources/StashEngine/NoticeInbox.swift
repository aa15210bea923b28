import Foundation
import StashCore
import Synchronization

/// Fetch events on their way from the fetch thread to the engine. The engine takes every
/// event waiting at once, so a busy moment costs one hop onto the actor for many events
/// instead of one hop (and a thread wake-up) for each.
final class NoticeInbox: Sendable {
    private struct State {
        var pending = PendingBatch<FetchNotice>()
        var closed = false
        var drain: (@Sendable () -> Void)?
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
            guard !state.closed else { return nil }
            return state.pending.add(notice) ? state.drain : nil
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
