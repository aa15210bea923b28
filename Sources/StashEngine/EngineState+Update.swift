import StashCore

/// SetDownload's changes to a download after its add, other than its priority (which
/// `EngineState+Queue` decides, as it moves the download in the queue).
extension EngineState {
    /// Gives a download its own rate limit (0 = none), within the global one. Its running
    /// transfers take it at once; its later ones bring it in their request.
    mutating func setRateLimit(_ id: String, _ limit: Int64, into effects: inout [EngineEffect]) throws {
        guard limit >= 0 else {
            throw StashError.invalidArgument("rate_limit: \(limit) is negative; give bytes per second, 0 = none")
        }
        guard var entry = entries[id] else { throw StashError.notFound(id: id) }
        guard entry.download.rateLimit != limit else { return }
        guard entry.download.state != .removing else {
            throw StashError(.failedPrecondition, "download '\(id)' is REMOVING; its rate limit cannot change")
        }
        entry.download.rateLimit = limit
        entries[id] = entry
        effects.append(.commit(.save(entry.download), then: nil))
        effects.append(.setGroupRateLimit(id, limit))
    }
}
