import Foundation
import StashCore

extension Engine {
    /// Why stashd may not exit now, or nil when it may: no download preparing, queued,
    /// transferring, waiting for the network, restarting or being removed; no licence renewal
    /// or release under way; and none due within `window` seconds (a renewal due later
    /// happens at the next start, which `licenseTick` runs). Queued work keeps stashd up, so an
    /// exit when idle never strands a download.
    public func busyReason(within window: TimeInterval) -> String? {
        var busy = 0
        for entry in entries.values {
            switch entry.download.state {
            case .preparing, .queued, .downloading, .waitingForNetwork, .restarting, .removing: busy += 1
            default: continue
            }
        }
        if busy > 0 { return "\(busy) download(s) active or queued" }
        if !stopping.isEmpty { return "\(stopping.count) transfer(s) stopping" }
        if !renewing.isEmpty { return "\(renewing.count) licence renewal(s) under way" }
        if outbox.isSending { return "licence releases waiting to be sent" }
        let horizon = clock.now().addingTimeInterval(window)
        for id in entries.licensed {
            guard let download = entries[id]?.download, let terms = download.license, download.state != .drmExpired,
                  terms.refusedAt == nil, let due = terms.renewalDue else { continue }
            if max(due, renewRetryAt[id] ?? .distantPast) <= horizon { return "licence renewal of '\(id)' due" }
        }
        return nil
    }
}
