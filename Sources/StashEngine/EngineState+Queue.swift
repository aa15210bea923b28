import StashCore

/// The queue's order: positions given as downloads join it, moves, priority changes,
/// preemption of a lower-priority download's slot, and the queue listed in the order it runs.
///
/// Positions are spaced `positionGap` apart, so a move between two neighbours takes the
/// number halfway; only when none is left is the priority's queue renumbered (each record
/// whose position changed is committed).
extension EngineState {
    static let positionGap: Int64 = 1 << 16

    func queueKey(_ id: String) -> QueueKey? {
        entries[id].map { QueueKey(priority: $0.download.priority, position: $0.download.queuePosition, seq: $0.seq) }
    }

    /// Whether it waits for a slot: QUEUED, its add durable.
    func isWaiting(_ id: String) -> Bool {
        entries[id]?.download.state == .queued && !pendingAdds.contains(id)
    }

    /// The first download that waits under its current key, taken off the queue, while a
    /// slot is free. The table is read through a copy that is gone before it changes again.
    mutating func nextQueued() -> String? {
        let table = entries
        let pending = pendingAdds
        return queue.next { Self.isCurrent($0, $1, table, pending) }
    }

    mutating func peekQueued() -> (key: QueueKey, id: String)? {
        let table = entries
        let pending = pendingAdds
        return queue.peek { Self.isCurrent($0, $1, table, pending) }
    }

    private static func isCurrent(_ id: String, _ key: QueueKey, _ table: EntryTable, _ pending: Set<String>) -> Bool {
        guard let entry = table[id], entry.download.state == .queued, !pending.contains(id) else { return false }
        return QueueKey(priority: entry.download.priority, position: entry.download.queuePosition, seq: entry.seq) == key
    }

    /// Enters it in the queue again under its current key (held ones too: the key changed).
    mutating func requeueKey(_ id: String) {
        queue.unhold(id)
        enqueue(id)
    }

    /// Waits for a slot under its current key.
    mutating func enqueue(_ id: String) {
        guard let key = queueKey(id) else { return }
        queue.enqueue(id, key: key)
        guard queue.waitingCount > 1024 else { return }
        let waiting = entries.totals(mask: ListIndex.mask([.queued]), group: "").count
        let table = entries
        let pending = pendingAdds
        queue.dropStale(waiting: waiting) { Self.isCurrent($0, $1, table, pending) }
    }

    /// A position at the end of every priority's queue.
    mutating func takePosition() -> Int64 {
        defer { nextPosition = nextPosition.addingSaturating(Self.positionGap) }
        return nextPosition
    }

    /// A loaded record's position: later ones are given past it.
    mutating func notePosition(_ position: Int64) {
        if position >= nextPosition { nextPosition = position.addingSaturating(Self.positionGap) }
    }

    /// A download joins the queue: at the end of its priority when a client or a repair sends
    /// it there, at the front when its slot was taken back (a lowered max-parallel, a
    /// preemption); where it was when a restart finds it interrupted.
    mutating func placeInQueue(_ download: inout Download, after input: DownloadLifecycle.Input) {
        switch input {
        case .requeue:
            let first = queuedIDs(priority: download.priority).first.flatMap { entries[$0]?.download.queuePosition }
            download.queuePosition = first.map { $0.subtractingSaturating(Self.positionGap) } ?? takePosition()
        case .recover:
            break
        default:
            download.queuePosition = takePosition()
        }
    }

    /// The waiting downloads of one priority, in the order they run.
    mutating func queuedIDs(priority: DownloadPriority) -> [String] {
        queuePage(group: "", after: -1, limit: .max).entries.filter { $0.download.priority == priority && isWaiting($0.download.id) }.map(\.download.id)
    }

    /// Gives a download another priority (SetDownload). A queued one goes to the end of its
    /// new priority's queue; a running one keeps its slot unless a preemption now takes it.
    mutating func setPriority(_ id: String, _ priority: DownloadPriority, into effects: inout [EngineEffect]) throws {
        guard try checkPriority(id, priority), var entry = entries[id] else { return }
        entry.download.priority = priority
        // A waiting one joins the new priority's queue now: at its end, as an add would. One
        // whose add is not durable yet is not waiting: `.added` enters it under the new key.
        let waiting = isWaiting(id)
        if waiting { entry.download.queuePosition = takePosition() }
        entries[id] = entry
        slots.setPriority(id, priority)
        queue.setPriority(id, priority)
        if waiting { requeueKey(id) }
        effects.append(.commit(.save(entry.download), then: .settingsChanged(entry.download, changed: ["priority"])))
        schedule(into: &effects)
    }

    /// Refuses a priority `id` cannot take; false when it has it already.
    func checkPriority(_ id: String, _ priority: DownloadPriority) throws -> Bool {
        guard let download = entries[id]?.download else { throw StashError.notFound(id: id) }
        guard download.priority != priority else { return false }
        guard download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is REMOVING; its priority cannot change")
        }
        return true
    }

    /// Moves a queued download (Move). Refused, naming the ids and states, for an unknown id,
    /// a download that is not QUEUED (a running one has its slot already), a move relative to
    /// itself and one relative to a download that is not QUEUED.
    mutating func move(_ id: String, _ move: QueueMove, into effects: inout [EngineEffect]) throws {
        guard let entry = entries[id] else { throw StashError.notFound(id: id) }
        guard entry.download.state == .queued else {
            throw StashError(
                .failedPrecondition, "download '\(id)' is \(entry.download.state.name); only a QUEUED download moves in the queue")
        }
        guard isWaiting(id) else {
            throw StashError(.failedPrecondition, "download '\(id)' is being added; move it once its add is answered")
        }
        var priority = entry.download.priority
        if let other = move.other {
            guard other != id else { throw StashError.invalidArgument("download '\(id)' cannot move relative to itself") }
            guard let target = entries[other] else { throw StashError.notFound(id: other) }
            guard target.download.state == .queued else {
                throw StashError(
                    .failedPrecondition,
                    "download '\(other)' is \(target.download.state.name); '\(id)' moves only before or after a QUEUED download")
            }
            guard isWaiting(other) else {
                throw StashError(.failedPrecondition, "download '\(other)' is being added; move '\(id)' next to it once its add is answered")
            }
            priority = target.download.priority
        }
        var band = queuedIDs(priority: priority).filter { $0 != id }
        let index: Int
        switch move {
        case .top: index = 0
        case .bottom: index = band.count
        case .before(let other): index = band.firstIndex(of: other) ?? 0
        case .after(let other): index = (band.firstIndex(of: other) ?? band.count - 1) + 1
        }
        var position = freePosition(in: band, at: index)
        if position == nil {
            renumber(band, into: &effects)
            band = queuedIDs(priority: priority).filter { $0 != id }
            position = freePosition(in: band, at: index)
        }
        guard var moved = entries[id] else { return }
        moved.download.priority = priority
        moved.download.queuePosition = position ?? takePosition()
        notePosition(moved.download.queuePosition)
        entries[id] = moved
        queue.setPriority(id, priority)
        requeueKey(id)
        effects.append(.commit(.save(moved.download), then: nil))
        schedule(into: &effects)
    }

    /// A position between the downloads at `index - 1` and `index` of `band`; nil when they
    /// are neighbours in number (or tied, as in a registry from before positions).
    private func freePosition(in band: [String], at index: Int) -> Int64? {
        let position = { (i: Int) in entries[band[i]]?.download.queuePosition ?? 0 }
        let below = index > 0 ? position(index - 1) : nil
        let above = index < band.count ? position(index) : nil
        switch (below, above) {
        case (nil, nil): return nextPosition
        case (let low?, nil): return low < Int64.max - Self.positionGap ? low + Self.positionGap : nil
        case (nil, let high?): return high > Int64.min + Self.positionGap ? high - Self.positionGap : nil
        case (let low?, let high?):
            // Halved before they are added: positions read back from a registry may be any
            // Int64, and `high - low` of Int64.max and a negative one overflows.
            guard high > low else { return nil }
            let middle = low / 2 + high / 2 + (low % 2 + high % 2) / 2
            return middle > low && middle < high ? middle : nil
        }
    }

    /// Gives `band`'s downloads new positions, in their order, past every position given so
    /// far, and commits each.
    private mutating func renumber(_ band: [String], into effects: inout [EngineEffect]) {
        for id in band {
            guard var entry = entries[id] else { continue }
            entry.download.queuePosition = takePosition()
            entries[id] = entry
            requeueKey(id)
            effects.append(.commit(.save(entry.download), then: nil))
        }
    }

    /// With every slot taken, the first queued download takes the slot of the running one of
    /// lower priority that would run last; that one goes back to the front of its priority's
    /// queue with its part files. Returns whether a slot was taken.
    mutating func preempt(into effects: inout [EngineEffect]) -> Bool {
        guard config.preempt, queue.active.count >= queue.maxParallel, let first = peekQueued(), queue.hasActive(below: first.key.priority) else {
            return false
        }
        // Asked at every scheduling while the queue waits: no list of candidates is built, and
        // only a download of lower priority is looked at whole.
        var victim: (key: QueueKey, id: String)?
        for id in queue.active {
            guard let priority = entries.priority(id), priority < first.key.priority,
                  let entry = entries[id], entry.lifecycle.state.isActive,
                  !entry.activity.isCompleting, let key = queueKey(id) else { continue }
            if victim.map({ $0.key < key }) ?? true { victim = (key, id) }
        }
        guard let victim else { return false }
        let reason = "waiting: \(first.key.priority.name)-priority download '\(first.id)' took its slot"
        return (try? transition(victim.id, .requeue, into: &effects) { $0.stateReason = reason }) == true
    }

    /// The QUEUED downloads in `group` or a group under it (every one when empty), in the
    /// order they run: ListDownloads with the QUEUED filter alone. `after` is the seq of the
    /// last download of the page before; when that one left the queue meanwhile, the page
    /// starts at the queue's head. A sort of the queued downloads per page: a queue of
    /// 100,000 costs tens of ms a page, which a client asking for the run order can afford.
    mutating func queuePage(group: String, after: Int, limit: Int) -> (entries: [DownloadEntry], more: Bool) {
        let queued = entries.page(mask: ListIndex.mask([.queued]), group: group, after: -1, limit: .max).entries
        let keyed = queued.map { (key: QueueKey(priority: $0.download.priority, position: $0.download.queuePosition, seq: $0.seq), entry: $0) }
        let ordered = keyed.sorted { $0.key < $1.key }.map(\.entry)
        var start = 0
        if after >= 0, let index = ordered.firstIndex(where: { $0.seq == after }) { start = index + 1 }
        let page = Array(ordered[start...].prefix(limit))
        return (page, start + page.count < ordered.count)
    }
}
