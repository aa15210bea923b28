/// What every batcher in stash shares (the commit queue, the fetch thread's inbox, the fetch
/// events on their way to the engine): items wait in arrival order, and the
/// consumer is woken once, not once per item. It then takes everything waiting, again and
/// again, until it finds nothing, and only from that moment does the next item wake it.
/// So a busy producer costs one wake-up per batch, and an item is never left waiting
/// unseen. A value: its owner keeps it behind its own lock, with whatever else must change
/// at the same moment.
package struct PendingBatch<Item> {
    private var items: [Item] = []
    /// A consumer was woken and has not yet found the batch empty.
    package private(set) var draining = false

    package init() {}

    package var isEmpty: Bool { items.isEmpty }

    /// Adds `item`; true when no consumer is draining, so the caller must wake one.
    package mutating func add(_ item: Item) -> Bool {
        items.append(item)
        return claim()
    }

    /// Everything waiting, oldest first. Empty means the consumer is idle from now on: the
    /// next `add` wakes it again.
    package mutating func take() -> [Item] {
        if items.isEmpty { draining = false }
        defer { items.removeAll(keepingCapacity: true) }
        return items
    }

    /// Ends the drain when nothing waits, so the next `add` wakes a consumer again: true then.
    /// False when items wait, which the caller goes on to take. Saves a consumer that drains
    /// in separate jobs the last job, which would only find the batch empty.
    package mutating func finishIfEmpty() -> Bool {
        guard items.isEmpty else { return false }
        draining = false
        return true
    }

    /// For a consumer that arrives after items did: true when items wait and none drains,
    /// and then the caller drains.
    package mutating func claim() -> Bool {
        guard !draining, !items.isEmpty else { return false }
        draining = true
        return true
    }

    /// Everything waiting, without changing who drains (for a consumer that is shutting down).
    package mutating func removeAll() -> [Item] {
        defer { items.removeAll() }
        return items
    }
}
