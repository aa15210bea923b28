import Foundation
import Synchronization

/// The events one subscriber has yet to read. The engine delivers into it without ever
/// waiting; a subscriber that reads slowly sees its progress events for a download coalesce
/// into the latest one, while state changes and removals are all kept, in order, up to
/// `maxBacklog`. Past that the waiting events are dropped and replaced by one `eventsLost`
/// event naming their sequence numbers, so a subscriber that stopped reading costs at most
/// that much memory, and learns what it missed when it reads again.
package final class EventSubscription: AsyncSequence, Sendable {
    package typealias Element = DownloadEvent

    /// Only these downloads; empty means all.
    package let ids: Set<String>
    /// Progress events of one download closer than this (percent and time) are skipped.
    package let minProgressStep: Int
    package let minInterval: TimeInterval
    /// Events kept for a subscriber that does not read, before they are dropped.
    package let maxBacklog: Int
    /// The events an in-process reader wants, nil for all: the others are dropped at delivery,
    /// so the reader is not woken for them (the desktop notices read completions and failures
    /// alone, where every download also brings its add, start and progress).
    package let accepts: (@Sendable (DownloadEvent) -> Bool)?

    private struct State {
        /// Waiting events in seq order; nil is a progress event a later one of the same
        /// download (or export) replaced. The later one goes at the end rather than into the
        /// old one's place: in its place it would overtake the events queued between the two,
        /// and a reader that skips what is older than the last seq it saw (the CLI's
        /// `DownloadTracker`) would then drop them, a download's COMPLETED with them.
        var queue: [DownloadEvent?] = []
        var head = 0
        /// How many of `queue[head...]` are nil.
        var superseded = 0
        /// Index in `queue` of the pending progress event of each download (and of each export
        /// to a file), to replace it.
        var pendingProgress: [Coalesced: Int] = [:]
        var lastSent: [String: (percent: Int, time: Date)] = [:]
        var waiter: CheckedContinuation<DownloadEvent?, Never>?
        var finished = false

        /// Replaces every waiting event and `event` with one notice of what was lost (merged into
        /// a notice still waiting at the head).
        mutating func dropBacklog(through event: DownloadEvent) {
            var lost = EventsLost(firstSeq: event.seq, lastSeq: event.seq, count: 1)
            for case let waiting? in queue[head...] {
                if case .eventsLost(let earlier) = waiting.kind {
                    lost.firstSeq = Swift.min(lost.firstSeq, earlier.firstSeq)
                    lost.count += earlier.count
                } else {
                    lost.firstSeq = Swift.min(lost.firstSeq, waiting.seq)
                    lost.count += 1
                }
            }
            queue.removeAll(keepingCapacity: true)
            head = 0
            superseded = 0
            pendingProgress.removeAll(keepingCapacity: true)
            // Progress that was dropped leaves the pacing state stale: the next of each shows.
            lastSent.removeAll()
            queue.append(DownloadEvent(seq: event.seq, time: event.time, kind: .eventsLost(lost)))
        }

        /// The oldest queued event, taken for the reader; nil when none waits.
        mutating func dequeue() -> DownloadEvent? {
            var next: DownloadEvent?
            while next == nil, head < queue.count {
                next = queue[head]
                head += 1
                if next == nil { superseded -= 1 }
            }
            if let next { take(next) }
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                pendingProgress.removeAll(keepingCapacity: true)
                head = 0
                superseded = 0
            } else if head > 1024 {
                queue.removeFirst(head)
                pendingProgress = pendingProgress.mapValues { $0 - head }
                head = 0
            }
            return next
        }

        /// Events waiting, not counting the replaced ones.
        var waiting: Int { queue.count - head - superseded }

        /// Puts `event` at the end in place of the pending progress event of `key`, if any.
        /// Once replaced ones are most of the queue they are taken out, so a download's
        /// progress coming faster than it is read holds a bounded queue.
        mutating func appendReplacing(_ key: Coalesced, _ event: DownloadEvent) {
            if let index = pendingProgress[key] {
                queue[index] = nil
                superseded += 1
            }
            if superseded > 64, superseded * 2 > queue.count - head {
                let live = queue[head...].compactMap { $0 }
                queue = live.map { $0 }
                head = 0
                superseded = 0
                pendingProgress.removeAll(keepingCapacity: true)
                for (index, waiting) in live.enumerated() {
                    switch waiting.kind {
                    case .progress(let update): pendingProgress[.download(update.id)] = index
                    case .exportProgress(let progress): pendingProgress[.export(progress.file)] = index
                    default: break
                    }
                }
            }
            pendingProgress[key] = queue.count
            queue.append(event)
        }

        /// For the event handed to the reader.
        mutating func take(_ event: DownloadEvent) {
            switch event.kind {
            case .progress(let update):
                pendingProgress[.download(update.id)] = nil
                lastSent[update.id] = (update.progressPercent, event.time)
            case .exportProgress(let progress):
                pendingProgress[.export(progress.file)] = nil
            case .stateChanged(let download, _):
                // A new state restarts the progress pacing, so the first progress after it shows.
                lastSent[download.id] = nil
            case .removed(let id):
                lastSent[id] = nil
            case .license, .settingsChanged:
                break
            case .eventsLost:
                break
            }
        }
    }

    /// What a waiting progress event is the latest of.
    private enum Coalesced: Hashable {
        case download(String)
        /// An export, by its target.
        case export(String)
    }

    private let state = Mutex(State())
    private let onCancel: @Sendable () -> Void

    package static let defaultMaxBacklog = 1024

    package init(
        ids: Set<String>, minProgressStep: Int, minInterval: TimeInterval, maxBacklog: Int = EventSubscription.defaultMaxBacklog,
        accepts: (@Sendable (DownloadEvent) -> Bool)? = nil, onCancel: @escaping @Sendable () -> Void = {}
    ) {
        self.ids = ids
        self.accepts = accepts
        self.maxBacklog = Swift.max(1, maxBacklog)
        self.minProgressStep = Swift.max(1, minProgressStep)
        self.minInterval = Swift.max(0, minInterval)
        self.onCancel = onCancel
    }

    /// Called by the engine for every event; returns at once.
    package func deliver(_ event: DownloadEvent) {
        deliver(CollectionOfOne(event))
    }

    /// Called by the engine for the events of one commit, in order; returns at once. A
    /// parked reader is woken once for all of them, not once an event: it takes the first and
    /// finds the rest queued behind it.
    package func deliver(_ events: some Sequence<DownloadEvent>) {
        let reader = state.withLock { state -> (CheckedContinuation<DownloadEvent?, Never>, DownloadEvent)? in
            var reader: (CheckedContinuation<DownloadEvent?, Never>, DownloadEvent)?
            for event in events where wants(event) {
                guard let waiter = admit(event, into: &state) else { continue }
                reader = (waiter, event)
            }
            return reader
        }
        reader.map { $0.0.resume(returning: $0.1) }
    }

    private func wants(_ event: DownloadEvent) -> Bool {
        if !ids.isEmpty && !ids.contains(event.downloadID) { return false }
        return accepts?(event) ?? true
    }

    /// Queues `event` (or hands it to the parked reader, whose continuation it returns),
    /// unless it is progress too close to the last shown, or replaces a waiting one.
    private func admit(_ event: DownloadEvent, into state: inout State) -> CheckedContinuation<DownloadEvent?, Never>? {
        if state.finished { return nil }
        if case .progress(let update) = event.kind {
            if let last = state.lastSent[update.id],
               update.progressPercent - last.percent < minProgressStep,
               event.time.timeIntervalSince(last.time) < minInterval {
                return nil
            }
            if state.pendingProgress[.download(update.id)] != nil {
                state.appendReplacing(.download(update.id), event)
                return nil
            }
            state.pendingProgress[.download(update.id)] = state.queue.count
        }
        // An export's progress is paced by the export itself (each whole percent); one
        // still waiting is replaced by the newer.
        if case .exportProgress(let progress) = event.kind {
            if state.pendingProgress[.export(progress.file)] != nil {
                state.appendReplacing(.export(progress.file), event)
                return nil
            }
            state.pendingProgress[.export(progress.file)] = state.queue.count
        }
        if let waiter = state.waiter {
            state.waiter = nil
            state.take(event)
            return waiter
        }
        if state.waiting >= maxBacklog {
            state.dropBacklog(through: event)
        } else {
            state.queue.append(event)
        }
        return nil
    }

    /// Ends the stream; events already queued are still read.
    package func finish() {
        let reader = state.withLock { state in
            state.finished = true
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        reader?.resume(returning: nil)
    }

    /// Ends the stream and tells the engine to stop delivering.
    package func cancel() {
        state.withLock { state in
            state.queue.removeAll()
            state.head = 0
            state.superseded = 0
            state.pendingProgress.removeAll()
        }
        finish()
        onCancel()
    }

    /// Events waiting to be read; a measure of how far behind the subscriber is.
    package var backlog: Int {
        state.withLock { $0.waiting }
    }

    /// Whether a reader is parked waiting for the next event (what a test waits for).
    package var hasParkedReader: Bool {
        state.withLock { $0.waiter != nil }
    }

    private func next() async -> DownloadEvent? {
        await withCheckedContinuation { continuation in
            nextOrWait(continuation)
        }
    }

    /// Hands over the oldest queued event, or parks the reader until one is delivered.
    private func nextOrWait(_ continuation: CheckedContinuation<DownloadEvent?, Never>) {
        // nil: the reader is parked, for `deliver` or `finish` to resume; .some(nil): the end.
        let answer: DownloadEvent?? = state.withLock { state in
            if let event = state.dequeue() { return event }
            if state.finished { return .some(nil) }
            state.waiter = continuation
            return nil
        }
        if let answer { continuation.resume(returning: answer) }
    }

    /// The next event, waiting for one as the iterator does, with up to `limit - 1` more that
    /// wait behind it; empty once the stream ended. A reader that sends what it reads (a
    /// connection's subscription) encodes and writes a burst at once rather than one event a
    /// wake-up.
    package func nextBatch(limit: Int) async -> [DownloadEvent] {
        guard let first = await next() else { return [] }
        var batch = [first]
        guard limit > 1 else { return batch }
        state.withLock { state in
            while batch.count < limit, let event = state.dequeue() { batch.append(event) }
        }
        return batch
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: EventSubscription
        package mutating func next() async -> DownloadEvent? { await subscription.next() }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
}
