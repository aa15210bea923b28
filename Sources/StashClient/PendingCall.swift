import StashWire

/// A request on its way into the pipeline; the handler gives it an id and keeps the
/// continuation until the response with that id arrives.
///
/// The handler resumes the continuation directly rather than through an EventLoopPromise: a
/// promise and its future cost several allocations and generic-metadata lookups per call,
/// a noticeable share of a round trip that takes microseconds. Every path that takes a
/// PendingCall resumes it exactly once: it is either failed at once or kept in the handler's
/// table, which only resumes what it removes.
struct PendingCall: Sendable {
    var op: Operation
    var continuation: UnsafeContinuation<Response, Error>
}
