import StashCore

/// A request over many downloads: PauseAll, ResumeAll and CancelAll, or the same over a group
/// and the groups under it. `EngineState.ids(for:)` picks the downloads it applies to; `run`
/// sends each its single request.
package struct BulkRequest: Equatable, Sendable {
    enum Verb: Equatable { case pause, resume, cancel }

    let verb: Verb
    /// The group it acts on, with the groups under it; empty for every download.
    let group: String
    /// A resume takes the FAILED downloads too.
    let includeFailed: Bool

    package static let pauseAll = BulkRequest(verb: .pause, group: "", includeFailed: false)
    package static let resumeAll = BulkRequest(verb: .resume, group: "", includeFailed: true)
    package static let cancelAll = BulkRequest(verb: .cancel, group: "", includeFailed: false)

    /// Pauses what can be paused of `group`.
    package static func pause(group: String) throws -> BulkRequest {
        try DownloadRequestRules.validateTargetGroup(group, every: "PauseAll")
        return BulkRequest(verb: .pause, group: group, includeFailed: false)
    }

    /// Resumes the PAUSED downloads of `group`, and the FAILED ones with `includeFailed`.
    package static func resume(group: String, includeFailed: Bool) throws -> BulkRequest {
        try DownloadRequestRules.validateTargetGroup(group, every: "ResumeAll")
        return BulkRequest(verb: .resume, group: group, includeFailed: includeFailed)
    }

    /// Cancels every download of `group`, as a single cancel does each (files deleted, a held
    /// licence released).
    package static func cancel(group: String) throws -> BulkRequest {
        try DownloadRequestRules.validateTargetGroup(group, every: "CancelAll")
        return BulkRequest(verb: .cancel, group: group, includeFailed: false)
    }

    /// Whether the request acts on a download in `state`.
    func applies(to state: DownloadState) -> Bool {
        switch verb {
        case .pause: state == .queued || state.isActive
        // Never STOPPED: an app's stop, with its reason, is lifted only by a resume of that download.
        case .resume: state == .paused || (includeFailed && state == .failed)
        case .cancel: state != .removing
        }
    }

    /// Sends each of `ids`, in order, its single request, and counts those it changed. One
    /// whose state moved on meanwhile (refused as NOT_FOUND or FAILED_PRECONDITION) is passed;
    /// any other error ends the run.
    func run(over ids: [String], on engine: some SingleRequests) async throws -> Int {
        var affected = 0
        for id in ids {
            do {
                switch verb {
                case .pause: _ = try await engine.pause(id: id)
                case .resume: _ = try await engine.resume(id: id)
                case .cancel: try await engine.cancel(id: id)
                }
                affected += 1
            } catch let error as StashError where error.code == .failedPrecondition || error.code == .notFound {
                continue
            }
        }
        return affected
    }
}
