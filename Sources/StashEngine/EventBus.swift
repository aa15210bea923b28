import Foundation
import StashCore

/// Numbers events, keeps the most recent ones for replay, and hands each to every
/// subscriber. Delivery never waits: subscriptions queue and coalesce on their own.
final class EventBus: @unchecked Sendable {
    /// How many past events a subscriber can ask to replay.
    static let replayCapacity = 4096

    private let lock = NSLock()
    private var nextSeq: UInt64 = 1
    private var recent: [DownloadEvent] = []
    private var recentStart = 0
    private var subscribers: [ObjectIdentifier: EventSubscription] = [:]

    func publish(_ kind: DownloadEvent.Kind) {
        lock.lock()
        let event = DownloadEvent(seq: nextSeq, time: Date(), kind: kind)
        nextSeq += 1
        if recent.count < Self.replayCapacity {
            recent.append(event)
        } else {
            recent[recentStart] = event
            recentStart = (recentStart + 1) % Self.replayCapacity
        }
        let targets = Array(subscribers.values)
        lock.unlock()
        for subscription in targets { subscription.deliver(event) }
    }

    /// Registers a subscriber and first hands it the buffered events with seq >= `replayFrom`
    /// (0: none), so an event published meanwhile is neither lost nor doubled.
    func subscribe(ids: Set<String>, minProgressStep: Int, minInterval: TimeInterval, replayFrom: UInt64) -> EventSubscription {
        let box = WeakRemover(bus: self)
        // A replay is handed over before the subscriber can read, so its backlog must hold the
        // whole replay on top of the usual bound, or the replay itself would overflow.
        let maxBacklog = EventSubscription.defaultMaxBacklog + (replayFrom > 0 ? Self.replayCapacity : 0)
        let subscription = EventSubscription(
            ids: ids, minProgressStep: minProgressStep, minInterval: minInterval, maxBacklog: maxBacklog
        ) {
            box.remove()
        }
        box.key = ObjectIdentifier(subscription)
        lock.lock()
        if replayFrom > 0 {
            for index in 0..<recent.count {
                let event = recent[(recentStart + index) % recent.count]
                if event.seq >= replayFrom { subscription.deliver(event) }
            }
        }
        subscribers[ObjectIdentifier(subscription)] = subscription
        lock.unlock()
        return subscription
    }

    func finishAll() {
        lock.lock()
        let all = Array(subscribers.values)
        subscribers.removeAll()
        lock.unlock()
        for subscription in all { subscription.finish() }
    }

    var subscriberCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return subscribers.count
    }

    fileprivate func remove(_ key: ObjectIdentifier) {
        lock.lock()
        subscribers[key] = nil
        lock.unlock()
    }

    /// Lets a subscription unregister itself without the bus and the subscription owning each other.
    private final class WeakRemover: @unchecked Sendable {
        weak var bus: EventBus?
        var key: ObjectIdentifier?
        init(bus: EventBus) { self.bus = bus }
        func remove() { if let key { bus?.remove(key) } }
    }
}
