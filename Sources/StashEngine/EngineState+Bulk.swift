import StashCore

/// Requests over many downloads (`BulkRequest`): which downloads they act on.
extension EngineState {
    /// The downloads of the request's group (every download when it has none) in a state it
    /// acts on, oldest first.
    func ids(for request: BulkRequest) -> [String] {
        order.filter { id in
            entries[id].map { request.applies(to: $0.download.state) && DownloadRequestRules.group($0.download.group, isIn: request.group) } ?? false
        }
    }
}
