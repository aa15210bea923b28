import Foundation
import StashCore

/// Requests over many downloads: every one, or those of a group and the groups under it.
extension Engine {
    package func pauseAll() async throws -> Int {
        try await pauseEach(in: "")
    }

    package func resumeAll() async throws -> Int {
        try await resumeEach(in: "", includeFailed: true)
    }

    package func cancelAll() async throws -> Int {
        try await cancelEach(in: "")
    }

    /// Pauses what can be paused of `group` and the groups under it; returns how many were.
    package func pauseGroup(_ group: String) async throws -> Int {
        try DownloadRequestRules.validateTargetGroup(group, every: "PauseAll")
        return try await pauseEach(in: group)
    }

    /// Resumes the PAUSED downloads of `group` and the groups under it, and the FAILED ones
    /// with `includeFailed`; returns how many were.
    package func resumeGroup(_ group: String, includeFailed: Bool) async throws -> Int {
        try DownloadRequestRules.validateTargetGroup(group, every: "ResumeAll")
        return try await resumeEach(in: group, includeFailed: includeFailed)
    }

    /// Cancels every download of `group` and the groups under it, as `cancel(id:)` does each
    /// (files deleted, a held licence released); returns how many were.
    package func cancelGroup(_ group: String) async throws -> Int {
        try DownloadRequestRules.validateTargetGroup(group, every: "CancelAll")
        return try await cancelEach(in: group)
    }

    private func pauseEach(in group: String) async throws -> Int {
        try await forEach(in: group, where: { $0 == .queued || $0.isActive }) { _ = try await self.pause(id: $0) }
    }

    private func resumeEach(in group: String, includeFailed: Bool) async throws -> Int {
        // Never STOPPED: an app's stop, with its reason, is lifted only by a resume of that download.
        try await forEach(in: group, where: { $0 == .paused || (includeFailed && $0 == .failed) }) { _ = try await self.resume(id: $0) }
    }

    private func cancelEach(in group: String) async throws -> Int {
        try await forEach(in: group, where: { $0 != .removing }) { try await self.cancel(id: $0) }
    }

    /// Runs `body` for each download of `group` (every download when empty) whose state
    /// `matches`, oldest first, and counts those it changed.
    private func forEach(in group: String, where matches: (DownloadState) -> Bool, _ body: (String) async throws -> Void) async throws -> Int {
        let ids = order.filter { id in
            entries[id].map { matches($0.download.state) && DownloadRequestRules.group($0.download.group, isIn: group) } ?? false
        }
        var affected = 0
        for id in ids {
            do {
                try await body(id)
                affected += 1
            } catch let error as StashError where error.code == .failedPrecondition || error.code == .notFound {
                // Its state moved on while we went through the list; nothing to do for it.
                continue
            }
        }
        return affected
    }
}
