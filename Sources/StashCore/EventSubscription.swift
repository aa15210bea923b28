import Foundation

/// The events one subscriber has yet to read. The engine delivers into it without ever
/// waiting; a subscriber that reads slowly sees its progress events for a download coalesce
/// into the latest one, while state changes and removals are all kept, in order.
public final class EventSubscription: AsyncSequence, @unchecked Sendable {
    public typealias Element = DownloadEvent

    /// Only these downloads; empty means all.
    public let ids: Set<String>
    /// Progress events of one download closer than this (percent and time) are skipped.
    public let minProgressStep: Int
    public let minInterval: TimeInterval

    private let lock = NSLock()
    private var queue: [DownloadEvent] = []
    private var head = 0
    /// Index in `queue` of the pending progress event of each download, to replace it in place.
    private var pendingProgress: [String: Int] = [:]
    private var lastSent: [String: (percent: Int, time: Date)] = [:]
    private var waiter: CheckedContinuation<DownloadEvent?, Never>?
    private var finished = false
    private let onCancel: @Sendable () -> Void

    public init(ids: Set<String>, minProgressStep: Int, minInterval: TimeInterval, onCancel: @escaping @Sendable () -> Void = {}) {
        self.ids = ids
        self.minProgressStep = Swift.max(1, minProgressStep)
        self.minInterval = Swift.max(0, minInterval)
        self.onCancel = onCancel
    }

    /// Called by the engine for every event; returns at once.
    public func deliver(_ event: DownloadEvent) {
        if !ids.isEmpty && !ids.contains(event.downloadID) { return }
        lock.lock()
        if finished { lock.unlock(); return }
        if case .progress(let update) = event.kind {
            if let last = lastSent[update.id],
               update.progressPercent - last.percent < minProgressStep,
               event.time.timeIntervalSince(last.time) < minInterval {
                lock.unlock()
                return
            }
            if let index = pendingProgress[update.id] {
                queue[index] = event
                lock.unlock()
                return
            }
            pendingProgress[update.id] = queue.count
        }
        if let waiter {
            self.waiter = nil
            take(event)
            lock.unlock()
            waiter.resume(returning: event)
            return
        }
        queue.append(event)
        lock.unlock()
    }

    /// Ends the stream; events already queued are still read.
    public func finish() {
        lock.lock()
        finished = true
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(returning: nil)
    }

    /// Ends the stream and tells the engine to stop delivering.
    public func cancel() {
        lock.lock()
        queue.removeAll()
        head = 0
        pendingProgress.removeAll()
        lock.unlock()
        finish()
        onCancel()
    }

    /// Events waiting to be read; a measure of how far behind the subscriber is.
    public var backlog: Int {
        lock.lock()
        defer { lock.unlock() }
        return queue.count - head
    }

    // Called with the lock held, for the event handed to the reader.
    private func take(_ event: DownloadEvent) {
        switch event.kind {
        case .progress(let update):
            pendingProgress[update.id] = nil
            lastSent[update.id] = (update.progressPercent, event.time)
        case .stateChanged(let download, _):
            // A new state restarts the progress pacing, so the first progress after it shows.
            lastSent[download.id] = nil
        case .removed(let id):
            lastSent[id] = nil
        case .license:
            break
        }
    }

    private func next() async -> DownloadEvent? {
        await withCheckedContinuation { continuation in
            nextOrWait(continuation)
        }
    }

    /// Hands over the oldest queued event, or parks the reader until one is delivered.
    private func nextOrWait(_ continuation: CheckedContinuation<DownloadEvent?, Never>) {
        lock.lock()
        if head < queue.count {
            let event = queue[head]
            head += 1
            take(event)
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                pendingProgress.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024 {
                queue.removeFirst(head)
                pendingProgress = pendingProgress.mapValues { $0 - head }
                head = 0
            }
            lock.unlock()
            continuation.resume(returning: event)
            return
        }
        if finished {
            lock.unlock()
            continuation.resume(returning: nil)
            return
        }
        waiter = continuation
        lock.unlock()
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: EventSubscription
        public mutating func next() async -> DownloadEvent? { await subscription.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
}
