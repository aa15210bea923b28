import NIOCore
import StashWire

/// A request on its way into the pipeline; the handler gives it an id and keeps the promise
/// until the response with that id arrives.
struct PendingCall: Sendable {
    var op: Operation
    var promise: EventLoopPromise<Response>
}
