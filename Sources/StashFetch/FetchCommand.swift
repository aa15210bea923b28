import StashCore

/// What callers ask of the fetch thread, and what the disk queue reports back to it; queued in
/// `FetchInbox` and run in order.
enum FetchCommand {
    case start(TransferID, FetchRequest, @Sendable (FetchEvent) -> Void)
    /// Stop a transfer; the callback runs once it is torn down.
    case cancel(TransferID, @Sendable () -> Void)
    case shutdown(CheckedContinuation<Void, Never>?)
    /// A rate group's new limit, for its transfers already started.
    case groupRateLimit(String, Int64)
    /// Called when each pass of the loop begins and before it sleeps (`FetchWorkers.observePasses`).
    case observePasses(FetchPasses)
    /// The disk queue opened (and, for a resume, hashed) a transfer's part file.
    case opened(TransferID, Result<PartFile, FetchFailure>)
    /// The sync thread made a finished transfer's file durable under its final name (or
    /// failed to): its final event.
    case committed(TransferID, FetchEvent)
}
