/// Which queued downloads get one of the `max-parallel` download slots: the oldest waiting
/// first. A value with no I/O: the engine asks `next()` for the download to try while a slot
/// is free and tells the queue what became of it: `activate` (it runs), `hold` (no disk space
/// yet: it waits outside the queue until `releaseHeld`), or nothing for an id that is no
/// longer QUEUED (the queue keeps ids it was given until they come up, and the engine skips
/// the stale ones then, which is cheaper than finding them in the middle of the queue).
struct DownloadQueue {
    var maxParallel: Int
    private var waiting: [String] = []
    private var head = 0
    private var held: [String] = []
    private(set) var active: Set<String> = []

    init(maxParallel: Int) {
        self.maxParallel = maxParallel
    }

    /// Ids in the queue, stale ones included.
    var waitingCount: Int { waiting.count - head }

    mutating func enqueue(_ id: String) {
        waiting.append(id)
    }

    /// The oldest waiting id, taken off the queue, while fewer than `maxParallel` run.
    mutating func next() -> String? {
        guard active.count < maxParallel, head < waiting.count else { return nil }
        let id = waiting[head]
        head += 1
        // The taken prefix is dropped once it is most of the array: amortised O(1) a pop.
        if head > 1024, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return id
    }

    mutating func activate(_ id: String) {
        active.insert(id)
    }

    mutating func deactivate(_ id: String) {
        active.remove(id)
    }

    /// Waits outside the queue (for disk space) until `releaseHeld`.
    mutating func hold(_ id: String) {
        held.append(id)
    }

    var hasHeld: Bool { !held.isEmpty }

    /// The held downloads go back to the front of the queue, in their order: they came up
    /// before everything still waiting.
    mutating func releaseHeld() {
        guard !held.isEmpty else { return }
        waiting = held + waiting[head...]
        head = 0
        held = []
    }

    /// The active downloads above `maxParallel`, newest first (by `seq`): after the cap was
    /// lowered they go back to the queue.
    func excess(seq: (String) -> Int) -> [String] {
        let over = active.count - maxParallel
        guard over > 0 else { return [] }
        return Array(active.sorted { seq($0) > seq($1) }.prefix(over))
    }
}
