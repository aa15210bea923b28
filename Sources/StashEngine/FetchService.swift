import StashFetch

/// What the engine needs of whatever moves bytes: `FetchWorkers` in the daemon, a fake that
/// completes, fails or stalls transfers on command in the engine's tests. Declared here, by
/// its user: StashFetch knows nothing of the engine.
package protocol FetchService: Sendable {
    /// Starts a transfer; its events arrive in order, exactly one final event.
    func start(_ request: FetchRequest, events: @escaping @Sendable (FetchEvent) -> Void) -> TransferID
    /// Stops a transfer without waiting; `stopped` runs once it is torn down and its file closed.
    func cancel(_ id: TransferID, then stopped: @escaping @Sendable () -> Void)
    /// Fetches a small resource (a playlist, a key, a licence) into memory.
    func fetchBody(_ request: FetchRequest, waitingForNetwork: (@Sendable () -> Void)?) async throws -> FetchedBody
    /// Global rate limit over all transfers in bytes/s (0 = unlimited).
    func setRateLimit(_ bytesPerSecond: Int64)
    /// The limit of the running transfers of rate group `group` (0 = none); later transfers
    /// bring their own in their request.
    func setGroupRateLimit(_ group: String, _ bytesPerSecond: Int64)
    /// Makes the renames in these folders of the asset folder `folder` durable, and the
    /// folders holding them up to the one holding `folder`.
    func syncFolders(_ folders: [String], in folder: String) async throws
    /// Stops every transfer and returns once they are all stopped.
    func shutdown() async
    /// Tells `passes` when the events of one go of the service begin and end, so they can be
    /// handed on together (a service without such goes calls neither).
    func observePasses(_ passes: FetchPasses)
}

extension FetchService {
    func fetchBody(_ request: FetchRequest) async throws -> FetchedBody {
        try await fetchBody(request, waitingForNetwork: nil)
    }
}

extension FetchWorkers: FetchService {}
