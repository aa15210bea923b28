import Foundation
import StashCore

extension Engine {
    /// Why stashd may not exit now, or nil when it may: no download preparing, queued,
    /// transferring, waiting for the network, restarting or being removed; no licence renewal
    /// or release under way; and none due within `window` seconds (a renewal due later
    /// happens at the next start). Queued work keeps stashd up, so an exit when idle never
    /// strands a download.
    package func busyReason(within window: TimeInterval) -> String? {
        let busy = state.busyCount
        if busy > 0 { return "\(busy) download(s) active or queued" }
        let stopping = teardowns.count
        if stopping > 0 { return "\(stopping) transfer(s) stopping" }
        return state.licenseWork(before: clock.now().addingTimeInterval(window), sendingReleases: licenses.outbox.isSending)
    }
}
