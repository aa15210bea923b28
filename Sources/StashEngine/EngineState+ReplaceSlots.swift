import StashCore

/// A replace takes a download slot (max-parallel) as a download does, and is in the flight log
/// while it has one. One asked for while every slot is taken waits, the old copy COMPLETED
/// and its reason saying so, and starts before the queued downloads when a slot frees: it
/// renews what a user already has and asked for by name.
extension EngineState {
    static let replaceWaitingReason = replacingReason + " (waiting for a free download slot, max-parallel)"

    /// Every slot is taken: the replace waits for one.
    mutating func waitForReplaceSlot(_ id: String, sha256: String, files: [DownloadFile], into effects: inout [EngineEffect]) {
        guard var entry = entries[id] else { return }
        var waiting = Replacement(generation: 0, temporaryName: "", finalName: "", sha256: sha256)
        waiting.waitingFiles = files
        replacements[id] = waiting
        holds[id] = Self.replaceHold
        replaceQueue.append(id)
        entry.download.stateReason = Self.replaceWaitingReason
        entries[id] = entry
        effects.append(.commit(.save(entry.download), then: .stateChanged(layout.eventView(entry.download), previous: .completed)))
    }

    /// Gives free slots to the replaces waiting, in the order asked.
    mutating func startWaitingReplaces(into effects: inout [EngineEffect]) {
        while queue.active.count < queue.maxParallel, !replaceQueue.isEmpty {
            let id = replaceQueue.removeFirst()
            guard let waiting = replacements[id], let files = waiting.waitingFiles else { continue }
            beginReplace(id, sha256: waiting.sha256, files: files, into: &effects)
        }
    }

    /// The replace holds a slot from now on; noted in the flight log like a download's
    /// transfers, so a crash during it is put down to this download (`CrashGuard`).
    mutating func takeReplaceSlot(_ id: String, into effects: inout [EngineEffect]) {
        queue.activate(id, priority: entries.priority(id) ?? .normal)
        effects.append(.flightStarted(id))
    }

    /// A cancel that removes the download while its new copy is being swapped in: the replace
    /// is forgotten with its hold and slot (the swap's end finds nothing to change).
    mutating func dropReplace(_ id: String, into effects: inout [EngineEffect]) {
        guard replacements.removeValue(forKey: id) != nil else { return }
        if holds[id] == Self.replaceHold { holds[id] = nil }
        releaseReplaceSlot(id, into: &effects)
    }

    /// The replace ended: its slot goes to what waits (a waiting replace leaves the line).
    mutating func releaseReplaceSlot(_ id: String, into effects: inout [EngineEffect]) {
        replaceQueue.removeAll { $0 == id }
        guard queue.active.contains(id) else { return }
        queue.deactivate(id)
        effects.append(.flightEnded(id))
        schedule(into: &effects)
    }
}
