import Foundation
import StashCore
import StashStore

/// The engine's journal: registry writes and the events that announce them, in the order the
/// engine made them. A write is committed before its event is published, and events are
/// published in submission order, so no subscriber ever hears of a state the registry could
/// lose or sees two changes of a download the wrong way round. Writes that pile up while a
/// transaction runs go into the next transaction together (group commit).
final class CommitQueue: @unchecked Sendable {
    enum Change {
        case save(Download)
        case delete(String)
    }

    private struct Item {
        var change: Change?
        var event: DownloadEvent.Kind?
        var ticket: CommitTicket?
    }

    private let registry: Registry
    private let bus: EventBus
    private let lock = NSLock()
    private var pending: [Item] = []
    private var running = false

    init(registry: Registry, bus: EventBus) {
        self.registry = registry
        self.bus = bus
    }

    /// Queues a change and its announcement. Synchronous, so the order of calls is the order on
    /// disk; await the ticket to know the change is durable.
    @discardableResult
    func submit(_ change: Change?, event: DownloadEvent.Kind?) -> CommitTicket {
        let ticket = CommitTicket()
        lock.lock()
        if change == nil && !running {
            // Nothing in flight to overtake: announce at once.
            lock.unlock()
            if let event { bus.publish(event) }
            ticket.resolve(nil)
            return ticket
        }
        pending.append(Item(change: change, event: event, ticket: ticket))
        let start = !running
        running = true
        lock.unlock()
        if start {
            Task.detached { [self] in await drain() }
        }
        return ticket
    }

    private func drain() async {
        while let batch = takeBatch() {
            var failure: Error?
            do {
                try await write(batch)
            } catch {
                failure = error
            }
            for item in batch {
                if failure == nil, let event = item.event { bus.publish(event) }
                item.ticket?.resolve(failure)
            }
        }
    }

    /// Everything queued so far, or nil (and the queue marked idle) when nothing is.
    private func takeBatch() -> [Item]? {
        lock.lock()
        defer { lock.unlock() }
        let batch = pending
        pending.removeAll()
        if batch.isEmpty {
            running = false
            return nil
        }
        return batch
    }

    private func write(_ batch: [Item]) async throws {
        // The last change of each id wins; earlier ones in the batch are superseded.
        var latest: [String: Change] = [:]
        var order: [String] = []
        for item in batch {
            guard let change = item.change else { continue }
            let id: String
            switch change {
            case .save(let download): id = download.id
            case .delete(let deleted): id = deleted
            }
            if latest.updateValue(change, forKey: id) == nil { order.append(id) }
        }
        var saves: [Download] = []
        var deletes: [String] = []
        for id in order {
            switch latest[id]! {
            case .save(let download): saves.append(download)
            case .delete(let deleted): deletes.append(deleted)
            }
        }
        if !saves.isEmpty { try await registry.save(saves) }
        if !deletes.isEmpty { try await registry.delete(ids: deletes) }
    }
}

/// The promise of one submitted change: resolved once its transaction has committed (or failed).
final class CommitTicket: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    private var failure: Error?
    private var waiters: [CheckedContinuation<Void, Error>] = []

    func resolve(_ error: Error?) {
        lock.lock()
        done = true
        failure = error
        let waiting = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in waiting {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            resumeOrPark(continuation)
        }
    }

    private func resumeOrPark(_ continuation: CheckedContinuation<Void, Error>) {
        lock.lock()
        if done {
            let failure = self.failure
            lock.unlock()
            if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
            return
        }
        waiters.append(continuation)
        lock.unlock()
    }
}
