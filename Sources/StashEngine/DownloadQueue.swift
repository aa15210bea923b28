/// Which queued downloads get one of the `max-parallel` download slots: the first by
/// `QueueKey` (priority, then position, then list order). A value with no I/O: the engine asks
/// `next()` for the download to try while a slot is free and tells the queue what became of
/// it: `activate` (it runs), `hold` (no disk space yet: it waits outside the queue until
/// `releaseHeld`), or `remove` for one that left QUEUED otherwise.
///
/// A binary heap keeps `next()` and `enqueue` at O(log n) with 100,000 queued; a download
/// moved or given another priority is pushed again under its new key, and the entry under its
/// old key is skipped when it comes up (`keys` holds each waiting id's one current key).
struct DownloadQueue {
    var maxParallel: Int
    private var heap: [(key: QueueKey, id: String)] = []
    private var keys: [String: QueueKey] = [:]
    private var held: [(key: QueueKey, id: String)] = []
    private(set) var active: Set<String> = []

    init(maxParallel: Int) {
        self.maxParallel = maxParallel
    }

    /// Ids waiting in the queue (not the held ones).
    var waitingCount: Int { keys.count }

    /// The key `id` waits under; nil when it does not wait (held, active or not queued).
    func key(of id: String) -> QueueKey? { keys[id] }

    /// Enters `id` under `key`, or moves it there when it already waits.
    mutating func enqueue(_ id: String, key: QueueKey) {
        guard keys[id] != key else { return }
        keys[id] = key
        push((key, id))
        // Entries under old keys are dropped once they are most of the heap.
        if heap.count > 1024, heap.count > 2 * keys.count { rebuild() }
    }

    /// `id` left the queue without a slot (paused, stopped, cancelled, failed).
    mutating func remove(_ id: String) {
        keys[id] = nil
        held.removeAll { $0.id == id }
    }

    /// The first waiting id, taken off the queue, while fewer than `maxParallel` run.
    mutating func next() -> String? {
        guard active.count < maxParallel, let first = peek() else { return nil }
        popFirst()
        keys[first.id] = nil
        return first.id
    }

    /// The first waiting id and its key, left in the queue.
    mutating func peek() -> (key: QueueKey, id: String)? {
        while let top = heap.first {
            if keys[top.id] == top.key { return top }
            popFirst()
        }
        return nil
    }

    mutating func activate(_ id: String) {
        active.insert(id)
    }

    mutating func deactivate(_ id: String) {
        active.remove(id)
    }

    /// Waits outside the queue (for disk space) until `releaseHeld`, keeping its key.
    mutating func hold(_ id: String, key: QueueKey) {
        held.append((key, id))
    }

    var hasHeld: Bool { !held.isEmpty }

    /// The held downloads go back to the queue under their keys: before everything that
    /// came after them.
    mutating func releaseHeld() {
        let released = held
        held = []
        for entry in released { enqueue(entry.id, key: entry.key) }
    }

    /// Every queued id, held ones too, in the order they would run.
    func ordered() -> [String] {
        (keys.map { (key: $0.value, id: $0.key) } + held).sorted { $0.key < $1.key }.map(\.id)
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

    private mutating func rebuild() {
        heap = keys.map { (key: $0.value, id: $0.key) }.sorted { $0.key < $1.key }
    }
}
