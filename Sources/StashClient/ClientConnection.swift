import Dispatch
import NIOCore
import NIOPosix
import StashCore
import StashWire

/// One socket to the daemon and the pipeline that frames it.
final class ClientConnection: Sendable {
    let channel: Channel
    /// The socket under `channel`, watched by the busy poll.
    private let descriptor: Int32
    /// How long the connection's thread watches the socket for an answer after writing a
    /// request before it goes back to sleep; 0 never.
    private let busyPollNanoseconds: UInt64
    /// Boxed as `any Sendable` so the class needs no availability of its own.
    private let loopExecutor: any Sendable
    /// A flush is queued on the loop: requests written before it runs share it.
    private let flushQueued: NIOLoopBoundBox<Bool>

    private init(channel: Channel, descriptor: Int32, busyPollNanoseconds: UInt64) {
        self.channel = channel
        self.descriptor = descriptor
        self.busyPollNanoseconds = busyPollNanoseconds
        self.flushQueued = NIOLoopBoundBox.makeBoxSendingValue(false, eventLoop: channel.eventLoop)
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

    /// Connects; a daemon that is not there is UNAVAILABLE naming the socket tried and how to
    /// start stashd (`DaemonStartHint`).
    static func open(
        socketPath: String, events: AsyncThrowingStream<DownloadEvent, Error>.Continuation? = nil,
        busyPollMicroseconds: Int = 0
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
            let descriptor = try UnixSocket.connect(path: socketPath)
            // From here on the channel owns the descriptor and closes it.
            let channel = try await bootstrap.withConnectedSocket(descriptor).get()
            return ClientConnection(
                channel: channel, descriptor: descriptor, busyPollNanoseconds: UInt64(max(0, busyPollMicroseconds)) * 1000)
        } catch {
            throw StashError.connectionFailure(
                "cannot reach stashd at \(socketPath): \(Self.reason(error)); \(DaemonStartHint.text(socketPath: socketPath))")
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
    ///
    /// The flush waits for the loop's queue: calls made by the tasks one read of answers
    /// resumed are all written by then and leave in one write, and the daemon reads them in
    /// one read. A lone call only waits for the loop to reach the flush, without sleeping.
    private func send(_ call: PendingCall) {
        guard channel.isActive else {
            call.continuation.resume(throwing: StashError.connectionFailure("connection to stashd closed"))
            return
        }
        channel.write(call, promise: nil)
        guard !flushQueued.value else { return }
        flushQueued.value = true
        channel.eventLoop.execute {
            self.flushQueued.value = false
            self.channel.flush()
            // After the flush, so the thread does not watch for an answer to a request it
            // has not sent.
            if self.busyPollNanoseconds > 0 { self.pollForAnswer() }
        }
    }

    /// Watches the socket until something can be read or the busy-poll time is up. The
    /// daemon's answer then finds this thread awake: nothing has to wake it, which on a
    /// virtual machine with idle CPUs costs more than the call itself. It holds up the other
    /// work of this event loop for at most that time.
    private func pollForAnswer() {
        let start = DispatchTime.now().uptimeNanoseconds
        while !UnixSocket.isReadable(descriptor), DispatchTime.now().uptimeNanoseconds - start < busyPollNanoseconds {}
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
        if let systemError = error as? SystemCallError {
            return String(cString: strerror(systemError.errnoCode))
        }
        return "\(error)"
    }
}
