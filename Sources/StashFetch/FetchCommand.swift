/// What callers ask of the fetch thread; queued in `FetchInbox` and run in order.
enum FetchCommand {
    case start(TransferID, FetchRequest, @Sendable (FetchEvent) -> Void)
    case cancel(TransferID, CheckedContinuation<Void, Never>)
    case shutdown(CheckedContinuation<Void, Never>?)
}
