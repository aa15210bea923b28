import Foundation
import StashCore

/// Which queued downloads get one of the `max-parallel` download slots: the first by
/// `QueueKey` (priority, then position, then list order). A value with no I/O: the engine asks
/// `next(isCurrent:)` for the download to try while a slot is free and tells the queue what
/// became of it: `activate` (it runs) or `hold` (no disk space yet: it waits outside the
/// queue until `releaseHeld`).
///
/// A binary heap keeps `next` and `enqueue` at O(log n) with 100,000 queued. A download moved,
/// given another priority or no longer QUEUED is not looked for in the heap: it is pushed
/// again under its new key, and the engine's `isCurrent` skips an entry whose key is not the
/// download's own any more when it comes up (`dropStale` once such entries are most of it).
/// Held as (key, id) only, 40 bytes a queued download: a map of current keys would cost more
/// than the record's own share of a kilobyte at rest (`RecordMemoryTests`).
struct DownloadQueue {
    typealias Current = (String, QueueKey) -> Bool

    var maxParallel: Int
    private var heap: [(key: QueueKey, id: String)] = []
    private var held: [(key: QueueKey, id: String)] = []
    /// Queued downloads that may not start before a time (a retry's backoff,
    /// `EngineState+Retry`): passed over until `undefer` enters them again.
    private var deferred: [String: Date] = [:]
    private(set) var active: Set<String> = []
    /// The priority of each active download, and how many active downloads have each one:
    /// a preemption looks for a running download of lower priority than the queue's head at
    /// every scheduling, and these answer "is there one at all" without looking at each.
    private var activePriorities: [String: DownloadPriority] = [:]
    private var activeByPriority = [Int](repeating: 0, count: DownloadPriority.allCases.count)

    init(maxParallel: Int) {
        self.maxParallel = maxParallel
    }

    /// Entries in the heap, stale ones included.
    var waitingCount: Int { heap.count }

    /// Enters `id` under `key`; an entry under its old key becomes stale.
    mutating func enqueue(_ id: String, key: QueueKey) {
        push((key, id))
    }

    /// The first waiting id, taken off the queue, while fewer than `maxParallel` run.
    mutating func next(isCurrent: Current) -> String? {
        guard active.count < maxParallel, let first = peek(isCurrent: isCurrent) else { return nil }
        popFirst()
        return first.id
    }

    /// The first waiting id and its key, left in the queue; stale entries above it go.
    mutating func peek(isCurrent: Current) -> (key: QueueKey, id: String)? {
        while let top = heap.first {
            if isCurrent(top.id, top.key), !isHeld(top.id), deferred[top.id] == nil { return top }
            popFirst()
        }
        return nil
    }

    /// Drops the stale entries once they are most of the heap, `waiting` being the number
    /// of downloads that really wait.
    mutating func dropStale(waiting: Int, isCurrent: Current) {
        guard heap.count > 1024, heap.count > 2 * waiting else { return }
        heap = heap.filter { isCurrent($0.id, $0.key) }.sorted { $0.key < $1.key }
    }

    mutating func activate(_ id: String, priority: DownloadPriority) {
        active.insert(id)
        if let old = activePriorities.updateValue(priority, forKey: id) { activeByPriority[old.rawValue] -= 1 }
        activeByPriority[priority.rawValue] += 1
    }

    mutating func deactivate(_ id: String) {
        active.remove(id)
        if let old = activePriorities.removeValue(forKey: id) { activeByPriority[old.rawValue] -= 1 }
    }

    /// An active download was given another priority; nothing for one not active.
    mutating func setPriority(_ id: String, _ priority: DownloadPriority) {
        guard active.contains(id) else { return }
        activate(id, priority: priority)
    }

    /// Whether a download of lower priority than `priority` is active.
    func hasActive(below priority: DownloadPriority) -> Bool {
        activeByPriority[..<priority.rawValue].contains { $0 > 0 }
    }

    /// Waits outside the queue (for disk space) until `releaseHeld`, keeping its key.
    mutating func hold(_ id: String, key: QueueKey) {
        held.append((key, id))
    }

    func isHeld(_ id: String) -> Bool { held.contains { $0.id == id } }

    /// A held download left the queue (paused, cancelled) or changed its key.
    mutating func unhold(_ id: String) {
        held.removeAll { $0.id == id }
    }

    /// `id` waits in the queue, but does not start before `time`.
    mutating func deferStart(_ id: String, until time: Date) {
        deferred[id] = time
    }

    /// The time a deferred download may start at; nil when it is not deferred.
    func deferral(of id: String) -> Date? { deferred[id] }

    /// A deferred download's time came: it waits under `key` again. Without a key (it left
    /// the queue), it is only forgotten.
    mutating func undefer(_ id: String, key: QueueKey?) {
        guard deferred.removeValue(forKey: id) != nil, let key else { return }
        enqueue(id, key: key)
    }

    var hasHeld: Bool { !held.isEmpty }

    /// The held downloads go back to the queue under their keys: before everything that
    /// came after them.
    mutating func releaseHeld() {
        let released = held
        held = []
        for entry in released { enqueue(entry.id, key: entry.key) }
    }

    /// The active downloads above `maxParallel`, those that would run last first (by `key`):
    /// after the cap was lowered they go back to the queue.
    func excess(key: (String) -> QueueKey) -> [String] {
        let over = active.count - maxParallel
        guard over > 0 else { return [] }
        return Array(active.sorted { key($1) < key($0) }.prefix(over))
    }

    private mutating func push(_ element: (key: QueueKey, id: String)) {
        heap.append(element)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].key < heap[parent].key else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popFirst() {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, heap[left].key < heap[first].key { first = left }
            if right < heap.count, heap[right].key < heap[first].key { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
