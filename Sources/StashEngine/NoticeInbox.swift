import Foundation

/// Fetch events on their way from the fetch thread to the engine. The engine takes every
/// event waiting at once, so a busy moment costs one hop onto the actor for many events
/// instead of one hop (and a thread wake-up) for each.
final class NoticeInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Engine.FetchNotice] = []
    /// A drain was asked for and has not yet found the inbox empty.
    private var draining = false
    private var closed = false
    private var drain: (@Sendable () -> Void)?

    /// `drain` is called when a notice arrives and no drain is under way; it must take the
    /// notices until `take()` returns none.
    func attach(_ drain: @escaping @Sendable () -> Void) {
        let start = lock.withLock { () -> Bool in
            self.drain = drain
            if pending.isEmpty || draining { return false }
            draining = true
            return true
        }
        if start { drain() }
    }

    func post(_ notice: Engine.FetchNotice) {
        let drain = lock.withLock { () -> (@Sendable () -> Void)? in
            guard !closed else { return nil }
            pending.append(notice)
            guard !draining, let drain = self.drain else { return nil }
            draining = true
            return drain
        }
        drain?()
    }

    /// The notices in the order they came; once it returns none, the next post starts a drain.
    func take() -> [Engine.FetchNotice] {
        lock.withLock {
            guard !pending.isEmpty else {
                draining = false
                return []
            }
            defer { pending = [] }
            return pending
        }
    }

    /// Drops what is waiting and every later notice: the engine is shutting down.
    func close() {
        lock.withLock {
            closed = true
            pending = []
        }
    }
}
