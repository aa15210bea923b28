import Foundation
import StashCore
import Synchronization

/// Numbers events, keeps the most recent ones for replay, and hands each to every
/// subscriber. Delivery never waits: subscriptions queue and coalesce on their own.
final class EventBus: Sendable {
    /// How many past events a subscriber can ask to replay.
    static let replayCapacity = 4096

    private struct State {
        var nextSeq: UInt64 = 1
        var recent: [DownloadEvent] = []
        var recentStart = 0
        var nextSubscriber = 0
        var subscribers: [Int: EventSubscription] = [:] {
            didSet { targets = Array(subscribers.values) }
        }
        /// The subscribers as an array, rebuilt when one comes or goes: each publish hands out
        /// this one (a retain) rather than copying the dictionary's values (an allocation per
        /// event, 4 events a download).
        private(set) var targets: [EventSubscription] = []
    }

    private let state = Mutex(State())
    /// Stamps each event with its time.
    private let clock: WallClock

    init(clock: WallClock = .system) {
        self.clock = clock
    }

    func publish(_ kind: DownloadEvent.Kind) {
        publish(CollectionOfOne(kind))
    }

    /// Events are published from one thread at a time (the commit queue's), so delivering
    /// outside the lock keeps every subscriber's events in seq order. The events of one call
    /// (a commit's) reach each subscriber together: a parked reader wakes once for them.
    func publish(_ kinds: some Collection<DownloadEvent.Kind>) {
        guard !kinds.isEmpty else { return }
        let (events, targets) = state.withLock { state in
            let time = clock.now()
            var events: [DownloadEvent] = []
            events.reserveCapacity(kinds.count)
            for kind in kinds {
                let event = DownloadEvent(seq: state.nextSeq, time: time, kind: kind)
                state.nextSeq += 1
                if state.recent.count < Self.replayCapacity {
                    state.recent.append(event)
                } else {
                    state.recent[state.recentStart] = event
                    state.recentStart = (state.recentStart + 1) % Self.replayCapacity
                }
                events.append(event)
            }
            return (events, state.targets)
        }
        for subscription in targets { subscription.deliver(events) }
    }

    /// Registers a subscriber and first hands it the buffered events with seq >= `replayFrom`
    /// (0: none), so an event published meanwhile is neither lost nor doubled.
    func subscribe(
        ids: Set<String>, minProgressStep: Int, minInterval: TimeInterval, replayFrom: UInt64, accepts: (@Sendable (DownloadEvent) -> Bool)? = nil
    ) -> EventSubscription {
        // A replay is handed over before the subscriber can read, so its backlog must hold the
        // whole replay on top of the usual bound, or the replay itself would overflow.
        let maxBacklog = EventSubscription.defaultMaxBacklog + (replayFrom > 0 ? Self.replayCapacity : 0)
        let key = state.withLock { state in
            state.nextSubscriber += 1
            return state.nextSubscriber
        }
        // Weak: the bus holds its subscriptions, so a subscription must not hold the bus.
        let subscription = EventSubscription(
            ids: ids, minProgressStep: minProgressStep, minInterval: minInterval, maxBacklog: maxBacklog, accepts: accepts
        ) { [weak self] in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: key) }
        }
        state.withLock { state in
            if replayFrom > 0 {
                for index in 0..<state.recent.count {
                    let event = state.recent[(state.recentStart + index) % state.recent.count]
                    if event.seq >= replayFrom { subscription.deliver(event) }
                }
            }
            state.subscribers[key] = subscription
        }
        return subscription
    }

    func finishAll() {
        let all = state.withLock { state in
            let all = Array(state.subscribers.values)
            state.subscribers.removeAll()
            return all
        }
        for subscription in all { subscription.finish() }
    }

    var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }
}
