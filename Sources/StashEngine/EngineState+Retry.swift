import Foundation
import StashCore
import StashFetch

/// Retries: a file transfer whose attempt failed and will be tried again ends
/// (`FetchRequest.retriesOutside`) instead of waiting out its backoff in the fetch service, so
/// a download retrying a host that is down does not hold a slot the others could use.
extension EngineState {
    /// Attempt `attempt` of file `index` failed; the next may start `delayMs` from now. With
    /// nothing else of the download transferring or waiting for a transfer slot, the download
    /// gives up its download slot and waits in the queue, first of its priority, until then
    /// (`.retryDue`); else the file waits for a transfer slot again and its next transfer waits
    /// out the rest of the backoff.
    mutating func retryLater(_ id: String, index: Int, attempt: Int, delayMs: Int, error: DownloadError, into effects: inout [EngineEffect]) {
        guard var entry = entries[id], entry.download.files.indices.contains(index) else { return }
        let file = entry.download.files[index]
        log(.notice, "transfer will retry", [
            "id": "\(id)", "file": "\(file.path)", "attempt": "\(attempt)", "delay_ms": "\(delayMs)",
            "error": "\(error.message.withoutURLSecrets)"], into: &effects)
        // At most a day: the fetch service's number, kept from overflowing the date.
        let seconds = TimeInterval(min(max(0, delayMs), 86_400_000)) / 1000
        let notBefore = clock.now().addingTimeInterval(seconds)
        retries[id, default: [:]][index] = FileRetry(attempts: attempt, notBefore: notBefore)
        let reason = "retrying in \(delayMs) ms after attempt \(attempt): \(fileLabel(entry.download, index, message: error.message))\(error.message)"
        guard entry.activity.transfers.isEmpty, !slots.hasWaiting(id) else {
            entry.download.stateReason = reason
            entries[id] = entry
            slots.waitAgain(id, index: index, host: file.host)
            slotsChanged = true
            return
        }
        guard (try? transition(id, .requeue, into: &effects) { $0.stateReason = reason }) == true else { return }
        queue.deferStart(id, until: notBefore)
        effects.append(.arm(after: seconds, .retryDue(id)))
    }

    /// A deferred download's backoff may be over: it waits for a slot as any queued one. Not
    /// yet (the wall clock went back, or a later retry deferred it again): armed again.
    mutating func retryDue(_ id: String, into effects: inout [EngineEffect]) {
        guard let notBefore = queue.deferral(of: id) else { return }
        let left = notBefore.timeIntervalSince(clock.now())
        guard left <= 0 else {
            effects.append(.arm(after: left, .retryDue(id)))
            return
        }
        queue.undefer(id, key: queueKey(id))
        schedule(into: &effects)
    }
}
