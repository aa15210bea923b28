import Foundation
import StashCore

extension Engine {
    /// Records `task` as what a removal of `id` must wait for. A stop chains on the one before
    /// it, so `stopping[id]` names the last; an entry is forgotten once its task has ended,
    /// unless a later stop took its place. (The first stop to end used to clear the entry while
    /// a later one still ran: a removal then waited for nothing and deleted the folder while
    /// resumed transfers were still creating files in it, INTERNAL "could not delete …".)
    /// `transfersStopped`: a stop of file transfers, which the state hears of once it ended
    /// (`.transfersStopped`: a paused download's bytes are then what its files hold).
    func noteStopping(_ id: String, _ task: Task<Void, Never>, transfersStopped: Bool = false) {
        stopping[id] = task
        Task {
            await task.value
            if self.stopping[id] == task { self.stopping[id] = nil }
            if transfersStopped { self.run(.transfersStopped(id)) }
        }
    }

    /// Waits until every stop of the download's transfers and planning has ended, including
    /// those chained on while it waited.
    func waitForStops(of id: String) async {
        while let pending = stopping[id] {
            await pending.value
            if stopping[id] == pending { return }
        }
    }

    /// Deletes a download's folder. A folder already gone, or emptied by someone else at the
    /// same time (a purge taking it for an orphan), is deleted all the same: only an error that
    /// leaves it in place is one.
    func removeAssetFolder(_ folder: String) throws {
        var failure: Error?
        for _ in 0..<3 {
            do {
                guard try SystemCallError.status(folder, followingSymlink: false) != nil else { return }
                try FileManager.default.removeItem(atPath: folder)
                return
            } catch {
                failure = error
            }
        }
        let reason = (failure as? SystemCallError).map { "\($0)" } ?? failure?.localizedDescription ?? "unknown error"
        throw StashError(.internal, "could not delete \(folder): \(reason)")
    }
}
