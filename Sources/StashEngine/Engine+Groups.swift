import StashCore

/// Requests over many downloads: every one, or those of a group and the groups under it.
extension Engine: SingleRequests {
    /// Sends each download the request acts on its single request, oldest first; returns how
    /// many it changed.
    package func bulk(_ request: BulkRequest) async throws -> Int {
        try await request.run(over: state.ids(for: request), on: self)
    }
}
