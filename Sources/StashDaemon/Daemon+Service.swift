import Foundation
import StashCore

extension Daemon {
    /// What stashd is doing, for STATUS=.
    package func status() async -> ServiceStatus {
        ServiceStatus(await engine.stats())
    }

    /// Returns once no client has been connected and nothing was active (`Engine.busyReason`)
    /// for `seconds`, or when the task is cancelled. The socket's manager starts stashd again
    /// on the next connection, so an idle stashd costs no memory.
    package func waitUntilIdle(for seconds: Int) async {
        let limit = Duration.seconds(seconds)
        // Often enough that the exit comes close to the limit, rarely enough to cost nothing.
        let check = min(Duration.seconds(1), max(Duration.milliseconds(100), limit / 4))
        var idleSince: ContinuousClock.Instant?
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: check)
            } catch {
                return
            }
            let quiet = server.quietDuration
            let busy = await engine.busyReason(within: TimeInterval(seconds))
            guard quiet > .zero, busy == nil else {
                idleSince = nil
                continue
            }
            let now = ContinuousClock.now
            let since = idleSince ?? now
            idleSince = since
            if min(quiet, now - since) >= limit {
                logger.notice("exiting when idle", metadata: ["idle_seconds": "\(seconds)"])
                return
            }
        }
    }

    /// Sends STATUS= whenever it changed, at most once a second, until cancelled.
    package func reportStatus(to notifier: ServiceNotifier) async {
        var last = ""
        while !Task.isCancelled {
            let text = await status().text
            if text != last {
                notifier.status(text)
                last = text
            }
            do {
                try await Task.sleep(for: .seconds(1))
            } catch {
                return
            }
        }
    }

    /// Sends WATCHDOG=1 every `interval` (half of WATCHDOG_USEC) until cancelled; each ping
    /// first asks the engine for its numbers, so a stuck engine stops the pings and the
    /// manager restarts stashd.
    package func feedWatchdog(_ notifier: ServiceNotifier, every interval: Duration) async {
        while !Task.isCancelled {
            _ = await engine.stats()
            notifier.watchdog()
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
        }
    }
}
