import NIOCore
import NIOPosix
import StashCore
import StashWire

/// One socket to the daemon and the pipeline that frames it.
final class ClientConnection: Sendable {
    let channel: Channel
    /// Boxed as `any Sendable` so the class needs no availability of its own.
    private let loopExecutor: any Sendable

    private init(channel: Channel) {
        self.channel = channel
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *) {
            self.loopExecutor = EventLoopTaskExecutor(eventLoop: channel.eventLoop)
        } else {
            self.loopExecutor = ()
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *)
    var taskExecutor: any TaskExecutor {
        loopExecutor as! EventLoopTaskExecutor
    }

    /// Connects; a daemon that is not there is UNAVAILABLE with a hint on how to start it.
    static func open(
        socketPath: String, events: AsyncThrowingStream<DownloadEvent, Error>.Continuation? = nil
    ) async throws -> ClientConnection {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(ByteToMessageHandler(FrameDecoder(maxFrameLength: WireCodec.defaultMaxFrameLength)))
                    try operations.addHandler(ClientHandler(events: events))
                }
            }
        do {
            let channel = try await bootstrap.connect(unixDomainSocketPath: socketPath).get()
            return ClientConnection(channel: channel)
        } catch {
            throw StashError(
                .unavailable,
                "cannot reach stashd at \(socketPath): \(Self.reason(error)); start it with `stashd` (or `make run` in the stash repo)")
        }
    }

    /// Sends one request and waits for its response; a failed status throws its StashError.
    func call(_ op: Operation) async throws -> ResponseResult {
        let response = try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Response, Error>) in
            let call = PendingCall(op: op, continuation: continuation)
            // A caller on the loop (see StashClient.taskExecutor) writes in place: no hop.
            if channel.eventLoop.inEventLoop {
                send(call)
            } else {
                channel.eventLoop.execute { self.send(call) }
            }
        }
        return try response.result.get()
    }

    /// On the event loop. A closed channel has no handlers left to answer the call, so the
    /// call fails here; an open one has the ClientHandler, which answers every call it gets.
    private func send(_ call: PendingCall) {
        guard channel.isActive else {
            call.continuation.resume(throwing: StashError(.unavailable, "connection to stashd closed"))
            return
        }
        channel.writeAndFlush(call, promise: nil)
    }

    /// Starts closing without waiting; pending calls fail with UNAVAILABLE.
    func closeSoon() {
        channel.close(promise: nil)
    }

    func close() async {
        try? await channel.close()
    }

    private static func reason(_ error: Error) -> String {
        if let ioError = error as? IOError {
            return String(cString: strerror(ioError.errnoCode))
        }
        return "\(error)"
    }
}
