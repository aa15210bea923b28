import StashCore

/// What the desktop says (a metered network, battery power) against what each download
/// allows (its own `network` and `onBattery`, else the config's `network` and `on-battery`): a download that may not run now waits in
/// WAITING_FOR_NETWORK with the reason, holding no slot and no transfer, and goes back to the
/// queue when the fact that held it changes. A running one stops its transfers and keeps its
/// bytes, as a pause does.
extension EngineState {
    static let meteredReason = "waiting for an unmetered network"
    static let batteryReason = "waiting for AC power"

    /// Why `download` may not run under the desktop's conditions now, or nil.
    func desktopWait(for download: Download) -> String? {
        if desktop.metered, (download.network ?? config.network) == .unmetered { return Self.meteredReason }
        if desktop.onBattery, (download.onBattery ?? config.onBattery) == .pause { return Self.batteryReason }
        return nil
    }

    /// A queued or running download waits for the desktop's conditions to change.
    mutating func waitForDesktop(_ id: String, reason: String, into effects: inout [EngineEffect]) {
        guard (try? transition(id, .desktopWait, into: &effects, edit: { $0.stateReason = reason })) == true else { return }
        desktopWaiting.insert(id)
        log(.info, "download waits for the desktop", ["id": "\(id)", "reason": "\(reason)"], into: &effects)
    }

    /// Whether SetDownload may change the download's network and on-battery rules.
    func checkDesktopRules(_ id: String) throws {
        guard let entry = entries[id] else { throw StashError.notFound(id: id) }
        guard entry.download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is REMOVING; its network and on-battery rules cannot change")
        }
    }

    /// SetDownload's network and on-battery rules: kept, then the download waits or goes on
    /// under them at once.
    mutating func setDesktopRules(_ id: String, network: NetworkRequirement?, onBattery: BatteryPolicy?, into effects: inout [EngineEffect]) throws {
        try checkDesktopRules(id)
        guard var entry = entries[id] else { throw StashError.notFound(id: id) }
        let before = entry.download
        if let network { entry.download.network = network }
        if let onBattery { entry.download.onBattery = onBattery }
        guard entry.download != before else { return }
        entries[id] = entry
        effects.append(.commit(.save(entry.download), then: nil))
        followDesktop(into: &effects)
    }

    /// After a change of the conditions or the config: the running downloads that may no
    /// longer run wait, the waiting ones that may run go back to the queue (or take the new
    /// reason), then the scheduler fills the slots.
    mutating func followDesktop(into effects: inout [EngineEffect]) {
        guard !shuttingDown else { return }
        for id in queue.active.sorted() {
            guard let entry = entries[id], entry.lifecycle.state.isActive, let reason = desktopWait(for: entry.download) else { continue }
            waitForDesktop(id, reason: reason, into: &effects)
        }
        for id in desktopWaiting.sorted() {
            guard let entry = entries[id], entry.lifecycle.state == .waitingForNetwork, !queue.active.contains(id) else {
                // Paused, stopped or cancelled meanwhile: it no longer waits for the desktop.
                desktopWaiting.remove(id)
                continue
            }
            if let reason = desktopWait(for: entry.download) {
                guard entry.download.stateReason != reason, var record = entries[id] else { continue }
                record.download.stateReason = reason
                entries[id] = record
                effects.append(.commit(.save(record.download), then: .stateChanged(layout.eventView(record.download), previous: .waitingForNetwork)))
                continue
            }
            desktopWaiting.remove(id)
            _ = try? transition(id, .desktopClear, into: &effects) { $0.stateReason = "" }
        }
        schedule(into: &effects)
    }
}
