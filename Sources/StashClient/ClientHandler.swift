import NIOCore
import StashCore
import StashWire

/// Matches responses to requests by id, so any number of calls can be in flight on one
/// connection, and forwards events to the stream of a subscribed connection. All state lives
/// on the channel's event loop.
final class ClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = PendingCall
    typealias OutboundOut = ByteBuffer

    private var nextID: UInt64 = 1
    private var pending: [UInt64: UnsafeContinuation<Response, Error>] = [:]
    private var closedError: StashError?
    private let events: AsyncThrowingStream<DownloadEvent, Error>.Continuation?

    init(events: AsyncThrowingStream<DownloadEvent, Error>.Continuation?) {
        self.events = events
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let call = unwrapOutboundIn(data)
        if let closedError {
            call.continuation.resume(throwing: closedError)
            promise?.fail(closedError)
            return
        }
        let id = nextID
        nextID += 1
        var buffer = context.channel.allocator.buffer(capacity: 64)
        do {
            try WireCodec.encodeRefusingNUL(Request(id: id, op: call.op), into: &buffer)
        } catch {
            call.continuation.resume(throwing: error)
            promise?.fail(error)
            return
        }
        pending[id] = call.continuation
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message: ServerMessage
        do {
            message = try WireCodec.decodeServerMessage(unwrapInboundIn(data))
        } catch {
            failAll(StashError(.internal, "stashd sent an undecodable message: \(error)"))
            context.close(promise: nil)
            return
        }
        switch message {
        case .response(let response):
            if let continuation = pending.removeValue(forKey: response.id) {
                continuation.resume(returning: response)
            } else if case .failure(let error) = response.result, response.id == 0 {
                // Id 0 is never a request's: the daemon refused the connection itself
                // (permission, bad frame) and is closing it.
                failAll(error)
            }
        case .event(let event):
            events?.yield(event)
        case .laterEvent:
            break  // PROTOCOL.md section 7: a client skips an event kind it does not know
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(StashError.connectionFailure("connection to stashd closed"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        failAll(StashError.connectionFailure("connection to stashd failed: \(error)"))
        context.close(promise: nil)
    }

    /// Every later call fails with the same error.
    private func failAll(_ error: StashError) {
        if closedError == nil { closedError = error }
        let failed = pending
        pending.removeAll()
        for continuation in failed.values { continuation.resume(throwing: error) }
        events?.finish(throwing: error)
    }
}
