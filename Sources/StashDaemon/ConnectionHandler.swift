import Logging
import NIOCore
import StashCore
import StashWire

#if canImport(Glibc)
import Glibc
#endif

/// One client connection: checks the peer, decodes requests and applies the session rules.
/// A request the handler cannot answer at once runs in its own task, so slow requests never
/// hold up the event loop or the requests pipelined behind them.
///
/// Memory per connection is bounded whatever the client does (`RequestAdmission`): a request
/// starts only while the answers before it fit in NIO's outbound buffer (below its high-water
/// mark) and a task is free for it (a heavy one also needs the heavy slot, and is parked
/// until it frees); until then it waits here undecoded, and nothing more is read. The
/// client's own socket buffer then fills and its writes block.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let handler: any RequestHandler
    private var logger: Logger
    private var session: Session
    private var peer = PeerCredentials(pid: 0, uid: 0, gid: 0)
    private var outbox: ConnectionOutbox?
    /// Frames answered on the loop during one read burst, written and flushed as one buffer at
    /// channelReadComplete: one allocation and one pipeline write per burst, not per request.
    private var replies: ByteBuffer?
    /// Fixed for the connection's life; checked first so the hot path does not copy the Logger.
    private let tracesRequests: Bool
    private let spinner: IdleSpinner?
    /// A read the channel asked for and this handler held back.
    private var readHeld = false
    private var admission = RequestAdmission()
    /// Frames read but not started yet, oldest first (at most one read burst's worth, since
    /// nothing is read while any wait); `blocked` is the first of them once decoded.
    private var waiting = CircularBuffer<ByteBuffer>()
    private var blocked: Request?
    /// Heavy requests waiting for the heavy slot, oldest first.
    private var parked = CircularBuffer<Request>()
    /// AddDownloads started during one read (or one `carryOn`), answered by one task (`startAdds`).
    private var adds: [(id: UInt64, request: AddDownloadRequest)] = []
    /// Set while `startWaiting` runs: a write inside it may report a writability change,
    /// which must not start requests out of order.
    private var starting = false
    /// The client stopped reading at some point, or asked for a heavy answer (a plan may
    /// parse 64 MiB of playlists): what it cost is given back to the system once it has gone
    /// (`HeapArenas.returnFreedMemory`).
    private var costMemory = false
    private var closed = false

    init(handler: any RequestHandler, ownerUID: UInt32, spinner: IdleSpinner?, logger: Logger) {
        self.handler = handler
        self.spinner = spinner
        self.session = Session(ownerUID: ownerUID)
        self.logger = logger
        self.tracesRequests = logger.logLevel <= .trace
    }

    func channelActive(context: ChannelHandlerContext) {
        let outbox = ConnectionOutbox(channel: context.channel, clock: handler.clock)
        self.outbox = outbox
        let credentials: EventLoopFuture<PeerCredentials>
        if let provider = context.channel as? SocketOptionProvider {
            credentials = Self.peerCredentials(of: provider)
        } else {
            credentials = context.eventLoop.makeFailedFuture(
                StashError(.internal, "connection \(context.channel) has no socket to ask for SO_PEERCRED"))
        }
        // On the loop the option is read at once, so this runs before the first read.
        credentials.hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let peer):
                self.accept(peer: peer, context: context)
            case .failure(let error):
                self.logger.warning("cannot read peer credentials; closing", metadata: ["error": "\(error)"])
                self.session.onProtocolError()
                context.close(promise: nil)
            }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        spinner?.requestArrived()
        waiting.append(unwrapInboundIn(data))
        startWaiting(context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // The adds of the whole read, not of one frame (each frame is a channelRead).
        startAdds(context: context)
        writeReplies(context: context)
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        outbox?.setWritable(writable)
        if !writable { costMemory = true }
        carryOn(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// The channel asks for more input after each read: held back while requests wait.
    func read(context: ChannelHandlerContext) {
        if mayRead(context) {
            context.read()
        } else {
            readHeld = true
            costMemory = true
        }
    }

    private func mayRead(_ context: ChannelHandlerContext) -> Bool {
        waiting.isEmpty && blocked == nil && admission.mayRead(writable: context.channel.isWritable)
    }

    /// After a task finished or the outbound buffer drained: starts what waits, sends what it
    /// answered at once, and reads again when nothing waits.
    private func carryOn(context: ChannelHandlerContext) {
        startWaiting(context: context)
        startAdds(context: context)
        writeReplies(context: context)
        guard readHeld, mayRead(context) else { return }
        readHeld = false
        context.read()
    }

    /// Starts the parked and waiting requests in order, as long as `admission` lets them.
    private func startWaiting(context: ChannelHandlerContext) {
        guard !starting else { return }
        starting = true
        defer { starting = false }
        while session.phase != .closing {
            if admission.mayStartParked(writable: context.channel.isWritable), let next = parked.popFirst() {
                admission.unparkedOne()
                start(next, context: context)
                continue
            }
            let request: Request
            if let first = blocked {
                request = first
                blocked = nil
            } else if let frame = waiting.popFirst() {
                do {
                    request = try WireCodec.decodeRequest(frame)
                } catch {
                    let message = (error as? StashError)?.message ?? "\(error)"
                    refuse(StashError(.invalidArgument, "undecodable request: \(message)"), context: context)
                    break
                }
            } else {
                return
            }
            switch admission.decide(request.op, writable: context.channel.isWritable) {
            case .start:
                start(request, context: context)
            case .park:
                parked.append(request)
                admission.parkedOne()
            case .wait:
                blocked = request
                return
            }
        }
        // Closing: what the client sent after the bad request is never answered.
        dropWaiting()
    }

    private func dropWaiting() {
        waiting.removeAll()
        blocked = nil
        parked.removeAll()
        admission.droppedParked()
    }

    private func start(_ request: Request, context: ChannelHandlerContext) {
        let op = request.op
        // The adds gathered so far start before any other request, in the order they came.
        if Self.burstAdd(op) == nil { startAdds(context: context) }
        switch session.onRequest(op) {
        case .ignore:
            return
        case .reject(let error):
            logger.debug("request rejected", metadata: ["op": "\(op.name)", "id": "\(request.id)", "error": "\("\(error)".withoutURLSecrets)"])
            write(.response(Response(id: request.id, result: .failure(error))), context: context)
        case .handle:
            if tracesRequests {
                logger.trace("request", metadata: ["op": "\(op.name)", "id": "\(request.id)"])
            }
            if let result = handler.handleImmediately(op, peer: peer) {
                write(.response(Response(id: request.id, result: result)), context: context)
                return
            }
            guard let outbox = self.outbox else { return }
            let heavy = RequestAdmission.isHeavy(op)
            admission.taskStarted(heavy: heavy)
            if let add = Self.burstAdd(op) {
                adds.append((request.id, add))
                return
            }
            let handler = self.handler
            let peer = self.peer
            let id = request.id
            if heavy { costMemory = true }
            let done = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            Task {
                let result = await handler.handle(op, peer: peer)
                outbox.send(.response(Response(id: id, result: result)))
                done.eventLoop.execute { done.value.0.finished(1, heavy: heavy, context: done.value.1) }
            }
        case .subscribe(let subscribeRequest):
            guard admission.maySubscribe else {
                let error = StashError(
                    .resourceExhausted,
                    "this connection has \(admission.subscriptions) subscriptions, the most one may hold; subscribe once per connection")
                write(.response(Response(id: request.id, result: .failure(error))), context: context)
                return
            }
            admission.subscribed()
            logger.debug("subscribe", metadata: [
                "id": "\(request.id)", "filter-ids": "\(subscribeRequest.ids.count)", "filter-states": "\(subscribeRequest.states.count)",
            ])
            startSubscription(subscribeRequest, requestID: request.id, context: context)
        }
    }

    /// An AddDownload answered together with those next to it (`startAdds`); an append is not.
    private static func burstAdd(_ op: Operation) -> AddDownloadRequest? {
        if case .addDownload(let add) = op, !add.append { return add }
        return nil
    }

    /// Starts the AddDownloads gathered by `start` as one task: one turn on the engine and one
    /// write for all their answers (`RequestHandler.handleAdds`), where a task each cost a
    /// thread hop, a turn on the engine and a wake-up after each commit.
    private func startAdds(context: ChannelHandlerContext) {
        guard !adds.isEmpty, let outbox else { return }
        let batch = adds
        adds = []
        let handler = self.handler
        let peer = self.peer
        let done = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        Task {
            let results = await handler.handleAdds(batch.map(\.request), peer: peer)
            outbox.send(zip(batch, results).map { add, result in .response(Response(id: add.id, result: result)) })
            done.eventLoop.execute { done.value.0.finished(batch.count, heavy: false, context: done.value.1) }
        }
    }

    /// On the loop, once `count` requests' task has sent their answers: what waits may start.
    private func finished(_ count: Int, heavy: Bool, context: ChannelHandlerContext) {
        for _ in 0..<count { admission.taskFinished(heavy: heavy) }
        if closed {
            returnMemoryOnceIdle()
        } else {
            carryOn(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        logger.debug("connection closed")
        // Started before the close, as every request the connection read: their answers go nowhere.
        startAdds(context: context)
        closed = true
        outbox?.close()
        dropWaiting()
        returnMemoryOnceIdle()
        context.fireChannelInactive()
    }

    /// Once a connection that cost memory has gone and its last task is done, what it held is
    /// free, but glibc keeps freed memory for later unless told.
    private func returnMemoryOnceIdle() {
        guard closed, costMemory, admission.tasks == 0 else { return }
        costMemory = false
        HeapArenas.returnFreedMemory()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard session.phase != .closing else { return }
        switch error as? FrameError {
        case .emptyFrame:
            refuse(StashError(.invalidArgument, "frame length 0 is invalid: a frame holds at least 1 byte"), context: context)
        case .frameTooLarge(let length, let limit):
            refuse(StashError(.resourceExhausted, "frame length \(length) exceeds the limit of \(limit) bytes"), context: context)
        case .truncatedFrame(let expected, let received):
            logger.debug("connection closed mid-frame", metadata: ["expected": "\(expected)", "received": "\(received)"])
            session.onProtocolError()
            context.close(promise: nil)
        case nil:
            logger.debug("connection error; closing", metadata: ["error": "\(error)"])
            session.onProtocolError()
            context.close(promise: nil)
        }
    }

    // MARK: - Private

    private func accept(peer: PeerCredentials, context: ChannelHandlerContext) {
        self.peer = peer
        logger[metadataKey: "peer.pid"] = "\(peer.pid)"
        logger[metadataKey: "peer.uid"] = "\(peer.uid)"
        switch session.onConnect(peer: peer) {
        case .accept:
            logger.debug("connection accepted")
        case .refuse(let error):
            logger.notice("connection refused", metadata: ["reason": "\(error.message)"])
            sendAndClose(error, context: context)
        }
    }

    /// Bad input: answer once with request id 0, then close; other connections carry on.
    private func refuse(_ error: StashError, context: ChannelHandlerContext) {
        logger.notice("bad input; closing connection", metadata: ["error": "\(error)"])
        session.onProtocolError()
        sendAndClose(error, context: context)
    }

    /// Events sent in one write at most: 64 records of about 300 bytes, below the outbox's
    /// limit of bytes in transit, so a batch does not go far past it.
    private static let eventBatch = 64

    /// How long a refused peer has to read the answer and close before we close anyway.
    private static let closeGrace = TimeAmount.seconds(2)

    private func sendAndClose(_ error: StashError, context: ChannelHandlerContext) {
        // Answers to the requests before the bad one go out first, as they were read.
        writeReplies(context: context)
        var buffer = context.channel.allocator.buffer(capacity: 128)
        WireCodec.encode(ServerMessage.response(Response(id: 0, result: .failure(error))), at: handler.clock.now(), into: &buffer)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            // Closing with unread input would make the kernel send a reset, which can
            // destroy the answer before the peer reads it. So: end our side, discard what
            // still comes (the session is closing), close when the peer does or after a grace.
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
            channel.eventLoop.scheduleTask(in: Self.closeGrace) { channel.close(promise: nil) }
        }
    }

    /// A typical record fits, so the encoder rarely has to grow the buffer.
    private static let repliesCapacity = 512
    /// Past this, a burst's answers are written out rather than copied into a larger buffer.
    private static let repliesLimit = 64 * 1024

    private func write(_ message: ServerMessage, context: ChannelHandlerContext) {
        var buffer = replies ?? context.channel.allocator.buffer(capacity: Self.repliesCapacity)
        replies = nil  // so the buffer is uniquely referenced while it grows
        WireCodec.encode(message, at: handler.clock.now(), into: &buffer)
        if buffer.readableBytes >= Self.repliesLimit {
            context.write(wrapOutboundOut(buffer), promise: nil)
            context.flush()
        } else {
            replies = buffer
        }
    }

    private func writeReplies(context: ChannelHandlerContext) {
        guard let buffer = replies else { return }
        replies = nil
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    /// Sends the OK for Subscribe, then every event of the subscription until either side ends.
    private func startSubscription(_ request: SubscribeRequest, requestID: UInt64, context: ChannelHandlerContext) {
        let handler = self.handler
        let outbox = self.outbox!
        let logger = self.logger
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let batch = Self.eventBatch
        Task {
            let subscription: EventSubscription
            do {
                subscription = try await handler.subscribe(request)
            } catch {
                let stashError = error as? StashError ?? StashError(.internal, "subscribe failed: \(error)")
                outbox.send(.response(Response(id: requestID, result: .failure(stashError))))
                connection.eventLoop.execute { connection.value.admission.subscriptionRefused() }
                return
            }
            guard outbox.register(subscription) else {
                subscription.cancel()
                return
            }
            outbox.send(.response(Response(id: requestID, result: .success(.empty))))
            while true {
                // What waits goes out together: one encoding pass, one hop onto the event loop
                // and one write for a burst (a commit's events arrive together).
                let events = await subscription.nextBatch(limit: batch)
                if events.isEmpty { break }
                let writable = await outbox.waitUntilWritable()
                if !writable { break }
                outbox.send(events.map { ServerMessage.event($0) }, flush: subscription.backlog == 0)
            }
            outbox.unregister(subscription)
            subscription.cancel()
            logger.debug("subscription ended", metadata: ["id": "\(requestID)"])
        }
    }

    private static func peerCredentials(of provider: SocketOptionProvider) -> EventLoopFuture<PeerCredentials> {
        let future: EventLoopFuture<LinuxPeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}
