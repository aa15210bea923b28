import StashCore
import StashFetch

/// The fetch service's side of two effects: transfers stopped (`.stopTransfers`) and a
/// bundle's folders synced (`.syncFolders`).
extension FetchService {
    /// Stops `transfers` now, in order (nil: one that has ended already), and returns what
    /// waits until every one is torn down and its file closed.
    func stop(_ transfers: [TransferID?]) -> @Sendable () async -> Void {
        let (done, signal) = AsyncStream.makeStream(of: Void.self)
        for transfer in transfers {
            guard let transfer else {
                signal.yield()
                continue
            }
            cancel(transfer) { signal.yield() }
        }
        let count = transfers.count
        return {
            var stopped = 0
            for await _ in done {
                stopped += 1
                if stopped == count { break }
            }
        }
    }

    /// Makes the renames in `folders` durable (`syncFolders`); why not, as a storage error,
    /// nil when they are.
    func syncFailure(_ folders: [String], in folder: String) async -> DownloadError? {
        do {
            try await syncFolders(folders, in: folder)
            return nil
        } catch {
            return DownloadError(.storage, "\(error)")
        }
    }
}
