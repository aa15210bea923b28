import Foundation
import StashCore

/// Start-up recovery: each record read from the registry is compared with the disk and moved
/// to where it belongs after a restart.
extension Engine {
    enum Recovery { case commit(CommitTicket), remove, unchanged }

    /// Moves a loaded record to where it belongs after a restart: interrupted downloads back
    /// to the queue, a complete one with `problem` to FAILED, a removal to its end.
    func recover(_ id: String, problem: String?) -> Recovery {
        guard let effects = try? state.on(.recover(id, problem: problem)) else { return .unchanged }
        let ticket = perform(effects)
        if entries[id]?.lifecycle.state == .removing { return .remove }
        return ticket.map { .commit($0) } ?? .unchanged
    }
}
