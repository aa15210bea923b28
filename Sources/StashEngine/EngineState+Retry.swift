import Foundation
import Logging
import StashCore
import StashFetch

/// Retries: a file transfer whose attempt failed and will be tried again ends
/// (`FetchRequest.retriesOutside`) instead of waiting out its backoff in the fetch service, and
/// the file leaves the transfer slots until its time; a download with nothing else to transfer
/// meanwhile gives up its download slot. A download retrying a host that is down holds no slot
/// the others could use.
extension EngineState {
    /// Attempt `attempt` of file `index` (or of the planning, `FileRetry.planning`) failed; the
    /// next may start `delayMs` from now.
    mutating func retryLater(_ id: String, index: Int, attempt: Int, delayMs: Int, error: DownloadError, into effects: inout [EngineEffect]) {
        guard var entry = entries[id], index == FileRetry.planning || entry.download.files.indices.contains(index) else { return }
        let failure = noteRetry(&entry, index: index, attempt: attempt, delayMs: delayMs, error: error, into: &effects)
        entries[id] = entry
        // At most a day: the fetch service's number, kept from overflowing the date.
        let seconds = TimeInterval(min(max(0, delayMs), 86_400_000)) / 1000
        retries[id, default: [:]][index] = FileRetry(attempts: attempt, notBefore: clock.now().addingTimeInterval(seconds), failure: failure)
        effects.append(.arm(after: seconds, .retryDue(id)))
        if entry.activity.transfers.isEmpty, !slots.hasWaiting(id) { deferRetry(id, into: &effects) }
    }

    /// The journal's line and the record's reason for a retry of file `index` (or the planning);
    /// returns what failed, as the reason says it.
    @discardableResult
    func noteRetry(_ entry: inout Entry, index: Int, attempt: Int, delayMs: Int, error: DownloadError, into effects: inout [EngineEffect]) -> String {
        let planning = index == FileRetry.planning
        var metadata: Logger.Metadata = [
            "id": "\(entry.download.id)", "attempt": "\(attempt)", "delay_ms": "\(delayMs)", "error": "\(error.message.withoutURLSecrets)"]
        if !planning { metadata["file"] = "\(entry.download.files[index].path)" }
        log(.notice, planning ? "reading the playlists will retry" : "transfer will retry", metadata, into: &effects)
        let failure = (planning ? "" : fileLabel(entry.download, index, message: error.message)) + error.message
        entry.download.stateReason = "retrying in \(delayMs) ms after attempt \(attempt): \(failure)"
        return failure
    }

    /// Whether files of the download wait out a retry's backoff outside the transfer slots.
    func waitsToRetry(_ id: String) -> Bool {
        retries[id]?.values.contains(where: \.waiting) ?? false
    }

    /// Nothing of the download transfers or waits for a transfer slot, and files of it wait to
    /// retry: it goes back to the queue, first of its priority, and may not start before the
    /// earliest of them is due; its slot goes to the next download meanwhile.
    mutating func deferRetry(_ id: String, into effects: inout [EngineEffect]) {
        guard let earliest = retries[id]?.values.filter(\.waiting).map(\.notBefore).min(),
              (try? transition(id, .requeue, into: &effects)) == true else { return }
        queue.deferStart(id, until: earliest)
    }

    /// The download starts over with all its files (`beginFiles`): none waits outside the
    /// slots any more; a file not yet due waits out the rest in its transfer (`startFile`).
    mutating func endRetryWaits(_ id: String) {
        guard var files = retries[id] else { return }
        for index in files.keys { files[index]?.waiting = false }
        retries[id] = files
    }

    /// A retry's time may have come: a deferred download waits for a slot as any queued one,
    /// and an active download's files that are due wait for a transfer slot again. When none is
    /// due (the wall clock went back), the timer is armed again for the earliest.
    mutating func retryDue(_ id: String, into effects: inout [EngineEffect]) {
        let now = clock.now()
        if let notBefore = queue.deferral(of: id) {
            guard notBefore <= now else {
                effects.append(.arm(after: notBefore.timeIntervalSince(now), .retryDue(id)))
                return
            }
            queue.undefer(id, key: queueKey(id))
            schedule(into: &effects)
            // Its time came with every slot taken: the reason's countdown would be stale.
            if var entry = entries[id], entry.lifecycle.state == .queued, let retry = retries[id]?.values.min(by: { $0.notBefore < $1.notBefore }) {
                entry.download.stateReason = "retrying after attempt \(retry.attempts) once a slot frees: \(retry.failure)"
                entries[id] = entry
                effects.append(.commit(.save(entry.download), then: nil))
            }
            return
        }
        guard var files = retries[id], slots.isActive(id), let download = entries[id]?.download else { return }
        var due = false
        var later: Date?
        for (index, retry) in files where retry.waiting && download.files.indices.contains(index) {
            if retry.notBefore <= now {
                files[index]?.waiting = false
                slots.waitAgain(id, index: index, host: download.files[index].host)
                due = true
            } else {
                later = min(later ?? retry.notBefore, retry.notBefore)
            }
        }
        retries[id] = files
        if !due, let later { effects.append(.arm(after: later.timeIntervalSince(now), .retryDue(id))) }
        slotsChanged = slotsChanged || due
        schedule(into: &effects)
    }
}
