import StashCore

/// What a `BulkRequest` asks of the engine for each download: the single request a client
/// could have sent. `Engine` conforms.
protocol SingleRequests: Actor {
    func pause(id: String) async throws -> Download
    func resume(id: String) async throws -> Download
    func cancel(id: String) async throws
}
