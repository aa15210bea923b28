import Foundation
import StashCore
import StashFetch

/// Transfers: the fetch service's side of what `EngineState` decides about them.
extension Engine {
    /// Handles the fetch events waiting, in order, then gives the slots they freed to waiting
    /// files once, not once per event. Events that came meanwhile are handled by a job of their
    /// own, queued behind the requests already waiting for the engine, so a busy stream of
    /// events never keeps a client's call waiting for long.
    func handleNotices() {
        let batch = notices.take()
        // An empty take ends the drain: the next event starts another.
        guard !batch.isEmpty else { return }
        for notice in batch {
            if notice.event.isFinal { transfers[notice.generation] = nil }
            run(.transfer(notice))
        }
        run(.schedule)
        // Notices that came meanwhile wait behind the requests queued for the engine; none,
        // and the drain ends here, without a job only to find the inbox empty.
        if !notices.finishIfEmpty() { handleNoticesLater() }
    }

    /// Queues a drain of the fetch events as a job of its own on the engine.
    nonisolated func handleNoticesLater() {
        Task { [weak self] in await self?.handleNotices() }
    }

    /// Stops the transfers in the background; a removal waits until their files are closed
    /// (`teardowns`), and `.transfersStopped` follows.
    func stopTransfers(_ id: String, generations: [UInt64]) {
        // Queued now, in order before any restart of this download reopens its part files.
        let stopped = fetch.stop(generations.map { transfers.removeValue(forKey: $0) })
        // Then a paused download's bytes are what its files hold. Taken in as part of the
        // teardown, so whoever waits for the teardowns (a removal, `settle`) finds it counted.
        teardowns.chain(id) { [weak self] in
            await stopped()
            _ = await self?.run(.transfersStopped(id))
        }
    }
}
